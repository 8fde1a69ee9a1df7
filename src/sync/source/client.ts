// The HTTP side of sync (sync.md §2, §3, §8): GET only, UTF-8 Basic credentials, JSON
// unless `$metadata`, at most `concurrency` requests in flight, kept-alive connections,
// gzip, the timeouts and the retry schedule of §8; transport.ts sends what this module asks.
// Credentials never leave this module except in the Authorization header of a request, and
// never appear in an error text.
import { pause as sleep } from '../../values/pause.js'
import { STATUS_CODES } from 'node:http'
import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import { CONNECT_TIMEOUT, DirectTransport } from './transport.js'
import type { Answer, Ask, Transport } from './transport.js'

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
  /** Where the requests leave from (transport.ts); default: this thread, gated at `concurrency`. */
  readonly transport?: Transport
}

export interface RequestOptions {
  /** No byte for this long fails the attempt (default: the read timeout). */
  readonly timeoutMs?: number
  /** Called before each further attempt; may change what the next URL will be (a smaller page). */
  readonly beforeRetry?: (err: SourceError) => void
  readonly retry?: boolean
  /** Attempts already spent on what this request reads (§8: reads with a shrunk group count among the 5). */
  readonly spent?: number
}

const gunzipAsync = promisify(gunzip)
const DEFAULT_DELAYS = [1000, 2000, 4000, 8000]

/** Percent-encodes a path (Cyrillic entity-set names, key literals) segment by segment. */
function encodePath(path: string): string {
  return path
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/%28/g, '(').replace(/%29/g, ')').replace(/%27/g, "'"))
    .join('/')
}

function queryString(query: Readonly<Record<string, string | number | undefined>>): string {
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

/** `host:port` of a request, the port the scheme implies included. */
function hostPort(url: string): { host: string; at: string } {
  const u = new URL(url)
  return { host: u.hostname, at: `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}` }
}

/** A failure below HTTP, said with where it happened (a user's first sync is often here). */
function networkError(err: unknown, url: string, timeoutMs: number): SourceError {
  const e = err as { code?: string; message?: string; name?: string }
  if (e.name === 'AbortError' || e.code === 'UND_ERR_ABORTED') return new SourceError('aborted', 'interrupted')
  const { host, at } = hostPort(url)
  const code = e.code ?? ''
  let reason: string
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    reason = `read timeout: no byte from ${at} for ${timeoutMs / 1000} s`
  else if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT')
    reason = `connect timeout: no connection to ${at} within ${CONNECT_TIMEOUT / 1000} s`
  else if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') reason = `connection closed by the source at ${at}`
  else if (code === 'ECONNREFUSED') reason = `nothing answers at ${at} (connection refused)`
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') reason = `the name ${host} does not resolve (${code})`
  else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') reason = `no route to ${at} (${code})`
  else if (/CERT|TLS|SSL/.test(code) || code === 'EPROTO') {
    // TLS certificates are verified (sync.md §2); a private CA is the usual cause.
    const ca = /CERT|ISSUER|SIGNATURE/.test(code) ? '; a private CA is added with NODE_EXTRA_CA_CERTS' : ''
    reason = `TLS with ${at} failed: ${e.message ?? code} (${code})${ca}`
  } else reason = `${code ? `connect ${code}` : (e.message ?? String(err))} at ${at}`
  return new SourceError('unreachable', reason)
}

/** Why a 401 may be no wrong password at all: none was given. */
function credentialsHint(user: string | undefined, password: string | undefined): string {
  if (user === undefined) return ': no user was given (--user or DOCGATE_SOURCE_USER)'
  if (!password) return ': no password was given (--password-stdin or DOCGATE_SOURCE_PASSWORD)'
  return ''
}

export class Source {
  readonly root: string
  requests = 0
  bytes = 0
  readonly #transport: Transport
  readonly #auth: string | undefined
  readonly #opts: SourceOptions

  constructor(opts: SourceOptions) {
    this.#opts = opts
    this.root = opts.root
    this.#transport = opts.transport ?? new DirectTransport(opts.concurrency)
    this.#auth =
      opts.user === undefined ? undefined : `Basic ${Buffer.from(`${opts.user}:${opts.password ?? ''}`, 'utf8').toString('base64')}`
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

  /** One attempt: the answer of a 200, else the failure it names. */
  async #once<A extends Answer>(url: string, timeoutMs: number, send: (ask: Ask) => Promise<A>): Promise<A> {
    if (this.#opts.signal?.aborted) throw new SourceError('aborted', 'interrupted')
    this.requests++
    let res: A
    try {
      res = await send({ url, headers: this.#headers(!url.includes('/$metadata')), timeoutMs })
    } catch (err) {
      throw networkError(err, url, timeoutMs)
    }
    if (res.status !== 200) {
      if (res.status === 401 || res.status === 403) {
        const hint = res.status === 401 ? credentialsHint(this.#opts.user, this.#opts.password) : ''
        throw new SourceError('credentials', `source refused the credentials (HTTP ${res.status})${hint}`, res.status)
      }
      const { text, code } = failureText(res.status, res.body, STATUS_CODES[res.status] ?? '')
      throw new SourceError('status', text, res.status, code)
    }
    return res
  }

  /** Attempts `send` until an answer, retrying as §8 says; `after` (decoding, parsing) runs once the answer is all here, out of the gate, so the next request goes out meanwhile. */
  async #withRetry<A extends Answer, T>(
    makeUrl: () => string,
    opts: RequestOptions,
    send: (ask: Ask) => Promise<A>,
    after: (got: A) => Promise<T> | T,
  ): Promise<T> {
    const delays = this.#opts.retryDelaysMs ?? DEFAULT_DELAYS
    const timeout = opts.timeoutMs ?? this.#opts.readTimeoutMs
    const started = performance.now()
    for (let attempt = opts.spent ?? 0; ; attempt++) {
      const url = makeUrl()
      try {
        const got = await this.#once(url, timeout, send)
        try {
          return await after(got)
        } catch (err) {
          if (err instanceof SourceError) throw err
          throw networkError(err, url, timeout)
        }
      } catch (err) {
        if (!(err instanceof SourceError) || !err.retryable || opts.retry === false) throw err
        if (attempt >= delays.length) {
          // The retries were silent (sync.md §2 has no line for them): the failure says how long they went on.
          if (err.kind !== 'unreachable' || attempt === 0) throw err
          const seconds = Math.round((performance.now() - started) / 1000)
          throw new SourceError(err.kind, `${err.message}, ${attempt + 1} attempts over ${seconds} s`, err.status, err.code)
        }
        opts.beforeRetry?.(err)
        await sleep(delays[attempt]!, this.#opts.signal)
        if (this.#opts.signal?.aborted) throw new SourceError('aborted', 'interrupted')
      }
    }
  }

  /** Attempts in all for one read (§8: 5). */
  get attempts(): number {
    return (this.#opts.retryDelaysMs ?? DEFAULT_DELAYS).length + 1
  }

  /** The wait after the attempt numbered `attempt` (0 = the first) failed. */
  pause(attempt: number): Promise<void> {
    const delays = this.#opts.retryDelaysMs ?? DEFAULT_DELAYS
    return sleep(delays[Math.min(attempt, delays.length - 1)]!, this.#opts.signal)
  }

  /** A JSON answer (`$format=json` is the caller's part of the URL). */
  async json<T = Record<string, unknown>>(makeUrl: () => string, opts: RequestOptions = {}): Promise<{ body: T; bytes: number }> {
    return this.#withRetry(
      makeUrl,
      opts,
      (ask) => this.#transport.get(ask, this.#opts.signal),
      async ({ body: raw, type, encoding }) => {
        const text = await decode(raw, encoding)
        this.bytes += raw.length
        if (!type.includes('json')) throw new SourceError('not-json', 'not a JSON answer', 200)
        try {
          return { body: JSON.parse(text) as T, bytes: raw.length }
        } catch {
          throw new SourceError('not-json', 'not a JSON answer', 200)
        }
      },
    )
  }

  /** Streams an answer to `file` while hashing it; never holds it whole in memory. */
  async download(makeUrl: () => string, file: string, opts: RequestOptions = {}): Promise<{ bytes: number; sha256: string }> {
    return this.#withRetry(
      makeUrl,
      opts,
      (ask) => this.#transport.save(ask, file, this.#opts.signal),
      ({ bytes, sha256 }) => {
        this.bytes += bytes
        return { bytes, sha256 }
      },
    )
  }

  async close(): Promise<void> {
    await this.#transport.close()
  }
}

// Inflated on libuv's thread pool: this thread maps and writes the previous answer meanwhile.
async function decode(raw: Buffer, encoding: string): Promise<string> {
  return (encoding.includes('gzip') ? await gunzipAsync(raw) : raw).toString('utf8')
}
