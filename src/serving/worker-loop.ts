// A serving worker: its own read-only store, one request at a time, the answer sent back
// in transferred chunks no further ahead of the client than the credit allows.
import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import { timedSql } from '../store/timed.js'
import { boundedBytes } from '../pipeline/bound.js'
import { answer } from '../pipeline/run.js'
import { openReadOnly } from '../store/open.js'
import type { SqlPort } from '../store/sql.js'
import type { PageInfo } from '../endpoints/pages.js'
import { CLIENT_GONE, Stopped, timeLimitMessage } from './executor.js'
import { CANCELLED, RUNNING, WINDOW } from './protocol.js'
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.js'

type RunMessage = Extract<ToWorker, { type: 'run' }>

/** Test seams: a hook run before each request, with the worker's store. */
export interface WorkerHooks {
  before?(request: RunMessage, store: SqlPort): void | Promise<void>
}

/** The request's stop check: the flag the main side sets (client gone, limit) or the deadline passed here. */
class StopCheck {
  constructor(
    private readonly flag: Int32Array,
    private readonly deadline: number,
    private readonly limitMs: number,
  ) {}

  throwIfAborted(): void {
    const state = Atomics.load(this.flag, 0)
    if (state === CANCELLED) throw new Stopped(CLIENT_GONE)
    if (state !== RUNNING || (this.deadline > 0 && Date.now() > this.deadline)) throw new Stopped(timeLimitMessage(this.limitMs))
  }
}

// The bytes go to the main thread without a copy there: a fresh ArrayBuffer is made here
// (off the event loop that serves everyone) and transferred. Transferring the Buffer's own
// memory instead could detach a buffer something else still holds (a cached form).
function owned(bytes: Buffer): ArrayBuffer {
  const out = new ArrayBuffer(bytes.length)
  new Uint8Array(out).set(bytes)
  return out
}

// A streamed answer goes in pieces of PIECE bytes, filled across the chunks the answer is
// made of: each piece is a message, a socket write and a buffer given back, and their cost is
// per piece, not per byte (a 6 MB answer in pieces of 64 KiB and their tails spent more of
// the main thread in 166 writes than a bare server spends sending it). Each piece is copied
// into a buffer the main thread gave back once its socket had written it (serving/lent.ts),
// or a new one. The last piece, if under a quarter of PIECE, gets its own size, so that a
// consumer that keeps small answers does not keep a whole PIECE each.
const PIECE = 256 * 1024
// WINDOW chunks in flight, one in the main side's stream buffer, one being written: the rest
// of the given-back buffers would only wait.
const SPARES = WINDOW + 4

class Pieces {
  readonly #spare: ArrayBuffer[] = []
  #current: Uint8Array | undefined
  #filled = 0

  /** A buffer given back by the main thread. */
  add(bytes: ArrayBuffer): void {
    if (bytes.byteLength === PIECE && this.#spare.length < SPARES) this.#spare.push(bytes)
  }

  /** `chunk` appended to the piece being filled: each piece it fills, as a buffer and how much of it holds bytes. */
  *of(chunk: Buffer): Generator<{ bytes: ArrayBuffer; length: number }> {
    for (let at = 0; at < chunk.length; ) {
      this.#current ??= new Uint8Array(this.#spare.pop() ?? new ArrayBuffer(PIECE))
      const n = Math.min(PIECE - this.#filled, chunk.length - at)
      this.#current.set(chunk.subarray(at, at + n), this.#filled)
      this.#filled += n
      at += n
      if (this.#filled === PIECE) yield this.#take()
    }
  }

  /** The answer's last piece, if any bytes wait. */
  *end(): Generator<{ bytes: ArrayBuffer; length: number }> {
    if (this.#filled === 0) return
    if (this.#filled >= PIECE / 4) {
      yield this.#take()
      return
    }
    const bytes = this.#current!.slice(0, this.#filled).buffer
    this.drop()
    yield { bytes, length: bytes.byteLength }
  }

  /** What was filled is dropped (an answer that stopped, or a last piece copied out), its buffer kept. */
  drop(): void {
    if (this.#current) this.add(this.#current.buffer as ArrayBuffer)
    this.#current = undefined
    this.#filled = 0
  }

  #take(): { bytes: ArrayBuffer; length: number } {
    const piece = { bytes: this.#current!.buffer as ArrayBuffer, length: this.#filled }
    this.#current = undefined
    this.#filled = 0
    return piece
  }
}

// With every core busy, the event loop (health, auth, small answers) must still get the CPU
// at once: the workers run at a lower priority. On Linux a nice value is per thread, so
// this lowers this worker only.
const WORKER_NICE = 10

// An answer built whole goes as one message up to this size; a bigger one (the materials
// tree) is sent in chunks under the same credit as a stream, so a slow client does not make
// the main thread hold all of it.
const WHOLE_MAX = 1024 * 1024

export async function serveInWorker(hooks: WorkerHooks = {}): Promise<void> {
  const port = parentPort as MessagePort
  try {
    setPriority(WORKER_NICE)
  } catch {
    // Not permitted here (or not per thread on this platform): the pool still works, only less politely.
  }
  const setup = workerData as WorkerSetup
  const flag = new Int32Array(setup.flag)
  const post = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer)
  const queries: number[] = []
  let store: SqlPort
  try {
    const opened = await openReadOnly(setup.db, (err) => post({ type: 'warn', message: err.message }), setup.connections)
    store = setup.timeQueries ? timedSql(opened, (s) => queries.push(s)) : opened
  } catch (err) {
    post({ type: 'failed', message: err instanceof Error ? err.message : String(err) })
    return
  }

  const pieces = new Pieces()
  let current = -1
  let credit = 0
  let wake: (() => void) | undefined
  const waitForCredit = async (stop: StopCheck) => {
    while (credit <= 0) {
      stop.throwIfAborted()
      await new Promise<void>((resolve) => (wake = resolve))
      wake = undefined
    }
  }

  const run = async (m: RunMessage) => {
    current = m.id
    credit = WINDOW
    queries.length = 0
    const stop = new StopCheck(flag, m.deadline, m.limitMs)
    let rows: number | null = null
    try {
      await hooks.before?.(m, store)
      const options = {
        sql: store,
        now: () => new Date(m.now),
        rows: (n: number) => (rows = n),
        signal: stop,
        page: (page: PageInfo) => post({ type: 'page', id: m.id, page }),
        format: m.format,
        errors: (errors: readonly string[], removed?: readonly unknown[]) =>
          post({ type: 'errors', id: m.id, errors, ...(removed ? { removed } : {}) }),
      }
      const answered = await answer(m.service, m.query, options)
      const body = m.bound ? await boundedBytes(answered, m.bound) : answered
      stop.throwIfAborted()
      if (Buffer.isBuffer(body) && body.length <= WHOLE_MAX) {
        const bytes = owned(body)
        post({ type: 'whole', id: m.id, bytes, rows, queries: queries.splice(0) }, [bytes])
        return
      }
      const send = async (filled: Iterable<{ bytes: ArrayBuffer; length: number }>) => {
        for (const { bytes, length } of filled) {
          await waitForCredit(stop)
          stop.throwIfAborted()
          post({ type: 'chunk', id: m.id, bytes, length }, [bytes])
          credit--
        }
      }
      for await (const chunk of Buffer.isBuffer(body) ? [body] : body) await send(pieces.of(chunk))
      await send(pieces.end())
      post({ type: 'end', id: m.id, rows, queries: queries.splice(0) })
    } catch (err) {
      pieces.drop()
      post({
        type: 'error',
        id: m.id,
        message: err instanceof Error ? err.message : String(err),
        stopped: err instanceof Stopped,
        queries: queries.splice(0),
      })
    } finally {
      current = -1
    }
  }

  port.on('message', (m: ToWorker) => {
    if (m.type === 'run') void run(m)
    else if (m.type === 'spare') pieces.add(m.bytes)
    else if (m.id === current) {
      if (m.type === 'credit') credit += m.n
      wake?.()
    }
  })
  post({ type: 'ready' })
}
