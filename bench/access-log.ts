// The access log's cost: server CPU time per request, and requests per second, with and
// without `--access-log`, in interleaved rounds (the order alternates), medians reported.
// CPU per request is read from /proc (the server's own user + system time), so it holds up
// better than throughput on a machine shared with other work.
// `node dist/bench/access-log.js`; BENCH_ROUNDS (default 5), BENCH_REQUESTS (default 20000).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { BENCH_AUTH, benchDir, prepareDemo, startProcess } from './harness.js'

const rounds = Number(process.env.BENCH_ROUNDS ?? '5')
const amount = Number(process.env.BENCH_REQUESTS ?? '20000')
const TARGETS = [
  { name: 'health', path: '/main/hs/health' },
  { name: 'warehouses (all)', path: '/main/hs/warehouses/get' },
  { name: 'payments (~100 rows)', path: '/main/hs/payments/get?from=01.04.2026&to=30.11.2026' },
]

const TICK_S = 0.01 // USER_HZ is 100 on Linux
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * TICK_S
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function run(db: string, accessLog: 'on' | 'off', path: string): Promise<{ cpuUs: number; rps: number }> {
  const server = await startProcess(['bin/docgate.js', 'serve', '--db', db, '--port', '0', '--access-log', accessLog])
  try {
    const url = server.url + path
    const headers = { authorization: BENCH_AUTH }
    await autocannon({ url, headers, connections: 20, amount: 2000 })
    const before = cpuSeconds(server.child.pid!)
    const r = await autocannon({ url, headers, connections: 20, amount })
    const cpu = cpuSeconds(server.child.pid!) - before
    if (r.non2xx + r.errors > 0) throw new Error(`${path}: ${r.non2xx} non-2xx, ${r.errors} errors`)
    return { cpuUs: (cpu / amount) * 1e6, rps: r.requests.average }
  } finally {
    server.child.kill('SIGTERM')
  }
}

const db = join(benchDir(), 'bench.db')
await prepareDemo(db, 1)
console.log(`access log on vs off: ${rounds} interleaved rounds of ${amount} requests, 20 connections; medians`)
console.log(
  `${'endpoint'.padEnd(24)}${'CPU µs/req on'.padStart(15)}${'off'.padStart(8)}${'cost'.padStart(8)}${'req/s on'.padStart(11)}${'off'.padStart(8)}`,
)
for (const target of TARGETS) {
  const on: { cpuUs: number; rps: number }[] = []
  const off: { cpuUs: number; rps: number }[] = []
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      on.push(await run(db, 'on', target.path))
      off.push(await run(db, 'off', target.path))
    } else {
      off.push(await run(db, 'off', target.path))
      on.push(await run(db, 'on', target.path))
    }
  }
  const cpuOn = median(on.map((r) => r.cpuUs))
  const cpuOff = median(off.map((r) => r.cpuUs))
  console.log(
    `${target.name.padEnd(24)}${cpuOn.toFixed(1).padStart(15)}${cpuOff.toFixed(1).padStart(8)}${`${(((cpuOn - cpuOff) / cpuOff) * 100).toFixed(1)}%`.padStart(8)}` +
      `${median(on.map((r) => r.rps))
        .toFixed(0)
        .padStart(11)}${median(off.map((r) => r.rps))
        .toFixed(0)
        .padStart(8)}`,
  )
}
