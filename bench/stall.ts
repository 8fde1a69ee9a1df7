// `npm run bench:stall`: does a heavy load stall the server? `docgate serve` runs as a
// child process over a demo store (BENCH_SCALE, default 10; or BENCH_DB, an existing store
// with the bench user, e.g. data/bench/scale-100.db); BENCH_HEAVY (default 8) clients
// request `materials`, `orders?full=true` over a quarter and `specifications?material=Кабель`
// in a loop while `health` is asked every 20 ms, for BENCH_SECONDS (default 10); once with
// the worker pool (default size), once with `--workers 0` (every request on the event loop).
// The heavy clients run in a process of their own (stall-clients.ts), as other machines
// would: the probe times the server, not a loop busy reading 8 large answers. A third round
// sends the heavy answers as MCP tool calls (materials, specifications by material), which
// go through the same executor. Prints health's latency and the heavy requests answered.
// Target: health max < 100 ms with the pool, API and MCP alike.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { BENCH_AUTH, benchDir, fmt, percentile, prepareDemo, probe, startProcess } from './harness.js'

const SCALE = Number(process.env.BENCH_SCALE ?? '10')
const HEAVY = Number(process.env.BENCH_HEAVY ?? '8')
const SECONDS = Number(process.env.BENCH_SECONDS ?? '10')
// BENCH_PATHS (comma-separated) replaces them, e.g. a year of full forms:
// `/main/hs/payments/get?full=true&from=01.01.2025&to=31.12.2025`.
const HEAVY_PATHS = process.env.BENCH_PATHS?.split(',') ?? [
  '/main/hs/materials/get',
  '/main/hs/orders/get?full=true&from=2025-01-01&to=2025-03-31',
  `/main/hs/specifications/get?material=${encodeURIComponent('Кабель')}`,
]

// The same heavy answers asked by agents: MCP tool calls run through the same executor.
const MCP_PATHS = ['mcp:materials', `mcp:specifications?material=${encodeURIComponent('Кабель')}`]

interface Round {
  readonly mode: string
  readonly health: number[]
  readonly healthErrors: number
  readonly heavy: number
  readonly heavyErrors: number
  readonly heavyBytes: number
}

async function round(db: string, mode: string, extra: string[], paths: readonly string[] = HEAVY_PATHS): Promise<Round> {
  const { url, child } = await startProcess(['bin/docgate.js', 'serve', '--db', db, '--port', '0', '--access-log', 'off', ...extra])
  try {
    // Warm-up: first requests compile and fill caches.
    for (const path of HEAVY_PATHS) await (await fetch(url + path, { headers: { authorization: BENCH_AUTH } })).arrayBuffer()
    const clients = spawn(
      process.execPath,
      [fileURLToPath(new URL('./stall-clients.js', import.meta.url)), url, String(SECONDS + 1), String(HEAVY), ...paths],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    let out = ''
    clients.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    // Health starts once the heavy clients are under way.
    await new Promise((r) => setTimeout(r, 500))
    const health = probe(`${url}/main/hs/health`, 20)
    await new Promise((r) => setTimeout(r, SECONDS * 1000))
    const { latencies, errors } = await health.stop()
    if (clients.exitCode === null) await once(clients, 'exit')
    const { heavy, heavyErrors, heavyBytes } = JSON.parse(out) as { heavy: number; heavyErrors: number; heavyBytes: number }
    return { mode, health: latencies, healthErrors: errors, heavy, heavyErrors, heavyBytes }
  } finally {
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
  }
}

const dir = benchDir()
const db = process.env.BENCH_DB ?? join(dir, 'stall.db')
try {
  if (process.env.BENCH_DB) console.log(`store ${db}`)
  else {
    console.log(`demo store at scale ${SCALE}…`)
    await prepareDemo(db, SCALE)
  }
  const rounds = [
    await round(db, `pool (${Math.max(1, availableParallelism())} workers)`, []),
    await round(db, 'MCP calls, pool', [], MCP_PATHS),
    await round(db, 'in-process (--workers 0)', ['--workers', '0']),
  ]
  console.log(`\n${HEAVY} heavy clients for ${SECONDS} s; health every 20 ms (latency in ms)`)
  console.log(
    `${'mode'.padEnd(28)}${'health n'.padStart(9)}${'p50'.padStart(9)}${'p99'.padStart(9)}${'max'.padStart(9)}${'errors'.padStart(9)}${'heavy/s'.padStart(9)}${'MB/s'.padStart(9)}`,
  )
  for (const r of rounds) {
    const max = r.health.length === 0 ? NaN : Math.max(...r.health)
    console.log(
      `${r.mode.padEnd(28)}${String(r.health.length).padStart(9)}${fmt(percentile(r.health, 50), 1)}${fmt(percentile(r.health, 99), 1)}${fmt(max, 1)}` +
        `${String(r.healthErrors + r.heavyErrors).padStart(9)}${fmt(r.heavy / SECONDS, 1)}${fmt(r.heavyBytes / SECONDS / 1e6, 1)}`,
    )
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
