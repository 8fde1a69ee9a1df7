// `npm run bench:search`: milliseconds per request of substring filters on a demo store,
// run through the request pipeline (no HTTP, so only the store's work and the answer's
// assembly are timed). BENCH_DB: an existing store (SQLite file or postgres:// URL);
// otherwise one is built at demo scale BENCH_SCALE (default 10).
import { join } from 'node:path'
import { endpointByService } from '../src/endpoints/index.js'
import { runList } from '../src/pipeline/run.js'
import { openReadOnly } from '../src/store/open.js'
import { benchDir, prepareDemo } from './harness.js'

const scale = Number(process.env.BENCH_SCALE ?? '10')
let db = process.env.BENCH_DB
if (!db) {
  db = join(benchDir(), 'search.db')
  const t0 = performance.now()
  await prepareDemo(db, scale)
  console.log(`demo scale ${scale} written in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
}
const sql = await openReadOnly(db)
const numbers = (await sql.all<{ number: string }>('SELECT number FROM api_payments ORDER BY ref LIMIT 40')).map((r) => r.number)
const n = (await sql.all<{ n: number }>('SELECT count(*) AS n FROM api_payments'))[0]?.n
console.log(`${db}: ${n} payments`)

async function consume(body: Buffer | AsyncIterable<Buffer>): Promise<number> {
  if (Buffer.isBuffer(body)) return body.length
  let bytes = 0
  for await (const chunk of body) bytes += chunk.length
  return bytes
}

/** Median milliseconds per request over `rounds` passes of `queries`. */
async function time(service: string, queries: readonly Record<string, string>[], rounds = 5): Promise<{ ms: number; bytes: number }> {
  const ep = endpointByService.get(service)!
  if (ep.kind !== 'list') throw new Error(`${service} is not a list`)
  const samples: number[] = []
  let bytes = 0
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now()
    for (const q of queries) bytes = await consume(await runList(ep, new Map(Object.entries(q)), { sql, now: () => new Date() }))
    samples.push((performance.now() - t0) / queries.length)
  }
  samples.sort((a, b) => a - b)
  return { ms: samples[Math.floor(samples.length / 2)]!, bytes }
}

const cases: [string, string, Record<string, string>[]][] = [
  ['payments?code=<whole number> (1 row)', 'payments', numbers.map((code) => ({ code }))],
  ['payments?code=<last 6 digits> (1 row)', 'payments', numbers.map((code) => ({ code: code.slice(-6) }))],
  ['payments?code=<2 digits> (scan)', 'payments', numbers.map((code) => ({ code: code.slice(-2) }))],
  ['payments?comment=<absent word> (post-filter)', 'payments', [{ comment: 'нет такого' }]],
  ['warehouses?name=склад', 'warehouses', [{ name: 'склад' }]],
]
console.log(`${'request'.padEnd(48)}${'ms/request'.padStart(12)}${'bytes'.padStart(10)}`)
for (const [label, service, queries] of cases) {
  await time(service, queries, 1)
  const { ms, bytes } = await time(service, queries)
  console.log(`${label.padEnd(48)}${ms.toFixed(3).padStart(12)}${String(bytes).padStart(10)}`)
}
await sql.close()
