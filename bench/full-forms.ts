// `npm run bench:full-forms`: milliseconds per answer of full forms and long lists, built
// in process (no HTTP) on a demo store, so stored full forms can be compared with the
// per-request builders they replaced by running the same file against either build.
// Environment: BENCH_SCALE (demo scale, default 2), BENCH_ROUNDS (default 15).
import { join } from 'node:path'
import { demoFiles } from '../src/demo/generate.js'
import { endpointByService } from '../src/endpoints/index.js'
import type { ListEndpoint } from '../src/endpoints/define.js'
import { importEntries } from '../src/import/run.js'
import { runList } from '../src/pipeline/run.js'
import { openReadOnly } from '../src/store/open.js'
import { openWritable } from '../src/app/store.js'
import { benchDir } from './harness.js'

const scale = Number(process.env.BENCH_SCALE ?? '2')
const rounds = Number(process.env.BENCH_ROUNDS ?? '15')
const location = join(benchDir(), 'bench.db')

const writer = await openWritable(location)
for (const file of demoFiles({ scale, seed: 1 })) {
  const report = await importEntries(
    writer,
    [...file.objects()].map((value, i) => ({ line: i + 1, value })),
  )
  if (!report.ok) throw new Error(`${file.name} rejected`)
}
await writer.close()
const sql = await openReadOnly(location)

const TARGETS: [string, string, Record<string, string>][] = [
  ['orders full, one month', 'orders', { full: 'true', from: '01.10.2026', to: '31.10.2026' }],
  ['orders full, all', 'orders', { full: 'true' }],
  ['payments full, one month', 'payments', { full: 'true', from: '01.10.2026', to: '31.10.2026' }],
  ['receipts full, all', 'receipts', { full: 'true' }],
  ['demands full, all', 'demands', { full: '1' }],
  ['demands short, all', 'demands', {}],
  ['payments short, all', 'payments', {}],
]

async function answer(ep: ListEndpoint, pairs: Map<string, string>): Promise<number> {
  const body = await runList(ep, pairs, { sql, now: () => new Date('2026-11-20T12:00:00') })
  if (Buffer.isBuffer(body)) return body.length
  let n = 0
  for await (const part of body) n += part.length
  return n
}

console.log(`demo scale ${scale}, ${rounds} rounds, median ms per answer (in process)`)
console.log(`${'answer'.padEnd(28)}${'bytes'.padStart(10)}${'median ms'.padStart(11)}${'min ms'.padStart(9)}`)
for (const [name, service, params] of TARGETS) {
  const ep = endpointByService.get(service) as ListEndpoint
  const pairs = new Map(Object.entries(params))
  const bytes = await answer(ep, pairs)
  const times: number[] = []
  for (let i = 0; i < rounds; i++) {
    const t0 = process.hrtime.bigint()
    await answer(ep, pairs)
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  times.sort((a, b) => a - b)
  console.log(
    `${name.padEnd(28)}${String(bytes).padStart(10)}${times[rounds >> 1]!.toFixed(2).padStart(11)}${times[0]!.toFixed(2).padStart(9)}`,
  )
}
await sql.close()
