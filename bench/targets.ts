// What `npm run bench` loads, one line per endpoint case (demo data).
export interface Target {
  readonly name: string
  readonly path: string
}

export const TARGETS: readonly Target[] = [
  { name: 'health', path: '/main/hs/health' },
  { name: 'warehouses (all)', path: '/main/hs/warehouses/get' },
]
