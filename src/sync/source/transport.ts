// Where the source's GET requests leave from, and the `concurrency` gate they pass (sync.md
// §8). `Direct` sends them from this thread. A sync run works in a thread of its own
// (cli/sync-thread.ts) whose event loop stops while a batch commits, so it hands its
// requests to the process's main thread instead (`PortTransport`, `serveTransport`): the
// requests asked ahead wait at the gate there, and the next one goes out as soon as the last
// answer is in, not when the commit ends (decision "The source's requests leave from the
// main thread").
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { MessagePort } from 'node:worker_threads'
import { createGunzip } from 'node:zlib'
import pLimit from 'p-limit'
import type { LimitFunction } from 'p-limit'
import { Agent, request } from 'undici'
import type { Dispatcher } from 'undici'

/** An answer as it came: status, the two headers the client reads, the (still encoded) body. */
export interface Answer {
  readonly status: number
  readonly type: string
  readonly encoding: string
  readonly body: Buffer
}

/** A `save`d answer: a 200 went to the file (its inflated size and SHA-256); any other status keeps its body. */
export interface Saved extends Answer {
  readonly bytes: number
  readonly sha256: string
}

export interface Ask {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** No byte for this long fails the request. */
  readonly timeoutMs: number
}

/**
 * Sends GET requests, at most `concurrency` at once; the others wait in order. A failure
 * below HTTP rejects with the error as the HTTP client gave it (its `code` and `name` are
 * what client.ts reads).
 */
export interface Transport {
  get(ask: Ask, signal?: AbortSignal): Promise<Answer>
  /** Streams a 200 answer into `file`, inflated, never holding it whole. */
  save(ask: Ask, file: string, signal?: AbortSignal): Promise<Saved>
  close(): Promise<void>
}

export const CONNECT_TIMEOUT = 30_000

/** The error an abandoned request rejects with (client.ts names it "interrupted"). */
const aborted = (): Error => Object.assign(new Error('This operation was aborted'), { name: 'AbortError' })

async function collect(res: Dispatcher.ResponseData): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const c of res.body) {
    chunks.push(c as Buffer)
    size += (c as Buffer).length
  }
  // A buffer of its own (never a slice of Node's shared pool), so it can be handed to another thread.
  const body = Buffer.allocUnsafeSlow(size)
  let at = 0
  for (const c of chunks) at += c.copy(body, at)
  return body
}

const header = (res: Dispatcher.ResponseData, name: string): string => String(res.headers[name] ?? '')

/** Requests sent from this thread over kept-alive connections. */
export class DirectTransport implements Transport {
  readonly #agent = new Agent({ connect: { timeout: CONNECT_TIMEOUT }, keepAliveTimeout: 30_000, connections: 2 })
  readonly #gate: LimitFunction

  constructor(concurrency: number) {
    this.#gate = pLimit(Math.min(2, Math.max(1, concurrency)))
  }

  #send(ask: Ask, signal: AbortSignal | undefined): Promise<Dispatcher.ResponseData> {
    if (signal?.aborted) throw aborted()
    return request(ask.url, {
      method: 'GET',
      dispatcher: this.#agent,
      headers: ask.headers,
      headersTimeout: ask.timeoutMs,
      bodyTimeout: ask.timeoutMs,
      signal,
    })
  }

  get(ask: Ask, signal?: AbortSignal): Promise<Answer> {
    return this.#gate(async () => {
      const res = await this.#send(ask, signal)
      return {
        status: res.statusCode,
        type: header(res, 'content-type'),
        encoding: header(res, 'content-encoding'),
        body: await collect(res),
      }
    })
  }

  save(ask: Ask, file: string, signal?: AbortSignal): Promise<Saved> {
    return this.#gate(async () => {
      const res = await this.#send(ask, signal)
      const [type, encoding] = [header(res, 'content-type'), header(res, 'content-encoding')]
      if (res.statusCode !== 200) return { status: res.statusCode, type, encoding, body: await collect(res), bytes: 0, sha256: '' }
      const hash = createHash('sha256')
      let bytes = 0
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk)
          bytes += chunk.length
          done(null, chunk)
        },
      })
      const stages = encoding.includes('gzip')
        ? [res.body, createGunzip(), counter, createWriteStream(file)]
        : [res.body, counter, createWriteStream(file)]
      await (pipeline as (...s: unknown[]) => Promise<void>)(...stages)
      return { status: 200, type, encoding, body: Buffer.alloc(0), bytes, sha256: hash.digest('hex') }
    })
  }

  async close(): Promise<void> {
    await this.#agent.close().catch(() => {})
  }
}

/** What the asking thread posts: a request (`file` for `save`), or that one is abandoned. */
type Asked = { readonly id: number; readonly ask: Ask; readonly file?: string; readonly concurrency: number } | { readonly cancel: number }

/** What it gets back: the answer (its body's memory moved, not copied), or the failure's name, code and text. */
type Told =
  | {
      readonly id: number
      readonly status: number
      readonly type: string
      readonly encoding: string
      readonly body: ArrayBuffer
      readonly bytes: number
      readonly sha256: string
    }
  | { readonly id: number; readonly error: { readonly name: string; readonly code?: string; readonly message: string } }

/** The asking thread's side: each request goes to the thread that serves `port` (serveTransport). */
export class PortTransport implements Transport {
  readonly #port: MessagePort
  readonly #concurrency: number
  readonly #waiting = new Map<number, { resolve: (s: Saved) => void; reject: (e: Error) => void }>()
  #seq = 0

  constructor(port: MessagePort, concurrency: number) {
    this.#port = port
    this.#concurrency = concurrency
    port.on('message', (m: Told) => {
      const waiting = this.#waiting.get(m.id)
      if (!waiting) return
      this.#waiting.delete(m.id)
      if ('error' in m) waiting.reject(Object.assign(new Error(m.error.message), { name: m.error.name, code: m.error.code }))
      else
        waiting.resolve({
          status: m.status,
          type: m.type,
          encoding: m.encoding,
          body: Buffer.from(m.body),
          bytes: m.bytes,
          sha256: m.sha256,
        })
    })
    // Only an asked request keeps the thread alive.
    port.unref()
  }

  #ask(ask: Ask, file: string | undefined, signal: AbortSignal | undefined): Promise<Saved> {
    if (signal?.aborted) return Promise.reject(aborted())
    const id = ++this.#seq
    return new Promise<Saved>((resolve, reject) => {
      const onAbort = () => {
        this.#waiting.delete(id)
        if (this.#waiting.size === 0) this.#port.unref()
        this.#port.postMessage({ cancel: id } satisfies Asked)
        reject(aborted())
      }
      const settle =
        <T>(then: (x: T) => void) =>
        (x: T) => {
          signal?.removeEventListener('abort', onAbort)
          if (this.#waiting.size === 0) this.#port.unref()
          then(x)
        }
      this.#waiting.set(id, { resolve: settle(resolve), reject: settle(reject) })
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#port.ref()
      this.#port.postMessage({ id, ask, concurrency: this.#concurrency, ...(file === undefined ? {} : { file }) } satisfies Asked)
    })
  }

  get(ask: Ask, signal?: AbortSignal): Promise<Answer> {
    return this.#ask(ask, undefined, signal)
  }

  save(ask: Ask, file: string, signal?: AbortSignal): Promise<Saved> {
    return this.#ask(ask, file, signal)
  }

  async close(): Promise<void> {
    for (const w of this.#waiting.values()) w.reject(aborted())
    this.#waiting.clear()
    this.#port.close()
  }
}

/**
 * Serves the requests a PortTransport posts to `port`, from this thread, through one
 * DirectTransport (its gate sized by the first request's `concurrency`). Ends, closing its
 * connections, when the port closes.
 */
export function serveTransport(port: MessagePort): void {
  let direct: DirectTransport | undefined
  const running = new Map<number, AbortController>()
  port.on('message', async (m: Asked) => {
    if ('cancel' in m) return void running.get(m.cancel)?.abort()
    direct ??= new DirectTransport(m.concurrency)
    const controller = new AbortController()
    running.set(m.id, controller)
    try {
      const got =
        m.file === undefined
          ? { ...(await direct.get(m.ask, controller.signal)), bytes: 0, sha256: '' }
          : await direct.save(m.ask, m.file, controller.signal)
      const body = got.body.buffer as ArrayBuffer
      // The body's own memory (DirectTransport never gives a slice of a shared pool) moves to the asking thread.
      const own = got.body.byteOffset === 0 && got.body.length === body.byteLength
      const sent = own ? body : (got.body.buffer.slice(got.body.byteOffset, got.body.byteOffset + got.body.length) as ArrayBuffer)
      port.postMessage(
        {
          id: m.id,
          status: got.status,
          type: got.type,
          encoding: got.encoding,
          body: sent,
          bytes: got.bytes,
          sha256: got.sha256,
        } satisfies Told,
        [sent],
      )
    } catch (err) {
      const e = err as { name?: unknown; code?: unknown; message?: unknown }
      const error = {
        name: String(e.name ?? 'Error'),
        message: String(e.message ?? err),
        ...(typeof e.code === 'string' ? { code: e.code } : {}),
      }
      port.postMessage({ id: m.id, error } satisfies Told)
    } finally {
      running.delete(m.id)
    }
  })
  port.on('close', () => {
    for (const c of running.values()) c.abort()
    void direct?.close()
  })
}
