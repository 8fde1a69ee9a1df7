// What `npm run bench` loads, one line per endpoint case (demo data).
export interface Target {
  readonly name: string
  readonly path: string
}

export const TARGETS: readonly Target[] = [
  { name: 'health', path: '/main/hs/health' },
  { name: 'warehouses (all)', path: '/main/hs/warehouses/get' },
  // ~100 documents each at demo scale 1: 300 per kind over the two years before 20.11.2026.
  { name: 'payments (~100 rows, expense period)', path: '/main/hs/payments/get?from=01.04.2026&to=30.11.2026' },
  { name: 'receipts (~100 rows, period)', path: '/main/hs/receipts/get?from=01.04.2026&to=30.11.2026' },
  { name: 'orders (~100 rows, period)', path: '/main/hs/orders/get?from=01.04.2026&to=30.11.2026' },
  { name: 'sorders (~100 rows, period)', path: '/main/hs/sorders/get?from=01.04.2026&to=30.11.2026' },
]
