// What `npm run bench` loads, one line per endpoint case (demo data).
export interface Target {
  readonly name: string
  readonly path: string
}

const q = encodeURIComponent

export const TARGETS: readonly Target[] = [
  { name: 'health', path: '/main/hs/health' },
  { name: 'warehouses (all)', path: '/main/hs/warehouses/get' },
  // Demo data: 300 documents of each kind spread over two years, numbered <prefix>-000001…,
  // so `code=<prefix>-0001` is the ~100 documents 000100–000199 and eight months ~100 more.
  { name: 'specifications (all)', path: '/main/hs/specifications/get' },
  { name: 'specifications year', path: '/main/hs/specifications/get?year=2026' },
  { name: 'specifications material (join rows)', path: `/main/hs/specifications/get?material=${q('Труба профильная')}` },
  { name: 'specifications full ngroup', path: `/main/hs/specifications/get?full=1&ngroup=${q('Крепеж')}` },
  { name: 'transfers code (~100)', path: `/main/hs/transfers/get?code=${q('ПМ-0001')}` },
  { name: 'transfers full code (~100)', path: `/main/hs/transfers/get?full=1&code=${q('ПМ-0001')}` },
  { name: 'morders period (~100)', path: '/main/hs/morders/get?from=01.01.2025&to=31.08.2025' },
  { name: 'morders full code (~100)', path: `/main/hs/morders/get?full=1&code=${q('ЗН-0001')}` },
  { name: 'demands code (~100)', path: `/main/hs/demands/get?code=${q('ТН-0001')}` },
  { name: 'demands full period (~100)', path: '/main/hs/demands/get?full=1&from=01.01.2025&to=31.08.2025' },
  // ~100 documents each at demo scale 1: 300 per kind over the two years before 20.11.2026.
  { name: 'payments (~100 rows, expense period)', path: '/main/hs/payments/get?from=01.04.2026&to=30.11.2026' },
  { name: 'receipts (~100 rows, period)', path: '/main/hs/receipts/get?from=01.04.2026&to=30.11.2026' },
  { name: 'orders (~100 rows, period)', path: '/main/hs/orders/get?from=01.04.2026&to=30.11.2026' },
  { name: 'sorders (~100 rows, period)', path: '/main/hs/sorders/get?from=01.04.2026&to=30.11.2026' },
  { name: 'payments full (~100, period)', path: '/main/hs/payments/get?full=1&from=01.04.2026&to=30.11.2026' },
  { name: 'receipts full (~100, period)', path: '/main/hs/receipts/get?full=1&from=01.04.2026&to=30.11.2026' },
  { name: 'orders full (~100, period)', path: '/main/hs/orders/get?full=1&from=01.04.2026&to=30.11.2026' },
  { name: 'sorders full (~100, period)', path: '/main/hs/sorders/get?full=1&from=01.04.2026&to=30.11.2026' },
  { name: 'materials (all, tree)', path: '/main/hs/materials/get' },
  { name: 'cashflows (01.01.0001 – today, totals)', path: '/main/hs/cashflows/get?totals=true' },
]
