// An open-loop load for bench:scale: requests sent at a fixed rate whatever the answers' pace,
// over at most `connections` keep-alive connections (a request waits for a free one), each
// timed from the moment it was due. Unlike wrk's closed loop, a pause of the server is paid
// by every request due during it, and a server below saturation is not measured by the
// queue of a saturated one. Run pinned to a core by bench/scale/wrk.ts `runOpenLoop`; its
// options come as JSON in OPEN_LOOP, its figures go out as one line `OPEN_JSON {…}`.
import { Agent, request } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { OpenLoopOptions } from './wrk.js'

const o = JSON.parse(process.env.OPEN_LOOP ?? '{}') as OpenLoopOptions & { readonly url: string }
const target = new URL(o.url)
const agent = new Agent({ keepAlive: true, maxSockets: o.connections })
const interval = 1000 / o.rate

const dmy = (epochDay: number): string => {
  const d = new Date(epochDay * 86_400_000)
  return `${String(d.getUTCDate()).padStart(2, '0')}.${String(d.getUTCMonth() + 1).padStart(2, '0')}.${d.getUTCFullYear()}`
}
/** The request's path: a random period appended as bench/scale/wrk.lua appends it, when the case has one. */
function path(): string {
  const p = o.period
  if (!p) return `${target.pathname}${target.search}`
  const from = p.firstDay + Math.floor(Math.random() * p.days)
  return `${p.prefix}from=${dmy(from)}&to=${dmy(from + p.width)}`
}

const latencies: number[] = []
let errors = 0
let open = 0
let measuredFrom = 0

function send(due: number): void {
  open++
  const done = (ok: boolean) => {
    open--
    if (!ok) errors++
    else if (due >= measuredFrom) latencies.push(performance.now() - due)
  }
  const req = request({ agent, host: target.hostname, port: target.port, path: path(), headers: o.headers }, (res) => {
    res.on('data', () => {})
    res.once('end', () => done(res.statusCode !== undefined && res.statusCode < 400))
    res.once('error', () => done(false))
  })
  req.setTimeout(o.timeoutSeconds * 1000, () => req.destroy(new Error('timeout')))
  req.once('error', () => done(false))
  req.end()
}

const start = performance.now()
measuredFrom = start + o.warmupSeconds * 1000
const end = measuredFrom + o.seconds * 1000
let due = start
await new Promise<void>((resolve) => {
  const tick = () => {
    const now = performance.now()
    for (; due <= now && due < end; due += interval) send(due)
    if (due < end) setTimeout(tick, Math.min(1, Math.max(0, due - now)))
    else resolve()
  }
  tick()
})
const giveUp = performance.now() + o.timeoutSeconds * 1000
while (open > 0 && performance.now() < giveUp) await new Promise((r) => setTimeout(r, 5))
latencies.sort((a, b) => a - b)
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
console.log(
  `OPEN_JSON ${JSON.stringify({
    answered: latencies.length,
    errors: errors + open,
    rps: latencies.length / o.seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: latencies.at(-1) ?? 0,
  })}`,
)
agent.destroy()
