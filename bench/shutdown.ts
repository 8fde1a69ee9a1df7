// `npm run bench:shutdown`: reliability battery G1, SIGTERM under keep-alive load. 50
// keep-alive clients loop on `payments?full=true` (demo data) against `docgate serve`; the
// server gets SIGTERM after 3 s. Every outcome is classified: a complete 200 with parseable
// JSON; a reset or hang-up on an existing connection; a refused new connection (expected
// once the listener is closed, or reset if it was accepted as the server closed); anything else. Targets: 0 resets, 0 truncated bodies, exit
// code 0 within the longest in-flight request + 1 s, and `Connection: close` on every
// answer sent after the signal.
// Environment: BENCH_CLIENTS (default 50).
import { request, Agent } from 'node:http'
import { join } from 'node:path'
import { BENCH_AUTH, benchDir, prepareDemo, startProcess } from './harness.js'

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? '50')
const PATH = '/main/hs/payments/get?full=true&from=01.01.2025&to=30.11.2026'

const db = join(benchDir(), 'bench.db')
await prepareDemo(db)

const server = await startProcess(['bin/docgate.js', 'serve', '--db', db, '--port', '0'])
const { hostname, port } = new URL(server.url)
const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS })

type Outcome = 'ok' | 'okAfterSignal' | 'keepAliveAfterSignal' | 'reset' | 'resetNew' | 'truncated' | 'refused' | 'other'
const counts: Record<Outcome, number> = {
  ok: 0,
  okAfterSignal: 0,
  keepAliveAfterSignal: 0,
  reset: 0,
  resetNew: 0,
  truncated: 0,
  refused: 0,
  other: 0,
}
let signalledAt = 0
let longest = 0

function once(): Promise<Outcome> {
  return new Promise((resolve) => {
    const t0 = performance.now()
    const req = request({ host: hostname, port, path: PATH, agent, headers: { authorization: BENCH_AUTH } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('error', () => resolve('truncated'))
      res.on('end', () => {
        longest = Math.max(longest, performance.now() - t0)
        if (res.statusCode !== 200) return resolve('other')
        try {
          JSON.parse(Buffer.concat(chunks).toString())
        } catch {
          return resolve('truncated')
        }
        if (signalledAt === 0 || t0 < signalledAt - 1) return resolve('ok')
        resolve(res.headers.connection === 'close' ? 'okAfterSignal' : 'keepAliveAfterSignal')
      })
    })
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') resolve('refused')
      else if (err.code === 'ECONNRESET' || err.message === 'socket hang up') resolve(req.reusedSocket ? 'reset' : 'resetNew')
      else resolve('other')
    })
    req.end()
  })
}

async function client(): Promise<void> {
  for (;;) {
    const outcome = await once()
    counts[outcome]++
    if (outcome === 'refused' || outcome === 'resetNew') return
  }
}

const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
  server.child.once('exit', (code) => resolve({ code, at: performance.now() })),
)
const clients = Array.from({ length: CLIENTS }, () => client())
await new Promise((r) => setTimeout(r, 3000))
signalledAt = performance.now()
server.child.kill('SIGTERM')
const { code, at } = await exited
await Promise.all(clients)
agent.destroy()

console.log(`${CLIENTS} keep-alive clients on payments?full=true, SIGTERM after 3 s`)
console.log(`complete 200 before the signal          ${counts.ok}`)
console.log(`complete 200 after, Connection: close   ${counts.okAfterSignal}`)
console.log(`complete 200 after, still keep-alive    ${counts.keepAliveAfterSignal}`)
console.log(`reset or hang-up on an open connection  ${counts.reset}`)
console.log(`truncated body                          ${counts.truncated}`)
console.log(`reset of a new connection               ${counts.resetNew}`)
console.log(`refused new connection                  ${counts.refused}`)
console.log(`other                                   ${counts.other}`)
console.log(`exit code ${code} after ${((at - signalledAt) / 1000).toFixed(2)} s; longest request ${(longest / 1000).toFixed(2)} s`)
