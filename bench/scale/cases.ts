// The requests of issue 12's table, made concrete from the store being measured: a real
// document number, the data's date ranges, and for random-period requests a representative
// answer for the bare server to send.
import { request } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import type { RandomPeriod } from './wrk.js'

const DAY_MS = 86_400_000
const q = encodeURIComponent

export interface Answer {
  readonly status: number
  readonly contentType: string
  readonly cors: boolean
  /** The body's `Content-Encoding` (none: identity). */
  readonly contentEncoding?: string
  readonly body: Buffer
  /** The `Link` header of a page (`limit`). */
  readonly link?: string
}

/** GET without Accept-Encoding unless `headers` name one, as wrk sends it: the bytes wrk receives. */
function get(url: string, headers: Readonly<Record<string, string>>, timeoutMs = 300_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? 'application/json'),
          cors: res.headers['access-control-allow-origin'] !== undefined,
          ...(res.headers['content-encoding'] ? { contentEncoding: res.headers['content-encoding'] } : {}),
          body: Buffer.concat(chunks),
          ...(res.headers.link ? { link: String(res.headers.link) } : {}),
        }),
      )
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within ${timeoutMs / 1000} s`)))
    req.on('error', reject)
    req.end()
  })
}

export async function getOk(url: string, headers: Readonly<Record<string, string>>): Promise<Answer> {
  const a = await get(url, headers)
  if (a.status !== 200) throw new Error(`${url}: HTTP ${a.status} ${a.body.toString().slice(0, 200)}`)
  return a
}

const dayOf = (ru: string): number => {
  const [d, m, y] = ru.split('.').map(Number) as [number, number, number]
  return Date.UTC(y, m - 1, d) / DAY_MS
}
const ruDate = (day: number): string => {
  const [y, m, d] = new Date(day * DAY_MS).toISOString().slice(0, 10).split('-')
  return `${d}.${m}.${y}`
}
const periodQuery = (from: number, width: number): string => `from=${ruDate(from)}&to=${ruDate(from + width)}`

/** Rows of an answer: the `data` array's length, every node for a tree (materials); a coded body is decoded first. */
export function rowsOf(coded: Buffer, encoding?: string): number {
  const body = encoding === 'br' ? brotliDecompressSync(coded) : encoding === 'gzip' ? gunzipSync(coded) : coded
  const count = (nodes: unknown[]): number =>
    nodes.reduce<number>((n, node) => n + 1 + count(((node as { Дети?: unknown[] }).Дети ?? []) as unknown[]), 0)
  const json = JSON.parse(body.toString()) as { data?: unknown[] }
  return count(json.data ?? [])
}

export interface Case {
  readonly name: string
  /** The request docgate answers and whose bytes the bare server sends. */
  readonly path: string
  /** Set when each request asks for another period; `path` is then a representative one. */
  readonly period?: RandomPeriod
  /** The figure at the time it was filed (SQLite, scale 100), and its target. */
  readonly before: string
  /** The PostgreSQL figure (scale 10), where it gave one. */
  readonly beforePg?: string
  readonly target: number
  /** Request headers beside the credentials (`Accept-Encoding` of a compressed case). */
  readonly headers?: Readonly<Record<string, string>>
}

const PERIOD_WIDTH = 2 // a 3-day period: from + 2 days

interface Range {
  readonly first: number
  readonly last: number
}

function rangeOf(rows: readonly Record<string, unknown>[], field: string): Range {
  const days = rows.map((r) => dayOf(String(r[field])))
  if (days.length === 0) throw new Error(`no rows to take a ${field} range from`)
  return { first: Math.min(...days), last: Math.max(...days) }
}

function randomPeriod(prefix: string, range: Range): RandomPeriod {
  return { prefix, firstDay: range.first, days: Math.max(1, range.last - range.first - PERIOD_WIDTH + 1), width: PERIOD_WIDTH }
}

/**
 * The period among nine spread over the range whose answer has the median size: what the
 * bare server sends for a random-period request.
 */
async function representative(base: string, headers: Readonly<Record<string, string>>, p: RandomPeriod): Promise<string> {
  const sizes: { path: string; bytes: number }[] = []
  for (let i = 0; i < 9; i++) {
    const path = p.prefix + periodQuery(p.firstDay + Math.floor(((i + 0.5) * p.days) / 9), p.width)
    sizes.push({ path, bytes: (await getOk(base + path, headers)).body.length })
  }
  sizes.sort((a, b) => a.bytes - b.bytes)
  return sizes[4]!.path
}

/** The requests, from what the server at `base` holds. */
export async function buildCases(base: string, headers: Readonly<Record<string, string>>): Promise<Case[]> {
  const payments = (
    JSON.parse((await getOk(`${base}/main/hs/payments/get`, headers)).body.toString()) as { data: Record<string, unknown>[] }
  ).data
  const orders = (JSON.parse((await getOk(`${base}/main/hs/orders/get`, headers)).body.toString()) as { data: Record<string, unknown>[] })
    .data

  // The issue's `code=019151`: the digits of one number, matching that document alone.
  const number = String(payments[Math.floor(payments.length / 2)]!['Номер'])
  let code = number.replace(/^\D+/, '')
  const found = JSON.parse((await getOk(`${base}/main/hs/payments/get?code=${q(code)}`, headers)).body.toString()) as { data: unknown[] }
  if (found.data.length !== 1) code = number

  const expense = rangeOf(payments, 'ДатаРасхода')
  const fixedFrom = expense.first + Math.floor((expense.last - expense.first - PERIOD_WIDTH) / 2)
  const fixed = periodQuery(fixedFrom, PERIOD_WIDTH)
  const paymentsRandom = randomPeriod('/main/hs/payments/get?', expense)
  // A page deep in the list: the cursor after its first 10,000 rows (a cursor holds for any limit).
  const deep = (await getOk(`${base}/main/hs/payments/get?limit=10000`, headers)).link
  const cursor = deep === undefined ? undefined : new URL(/<([^>]+)>/.exec(deep)![1]!, base).searchParams.get('cursor')
  const ordersRandom = randomPeriod('/main/hs/orders/get?full=true&', rangeOf(orders, 'Дата'))

  return [
    { name: `payments?code=${code}`, path: `/main/hs/payments/get?code=${q(code)}`, before: '0.001', beforePg: '0.041', target: 0.15 },
    {
      name: 'payments, random 3-day period',
      path: await representative(base, headers, paymentsRandom),
      period: paymentsRandom,
      before: '0.066',
      target: 0.2,
    },
    {
      name: `payments, ${fixed.replace('from=', '').replace('&to=', '–')}`,
      path: `/main/hs/payments/get?${fixed}`,
      before: '0.10',
      beforePg: '0.035',
      target: 0.25,
    },
    { name: 'warehouses (all)', path: '/main/hs/warehouses/get', before: '0.015', target: 0.2 },
    {
      name: 'payments?full=true, same period',
      path: `/main/hs/payments/get?full=true&${fixed}`,
      before: '0.017',
      beforePg: '0.011',
      target: 0.1,
    },
    {
      name: 'orders?full=true, random 3-day period',
      path: await representative(base, headers, ordersRandom),
      period: ordersRandom,
      before: '0.002',
      beforePg: '0.005',
      target: 0.1,
    },
    { name: 'cashflows?totals=true', path: '/main/hs/cashflows/get?totals=true', before: '0.064', target: 0.2 },
    { name: 'specifications?material=Кабель', path: `/main/hs/specifications/get?material=${q('Кабель')}`, before: '0.004', target: 0.1 },
    // The same answer asked compressed: the answer cache keeps the Brotli bytes, the bare server sends them.
    {
      name: 'specifications?material=Кабель, br',
      path: `/main/hs/specifications/get?material=${q('Кабель')}`,
      headers: { 'accept-encoding': 'br' },
      before: '–',
      target: 0.1,
    },
    { name: 'materials (whole tree)', path: '/main/hs/materials/get', before: '0.024', target: 0.2 },
    // Pages (`limit`, `cursor`): the first page of a list, and one after 10,000 rows.
    { name: 'payments?limit=100', path: '/main/hs/payments/get?limit=100', before: '–', target: 0.1 },
    ...(cursor
      ? [
          {
            name: 'payments?limit=100 after 10,000 rows',
            path: `/main/hs/payments/get?limit=100&cursor=${cursor}`,
            before: '–',
            target: 0.1,
          },
        ]
      : []),
  ]
}
