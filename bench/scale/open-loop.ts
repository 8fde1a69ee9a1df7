// An open-loop load for bench:scale: requests sent at a fixed rate whatever the answers' pace,
// over at most `connections` keep-alive connections (a request waits for a free one), each
// timed from the moment it was due. Unlike wrk's closed loop, a pause of the server is paid
// by every request due during it, and a server below saturation is not measured by the
// queue of a saturated one. Run pinned to a core by bench/scale/wrk.ts `runOpenLoop`; its
// options come as JSON in OPEN_LOOP, its figures go out as one line `OPEN_JSON {…}`.
import { connect } from 'node:net'
import type { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { ResponseReader } from './responses.js'
import type { OpenLoopOptions } from './wrk.js'

const o = JSON.parse(process.env.OPEN_LOOP ?? '{}') as OpenLoopOptions & { readonly url: string }
const target = new URL(o.url)
const interval = 1000 / o.rate
const headerLines = Object.entries({ host: target.host, ...o.headers })
  .map(([k, v]) => `${k}: ${v}\r\n`)
  .join('')

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

// Every connection reads into this one buffer (the reader keeps no byte of it past the call),
// so answers of megabytes a second cost the client no allocation.
const READ_BUFFER = Buffer.alloc(1024 * 1024)

const latencies: number[] = []
let errors = 0
let measuredFrom = 0

/** A keep-alive connection and the due time of the request it waits on (null: free). */
interface Connection {
  readonly socket: Socket
  due: number | null
}
const free: Connection[] = []
const all = new Set<Socket>()
/** Due times of requests waiting for a free connection, oldest first. */
const waiting: number[] = []
let head = 0
let opened = 0
/** Requests answered or failed, warm-up included. */
let ended = 0

function done(due: number, ok: boolean): void {
  ended++
  if (!ok) errors++
  else if (due >= measuredFrom) latencies.push(performance.now() - due)
}

function open(): Connection {
  opened++
  const reader = new ResponseReader((status) => {
    done(c.due!, status < 400)
    c.due = null
    next(c)
  })
  const socket = connect({
    host: target.hostname,
    port: Number(target.port),
    noDelay: true,
    onread: {
      buffer: READ_BUFFER,
      callback: (n) => {
        reader.push(READ_BUFFER.subarray(0, n))
        return true
      },
    },
  })
  all.add(socket)
  const c: Connection = { socket, due: null }
  socket.setTimeout(o.timeoutSeconds * 1000, () => socket.destroy(new Error('timeout')))
  socket.once('error', () => {})
  socket.once('close', () => {
    opened--
    all.delete(socket)
    const i = free.indexOf(c)
    if (i !== -1) free.splice(i, 1)
    if (c.due !== null) done(c.due, false)
    c.due = null
    // A request left waiting gets a new connection.
    if (head < waiting.length) next(open())
  })
  return c
}

/** `c` takes the oldest waiting request, or becomes free. */
function next(c: Connection): void {
  if (head < waiting.length) {
    c.due = waiting[head++]!
    c.socket.write(`GET ${path()} HTTP/1.1\r\n${headerLines}\r\n`)
  } else free.push(c)
}

function send(due: number): void {
  waiting.push(due)
  const c = free.pop() ?? (opened < o.connections ? open() : undefined)
  if (c) next(c)
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
while (ended < waiting.length && performance.now() < giveUp) await new Promise((r) => setTimeout(r, 5))
latencies.sort((a, b) => a - b)
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
console.log(
  `OPEN_JSON ${JSON.stringify({
    answered: latencies.length,
    errors: errors + waiting.length - ended,
    rps: latencies.length / o.seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: latencies.at(-1) ?? 0,
  })}`,
)
for (const socket of all) socket.destroy()
