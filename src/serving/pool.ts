// The worker pool: the API's data requests run in worker threads, each with its own
// read-only store, so the event loop that answers health, auth and small requests never
// waits for a store read or a response build. A crashed worker is replaced; one stuck past
// its request's limit and the grace is terminated and replaced.
import { Worker } from 'node:worker_threads'
import { AnswerStream } from './answer-stream.js'
import { lend } from './lent.js'
import { CLIENT_GONE, Stopped, timeLimitMessage } from './executor.js'
import type { DataRequest, Execution, Executor } from './executor.js'
import { CANCELLED, RUNNING, TIMED_OUT } from './protocol.js'
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.js'
import { PG_SERVING, isPostgresUrl } from '../store/open.js'

export interface PoolOptions {
  readonly db: string
  /** Worker threads (at least 1). */
  readonly size: number
  /** A request's time limit from its arrival; 0: none. */
  readonly timeLimitMs: number
  /** How long past the limit a worker that does not stop by itself is given before it is terminated. */
  readonly graceMs?: number
  /** Each store read's duration, for the store-query histogram; absent: not measured. */
  readonly queryTime?: (seconds: number) => void
  readonly warn?: (message: string) => void
  /** The worker's entry file (tests give one with hooks). */
  readonly entry?: URL
}

export interface PoolStats {
  /** Answered in full. */
  served: number
  /** Stopped on purpose: time limit or client gone. */
  stopped: number
  failed: number
  /** Workers started in place of one that exited. */
  replaced: number
}

interface Job {
  readonly id: number
  readonly request: DataRequest
  readonly how: Execution
  readonly deadline: number
  readonly resolve: (body: Buffer | AnswerStream) => void
  readonly reject: (err: Error) => void
  slot: Slot | null
  stream: AnswerStream | null
  timers: NodeJS.Timeout[]
  done: boolean
}

interface Slot {
  readonly worker: Worker
  readonly flag: Int32Array
  job: Job | null
  /** Why the worker is being terminated (its request's answer), set before terminate(). */
  fate?: Error
  /** The uncaught error the worker died of. */
  fault?: string
}

// A worker's old generation is bounded. Left at the process's limit (some 4 GB here), V8
// let garbage pile up while a big answer streamed. That includes the buffers the worker's
// reads made, which only a mark-compact frees, so one big answer in four or five took some
// 35 MB more. A bound makes V8 collect sooner. The largest whole answer a worker builds (a
// materials tree computed per request) fits in a tenth of it (decision "A serving worker's
// heap is bounded").
const WORKER_HEAP_MB = 512
const GRACE_MS = 1000
const RETRY_MS = 1000

export class WorkerPool implements Executor {
  readonly #options: PoolOptions
  readonly #entry: URL
  readonly #slots: Slot[] = []
  /** Every worker thread, ready or still starting (close() ends them all). */
  readonly #workers = new Set<Worker>()
  readonly #queue: Job[] = []
  readonly #stats: PoolStats = { served: 0, stopped: 0, failed: 0, replaced: 0 }
  readonly #lending = { lent: 0, back: 0 }
  #seq = 0
  #closing = false
  #retry: NodeJS.Timeout | undefined

  private constructor(options: PoolOptions) {
    this.#options = options
    this.#entry = options.entry ?? new URL('./worker.js', import.meta.url)
  }

  /** Starts every worker; rejects with the first one's failure (e.g. the store cannot be opened). */
  static async start(options: PoolOptions): Promise<WorkerPool> {
    const pool = new WorkerPool({ ...options, size: Math.max(1, Math.floor(options.size)) })
    const started = await Promise.allSettled(Array.from({ length: pool.#options.size }, () => pool.#spawn()))
    const failed = started.find((s) => s.status === 'rejected')
    if (failed) {
      await pool.close()
      throw failed.reason
    }
    return pool
  }

  get stats(): PoolStats {
    return { ...this.#stats }
  }

  /** Streamed chunks received from the workers, and how many of their buffers went back to be filled again (serving/lent.ts). */
  get lending(): { lent: number; back: number } {
    return { ...this.#lending }
  }

  /** The live workers' thread ids (a replaced worker has a new one). */
  get threads(): number[] {
    return this.#slots.map((s) => s.worker.threadId)
  }

  execute(request: DataRequest, how: Execution): Promise<Buffer | AnswerStream> {
    if (this.#closing) return Promise.reject(new Error('the server is stopping'))
    return new Promise((resolve, reject) => {
      const limit = this.#options.timeLimitMs
      const job: Job = {
        id: ++this.#seq,
        request,
        how,
        deadline: limit > 0 ? Date.now() + limit : 0,
        resolve,
        reject,
        slot: null,
        stream: null,
        timers: [],
        done: false,
      }
      if (how.signal.aborted) return reject(new Stopped(CLIENT_GONE))
      how.signal.addEventListener('abort', () => this.#cancel(job), { once: true })
      if (limit > 0) job.timers.push(setTimeout(() => this.#expire(job), limit))
      this.#queue.push(job)
      this.#pump()
    })
  }

  async close(): Promise<void> {
    this.#closing = true
    clearTimeout(this.#retry)
    for (const job of this.#queue.splice(0)) this.#fail(job, new Error('the server is stopping'))
    await Promise.all([...this.#workers].map((w) => w.terminate()))
  }

  #spawn(): Promise<Slot> {
    const { db, size, queryTime } = this.#options
    const flag = new SharedArrayBuffer(4)
    // PostgreSQL: the serving connections are shared out, not multiplied by the workers.
    const connections = isPostgresUrl(db) ? Math.max(1, Math.floor(PG_SERVING.max / size)) : undefined
    const setup: WorkerSetup = { db, connections, timeQueries: queryTime !== undefined, flag }
    const worker = new Worker(this.#entry, { workerData: setup, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } })
    this.#workers.add(worker)
    const slot: Slot = { worker, flag: new Int32Array(flag), job: null }
    let ready = false
    return new Promise((resolve, reject) => {
      worker.on('message', (m: FromWorker) => {
        if (m.type === 'ready') {
          ready = true
          this.#slots.push(slot)
          resolve(slot)
          this.#pump()
        } else if (m.type === 'failed') {
          slot.fault = m.message
          void worker.terminate()
        } else this.#message(slot, m)
      })
      worker.on('error', (err) => (slot.fault = err.message))
      worker.once('exit', (code) => {
        this.#workers.delete(worker)
        if (ready) this.#lost(slot, code)
        else reject(new Error(slot.fault ?? `a serving worker exited with code ${code} while starting`))
      })
    })
  }

  #replace(): void {
    if (this.#closing) return
    this.#stats.replaced++
    this.#spawn().catch((err: Error) => {
      this.#options.warn?.(`a serving worker could not start: ${err.message}`)
      if (!this.#closing) this.#retry = setTimeout(() => this.#replace(), RETRY_MS)
    })
  }

  #lost(slot: Slot, code: number): void {
    this.#slots.splice(this.#slots.indexOf(slot), 1)
    const job = slot.job
    if (job) {
      const reason = slot.fate ?? new Error(`the serving worker stopped unexpectedly (${slot.fault ?? `exit code ${code}`})`)
      this.#stats[reason instanceof Stopped ? 'stopped' : 'failed']++
      this.#fail(job, reason)
    }
    this.#replace()
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const slot = this.#slots.find((s) => s.job === null && s.fate === undefined)
      if (!slot) return
      const job = this.#queue.shift()!
      slot.job = job
      job.slot = slot
      Atomics.store(slot.flag, 0, RUNNING)
      const { service, query, now, bound, format } = job.request
      this.#post(slot, {
        type: 'run',
        id: job.id,
        service,
        query,
        now: now.getTime(),
        deadline: job.deadline,
        limitMs: this.#options.timeLimitMs,
        ...(bound ? { bound } : {}),
        ...(format ? { format } : {}),
      })
    }
  }

  #post(slot: Slot, message: ToWorker, transfer: ArrayBuffer[] = []): void {
    slot.worker.postMessage(message, transfer)
  }

  /** A written chunk's buffer goes back to the worker that lent it, while that worker lives. */
  #spare(slot: Slot, bytes: ArrayBuffer): void {
    if (!this.#workers.has(slot.worker)) return
    this.#lending.back++
    this.#post(slot, { type: 'spare', bytes }, [bytes])
  }

  #message(slot: Slot, m: FromWorker): void {
    if (m.type === 'warn') return this.#options.warn?.(m.message)
    const job = slot.job
    if (!job || !('id' in m) || m.id !== job.id) return
    switch (m.type) {
      case 'page':
        return job.how.page?.(m.page)
      case 'errors':
        return job.how.errors?.(m.errors, m.removed)
      case 'whole':
        this.#finished(slot, job, m.rows, m.queries)
        job.done = true
        this.#stats.served++
        return job.resolve(Buffer.from(m.bytes))
      case 'chunk':
        if (!job.stream) {
          job.stream = new AnswerStream(
            (n) => job.done || this.#post(slot, { type: 'credit', id: job.id, n }),
            () => this.#cancel(job),
          )
          job.resolve(job.stream)
        }
        this.#lending.lent++
        return job.stream.add(lend(Buffer.from(m.bytes, 0, m.length), (bytes) => this.#spare(slot, bytes)))
      case 'end':
        this.#finished(slot, job, m.rows, m.queries)
        job.done = true
        this.#stats.served++
        job.stream?.push(null)
        return
      case 'error':
        this.#finished(slot, job, null, m.queries)
        this.#stats[m.stopped ? 'stopped' : 'failed']++
        return this.#fail(job, m.stopped ? new Stopped(m.message) : new Error(m.message))
    }
  }

  /** The worker is done with `job`: it takes the next request. */
  #finished(slot: Slot, job: Job, rows: number | null, queries: readonly number[]): void {
    slot.job = null
    for (const t of job.timers) clearTimeout(t)
    if (rows !== null) job.how.rows?.(rows)
    const observe = this.#options.queryTime
    if (observe) for (const s of queries) observe(s)
    this.#pump()
  }

  /** Answers `job` with `err`: a 500 before any byte, a cut stream after. */
  #fail(job: Job, err: Error): void {
    if (job.done) return
    job.done = true
    for (const t of job.timers) clearTimeout(t)
    if (job.stream) job.stream.destroy(err)
    else job.reject(err)
  }

  #cancel(job: Job): void {
    this.#stop(job, CLIENT_GONE, CANCELLED)
  }

  #expire(job: Job): void {
    if (!this.#stop(job, timeLimitMessage(this.#options.timeLimitMs), TIMED_OUT)) return
    const slot = job.slot!
    // A worker inside one long synchronous call never reads its flag: it is terminated.
    job.timers.push(
      setTimeout(() => {
        if (slot.job !== job) return
        slot.fate = new Stopped(timeLimitMessage(this.#options.timeLimitMs))
        void slot.worker.terminate()
      }, this.#options.graceMs ?? GRACE_MS),
    )
  }

  /** A queued job fails at once; a running one is flagged for its worker. True when it was running. */
  #stop(job: Job, message: string, state: number): boolean {
    if (job.done) return false
    const slot = job.slot
    if (slot === null) {
      this.#queue.splice(this.#queue.indexOf(job), 1)
      this.#stats.stopped++
      this.#fail(job, new Stopped(message))
      return false
    }
    if (slot.job !== job) return false
    Atomics.store(slot.flag, 0, state)
    this.#post(slot, { type: 'cancel', id: job.id })
    return true
  }
}
