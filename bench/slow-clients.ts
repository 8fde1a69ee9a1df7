// `npm run bench:slow-clients`: the reliability battery's slow-client cases against
// `docgate serve` on demo data, each beside a probe of authenticated `warehouses` requests:
//   S1  slow headers: connections that send a header line every 2 s and never finish;
//   S4  idle flood: connections that send nothing.
// Prints how many the server closed within headersTimeout + checking interval + 1 s = 12 s
// (seen by the client, which reads the 408 and the close), the server's open descriptors
// before, at the peak and 13 s after the flood began (target: back to the baseline ± 20),
// the probe's latency (target p99 < 100 ms, no errors) and the server's RSS growth.
// Connections beyond the listen backlog may be completed by the kernel and never reach the
// server; those hold no descriptor of its and close only when the client gives up (30 s).
// Environment: BENCH_SLOW (S1 connections, default 500), BENCH_IDLE (S4, default 5000).
import { readdirSync, readFileSync } from 'node:fs'
import { connect } from 'node:net'
import type { Socket } from 'node:net'
import { join } from 'node:path'
import { benchDir, percentile, prepareDemo, probe, startProcess } from './harness.js'

const CAP_MS = 30_000

const db = join(benchDir(), 'bench.db')
await prepareDemo(db)

const server = await startProcess(['bin/docgate.js', 'serve', '--db', db, '--port', '0'])
const { hostname, port } = new URL(server.url)
const fds = (): number => readdirSync(`/proc/${server.child.pid}/fd`).length
const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))![1]) / 1024

/** Opens `n` connections; `slow` ones trickle header lines. Resolves with each one's lifetime in ms. */
function flood(n: number, slow: boolean): Promise<number[]> {
  return new Promise((resolve) => {
    const lifetimes: number[] = []
    const sockets: Socket[] = []
    let settled = 0
    const done = (): void => {
      if (++settled === n) {
        clearInterval(trickle)
        clearTimeout(cap)
        resolve(lifetimes)
      }
    }
    for (let i = 0; i < n; i++) {
      const t0 = performance.now()
      const s = connect(Number(port), hostname, () => {
        if (slow) s.write('GET /main/hs/health HTTP/1.1\r\nHost: bench\r\n')
      })
      s.on('error', () => {})
      // Reading is what notices the server's 408 and FIN; an unread socket never closes.
      s.resume()
      s.on('close', () => {
        lifetimes.push(performance.now() - t0)
        done()
      })
      sockets.push(s)
    }
    const trickle = setInterval(() => {
      if (slow) for (const [i, s] of sockets.entries()) if (!s.destroyed) s.write(`X-Slow-${i}: 1\r\n`)
    }, 2000)
    const cap = setTimeout(() => {
      for (const s of sockets) s.destroy()
    }, CAP_MS)
  })
}

console.log(
  `${'case'.padEnd(22)}${'conns'.padStart(7)}${'closed ≤12 s'.padStart(14)}${'fds base/peak/13 s'.padStart(20)}${'probe p99 ms'.padStart(14)}${'max ms'.padStart(8)}${'errors'.padStart(8)}${'RSS +MB'.padStart(9)}`,
)
try {
  for (const [name, n, slow] of [
    ['S1 slow headers', Number(process.env.BENCH_SLOW ?? '500'), true],
    ['S4 idle connections', Number(process.env.BENCH_IDLE ?? '5000'), false],
  ] as const) {
    const before = rss()
    const base = fds()
    let peak = base
    let at13 = NaN
    const t0 = performance.now()
    const sampler = setInterval(() => {
      const now = fds()
      peak = Math.max(peak, now)
      if (Number.isNaN(at13) && performance.now() - t0 >= 13_000) at13 = now
    }, 250)
    const p = probe(`${server.url}/main/hs/warehouses/get`, 50)
    const lifetimes = await flood(n, slow)
    clearInterval(sampler)
    if (Number.isNaN(at13)) at13 = fds() // all closed before 13 s
    const grown = rss() - before
    const { latencies, errors } = await p.stop()
    const inTime = lifetimes.filter((ms) => ms <= 12_000).length
    console.log(
      `${name.padEnd(22)}${String(n).padStart(7)}${String(inTime).padStart(14)}${`${base}/${peak}/${at13}`.padStart(20)}` +
        `${percentile(latencies, 99).toFixed(1).padStart(14)}${Math.max(...latencies)
          .toFixed(1)
          .padStart(8)}${String(errors).padStart(8)}${grown.toFixed(0).padStart(9)}`,
    )
  }
} finally {
  server.child.kill('SIGTERM')
}
