// The HTTP side of sync (sync.md §2, §3, §8): GET only, UTF-8 Basic credentials, JSON
// unless `$metadata`, at most `concurrency` requests in flight, kept-alive connections,
// gzip, the timeouts and the retry schedule of §8. Credentials never leave this module
// except in the Authorization header (sent by its HTTP thread, fetch-worker.ts), and never
// appear in an error text. Requests are sent and answers read on that thread, so the
// source works on the next request while this thread maps and commits.
import { STATUS_CODES } from 'node:http'
import { Worker } from 'node:worker_threads'
import type { FetchInit, FetchReply, FetchRequest } from './fetch-protocol.js'

export type FailureKind = 'unreachable' | 'credentials' | 'status' | 'not-json' | 'aborted'

export class SourceError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly status = 0,
    /** The odata.error code (a string, as 1C sends it), when the body had one. */
    readonly code = '',
  ) {
    super(message)
  }

  /** §8: worth another attempt (after waiting, or with a smaller page). */
  get retryable(): boolean {
    return this.kind === 'unreachable' || (this.kind === 'status' && this.status >= 500 && this.status !== 501)
  }

  /** §8 "source down": the cycle stops instead of failing one set. */
  get sourceDown(): boolean {
    return this.kind === 'unreachable' || (this.kind === 'status' && [502, 503, 504].includes(this.status))
  }
}

export interface SourceOptions {
  /** OData root without a trailing slash. */
  readonly root: string
  readonly user?: string
  readonly password?: string
  readonly concurrency: number
  readonly readTimeoutMs: number
  /** Waits between attempts (§8: 1, 2, 4, 8 s); tests shorten them. */
  readonly retryDelaysMs?: readonly number[]
  readonly signal?: AbortSignal
}

export interface RequestOptions {
  /** No byte for this long fails the attempt (default: the read timeout). */
  readonly timeoutMs?: number
  /** Called before each further attempt; may change what the next URL will be (a smaller page). */
  readonly beforeRetry?: (err: SourceError) => void
  readonly retry?: boolean
}

const DEFAULT_DELAYS = [1000, 2000, 4000, 8000]

/** Percent-encodes a path (Cyrillic entity-set names, key literals) segment by segment. */
export function encodePath(path: string): string {
  return path.split('/').map((s) => encodeURIComponent(s).replace(/%28/g, '(').replace(/%29/g, ')').replace(/%27/g, "'")).join('/')
}

export function queryString(query: Readonly<Record<string, string | number | undefined>>): string {
  const parts: string[] = []
  for (const [k, v] of Object.entries(query)) if (v !== undefined) parts.push(`${k}=${encodeURIComponent(String(v))}`)
  return parts.length === 0 ? '' : `?${parts.join('&')}`
}

/** The text of a failed answer: the odata.error message, else the status line; at most 200 characters. */
function failureText(status: number, body: Buffer, statusText: string): { text: string; code: string } {
  try {
    const err = JSON.parse(body.toString('utf8'))?.['odata.error']
    if (err && typeof err === 'object') {
      const value = typeof err.message === 'object' ? err.message?.value : err.message
      return { text: `HTTP ${status}: ${String(value ?? '').slice(0, 200)}`, code: String(err.code ?? '') }
    }
  } catch {
    // not JSON: the status line says it
  }
  return { text: `HTTP ${status}${statusText ? ` ${statusText}` : ''}`, code: '' }
}

function networkError(err: unknown): SourceError {
  const e = err as { code?: string; message?: string; name?: string }
  if (e.name === 'AbortError' || e.code === 'UND_ERR_ABORTED') return new SourceError('aborted', 'interrupted')
  const reason =
    e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT'
      ? 'read timeout'
      : e.code === 'UND_ERR_CONNECT_TIMEOUT'
        ? 'connect timeout'
        : e.code === 'UND_ERR_SOCKET'
          ? 'connection closed by the source'
          : `${e.code ? `connect ${e.code}` : (e.message ?? String(err))}`
  return new SourceError('unreachable', reason)
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve()
    const t = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true })
  })

type Settled = Exclude<FetchReply, { error: unknown }>

export class Source {
  readonly root: string
  requests = 0
  bytes = 0
  readonly #worker: Worker
  readonly #pending = new Map<number, { resolve: (r: FetchReply) => void; reject: (e: unknown) => void }>()
  #lastId = 0
  #gone: SourceError | undefined
  readonly #exited: Promise<void>
  readonly #auth: string | undefined
  readonly #opts: SourceOptions

  constructor(opts: SourceOptions) {
    this.#opts = opts
    this.root = opts.root
    this.#auth = opts.user === undefined ? undefined : `Basic ${Buffer.from(`${opts.user}:${opts.password ?? ''}`, 'utf8').toString('base64')}`
    const init: FetchInit = { concurrency: Math.min(2, Math.max(1, opts.concurrency)) }
    this.#worker = new Worker(new URL('./fetch-worker.js', import.meta.url), { workerData: init })
    // Referenced only while a request waits on it: an idle client never keeps a process alive.
    this.#worker.unref()
    this.#worker.on('message', (reply: FetchReply) => this.#settle(reply.id, (p) => p.resolve(reply)))
    const fail = (err: unknown) => {
      this.#gone = networkError(err)
      for (const id of [...this.#pending.keys()]) this.#settle(id, (p) => p.reject(this.#gone))
    }
    this.#worker.on('error', fail)
    this.#exited = new Promise((resolve) =>
      this.#worker.once('exit', () => {
        fail(new Error('the HTTP thread stopped'))
        resolve()
      }),
    )
    opts.signal?.addEventListener('abort', () => this.#worker.postMessage({ type: 'abort' }), { once: true })
  }

  #settle(id: number, how: (p: { resolve: (r: FetchReply) => void; reject: (e: unknown) => void }) => void): void {
    const p = this.#pending.get(id)
    if (!p) return
    this.#pending.delete(id)
    if (this.#pending.size === 0) this.#worker.unref()
    how(p)
  }

  #send(req: Omit<FetchRequest, 'type' | 'id'>): Promise<FetchReply> {
    if (this.#gone) return Promise.reject(this.#gone)
    const id = ++this.#lastId
    if (this.#pending.size === 0) this.#worker.ref()
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject })
      this.#worker.postMessage({ type: 'get', id, ...req } satisfies FetchRequest)
    })
  }

  url(resource: string, query: Readonly<Record<string, string | number | undefined>> = {}): string {
    return `${this.root}/${encodePath(resource)}${queryString(query)}`
  }

  #headers(json: boolean): Record<string, string> {
    const h: Record<string, string> = { 'accept-encoding': 'gzip' }
    if (json) h.accept = 'application/json'
    if (this.#auth) h.authorization = this.#auth
    return h
  }

  async #once(url: string, timeoutMs: number, file: string | undefined): Promise<Settled> {
    if (this.#opts.signal?.aborted) throw new SourceError('aborted', 'interrupted')
    this.requests++
    const reply = await this.#send({ url, headers: this.#headers(!url.includes('/$metadata')), timeoutMs, file })
    if ('error' in reply) throw networkError(reply.error)
    if (reply.status !== 200) {
      if (reply.status === 401 || reply.status === 403) {
        throw new SourceError('credentials', `source refused the credentials (HTTP ${reply.status})`, reply.status)
      }
      const body = 'body' in reply ? bytesOf(reply.body) : Buffer.alloc(0)
      const { text, code } = failureText(reply.status, body, STATUS_CODES[reply.status] ?? '')
      throw new SourceError('status', text, reply.status, code)
    }
    return reply
  }

  /** `after` (parsing) runs once the answer is here; meanwhile the HTTP thread sends the next request. */
  async #withRetry<T>(makeUrl: () => string, opts: RequestOptions, file: string | undefined, after: (got: Settled) => T): Promise<T> {
    const delays = this.#opts.retryDelaysMs ?? DEFAULT_DELAYS
    const timeout = opts.timeoutMs ?? this.#opts.readTimeoutMs
    for (let attempt = 0; ; attempt++) {
      try {
        return after(await this.#once(makeUrl(), timeout, file))
      } catch (err) {
        if (!(err instanceof SourceError) || !err.retryable || opts.retry === false || attempt >= delays.length) throw err
        opts.beforeRetry?.(err)
        await sleep(delays[attempt]!, this.#opts.signal)
        if (this.#opts.signal?.aborted) throw new SourceError('aborted', 'interrupted')
      }
    }
  }

  /** A JSON answer (`$format=json` is the caller's part of the URL). */
  async json<T = Record<string, unknown>>(makeUrl: () => string, opts: RequestOptions = {}): Promise<{ body: T; bytes: number }> {
    return this.#withRetry(makeUrl, opts, undefined, (got) => {
      if (!('body' in got)) throw new SourceError('not-json', 'not a JSON answer', 200)
      this.bytes += got.raw
      if (!got.type.includes('json')) throw new SourceError('not-json', 'not a JSON answer', 200)
      try {
        return { body: JSON.parse(bytesOf(got.body).toString('utf8')) as T, bytes: got.raw }
      } catch {
        throw new SourceError('not-json', 'not a JSON answer', 200)
      }
    })
  }

  /** Streams an answer to `file` while hashing it; never holds it whole in memory. */
  async download(makeUrl: () => string, file: string, opts: RequestOptions = {}): Promise<{ bytes: number; sha256: string }> {
    return this.#withRetry(makeUrl, opts, file, (got) => {
      if (!('saved' in got)) throw new SourceError('status', 'HTTP 200: no content saved', 200)
      this.bytes += got.saved.bytes
      return got.saved
    })
  }

  async close(): Promise<void> {
    this.#worker.ref()
    this.#worker.postMessage({ type: 'close' })
    await this.#exited
  }
}

/** A Uint8Array from the HTTP thread as a Buffer over the same memory. */
const bytesOf = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength)
