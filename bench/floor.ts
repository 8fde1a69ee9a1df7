// `npm run bench:floor`: where a cheap request's time goes. The small answers of issue 12's
// table (and `health`) against three servers on the bench:scale store, each pinned to core 1
// with wrk on core 0, interleaved in rounds: `docgate serve`; the lean server
// (bench/scale/lean-server.ts: docgate's store, credential check and executor behind plain
// node:http); and the bare server sending the same bytes. docgate ÷ lean is the HTTP
// layer's share (Fastify, hooks, headers, the worker pool's hand-off decision); lean ÷ bare
// is the work of the request itself.
// Environment: BENCH_SCALE (100), BENCH_ROUNDS (5), BENCH_DURATION (seconds per run, 3),
// BENCH_ONLY (a regular expression over request names).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BENCH_AUTH, ROOT, median } from './harness.js'
import { buildCases, getOk } from './scale/cases.js'
import type { Case } from './scale/cases.js'
import { settle, startPinned, stop } from './scale/processes.js'
import type { Server } from './scale/processes.js'
import { sqliteStore } from './scale/store.js'
import { ensureWrk, runWrk } from './scale/wrk.js'

const env = process.env
const scale = Number(env.BENCH_SCALE ?? 100)
const rounds = Number(env.BENCH_ROUNDS ?? 5)
const seconds = Number(env.BENCH_DURATION ?? 3)
const only = env.BENCH_ONLY ? new RegExp(env.BENCH_ONLY) : undefined
const headers = { authorization: BENCH_AUTH }
const SMALL = /^(payments\?code|payments, \d|cashflows|warehouses)/

const int = (x: number): string => Math.round(x).toLocaleString('en-US')

async function rate(server: Server, path: string): Promise<number> {
  const r = await runWrk(server.url + path, ROOT, { core: 0, connections: 16, seconds, headers, timeoutSeconds: 30 })
  await settle(server.child.pid!)
  if (r.errors > 0) throw new Error(`${server.url}${path}: ${r.errors} errors`)
  return r.rps
}

async function main(): Promise<void> {
  console.log(ensureWrk())
  const db = await sqliteStore(ROOT, scale, 60 * 60_000)
  const servers: Record<'docgate' | 'lean', Server> = {
    docgate: await startPinned(1, ['bin/docgate.js', 'serve', '--db', db, '--port', '0', '--access-log', 'off'], ROOT),
    lean: await startPinned(1, ['dist/bench/scale/lean-server.js', db], ROOT),
  }
  const dir = mkdtempSync(join(tmpdir(), 'docgate-bench-floor-'))
  const rows: string[] = []
  try {
    const cases: Pick<Case, 'name' | 'path'>[] = [
      { name: 'health', path: '/main/hs/health' },
      ...(await buildCases(servers.docgate.url, headers)).filter((c) => SMALL.test(c.name) && c.period === undefined),
    ].filter((c) => !only || only.test(c.name))
    for (const c of cases) {
      const answer = await getOk(servers.docgate.url + c.path, headers)
      const lean = await getOk(servers.lean.url + c.path, headers)
      if (!lean.body.equals(answer.body)) throw new Error(`${c.name}: the lean server's answer differs from docgate's`)
      writeFileSync(join(dir, 'body.bin'), answer.body)
      const bare = await startPinned(
        1,
        ['dist/bench/bare-server.js', join(dir, 'body.bin'), answer.contentType, answer.cors ? 'cors' : 'none'],
        ROOT,
      )
      try {
        const all = { docgate: servers.docgate, lean: servers.lean, bare }
        const names = Object.keys(all) as (keyof typeof all)[]
        const got: Record<string, number[]> = { docgate: [], lean: [], bare: [] }
        for (const n of names) await rate(all[n], c.path)
        for (let r = 0; r < rounds; r++) {
          // A different first server each round: a drift of the machine falls on all three.
          for (let k = 0; k < names.length; k++) {
            const n = names[(r + k) % names.length]!
            got[n]!.push(await rate(all[n], c.path))
          }
        }
        const [d, l, b] = [median(got.docgate!), median(got.lean!), median(got.bare!)]
        const line = `| ${c.name} | ${answer.body.length.toLocaleString('en-US')} B | ${int(d)} | ${int(l)} | ${int(b)} | ${(d / b).toFixed(3)} | ${(l / b).toFixed(3)} | ${(d / l).toFixed(2)} | ${(1e6 / d - 1e6 / l).toFixed(0)} |`
        console.log(line)
        rows.push(line)
      } finally {
        await stop(bare.child)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await stop(servers.lean.child)
    await stop(servers.docgate.child, 15_000)
  }
  console.log(`\nscale ${scale}, ${rounds} rounds of ${seconds} s, wrk -t1 -c16 on core 0, each server on core 1; medians of the rounds`)
  console.log('| request | bytes | docgate/s | lean/s | bare/s | docgate ÷ bare | lean ÷ bare | docgate ÷ lean | µs docgate adds |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const line of rows) console.log(line)
}

try {
  await main()
} catch (err) {
  console.error(`bench:floor: ${(err as Error).message}`)
  process.exit(1)
}
