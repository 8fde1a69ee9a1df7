// What `npm run bench` loads, one line per endpoint case (demo data).
export interface Target {
  readonly name: string
  readonly path: string
}

export const TARGETS: readonly Target[] = [
  { name: 'health', path: '/main/hs/health' },
  { name: 'warehouses (all)', path: '/main/hs/warehouses/get' },
  { name: 'materials (all, tree)', path: '/main/hs/materials/get' },
  { name: 'cashflows (01.01.0001 – today, totals)', path: '/main/hs/cashflows/get?totals=true' },
]
