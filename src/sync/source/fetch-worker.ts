// The source client's HTTP thread (see client.ts). Requests are queued here and sent at
// most `concurrency` at a time; each answer is read whole and inflated on this thread and
// handed back as bytes. The main thread maps and commits batches that block it for tens
// or hundreds of milliseconds: were the answers read there, the next request would wait
// for each commit and the source would sit idle while the store writes.
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import { parentPort, workerData } from 'node:worker_threads'
import { createGunzip, gunzip } from 'node:zlib'
import { Agent, request } from 'undici'
import type { Dispatcher } from 'undici'
import { Gate } from './gate.js'
import type { FetchInit, FetchReply, FetchRequest } from './fetch-protocol.js'

const { concurrency } = workerData as FetchInit
const CONNECT_TIMEOUT = 30_000
const gunzipAsync = promisify(gunzip)
const agent = new Agent({ connect: { timeout: CONNECT_TIMEOUT }, keepAliveTimeout: 30_000, connections: 2 })
const gate = new Gate(concurrency)
let aborter = new AbortController()
const port = parentPort!

const isGzip = (res: Dispatcher.ResponseData) => String(res.headers['content-encoding'] ?? '').includes('gzip')

async function collect(res: Dispatcher.ResponseData): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of res.body) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

/** Streams an answer to a file while hashing it; never holds it whole in memory. */
async function save(res: Dispatcher.ResponseData, file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256')
  let bytes = 0
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk)
      bytes += chunk.length
      done(null, chunk)
    },
  })
  const stages = isGzip(res) ? [res.body, createGunzip(), counter, createWriteStream(file)] : [res.body, counter, createWriteStream(file)]
  await (pipeline as (...s: unknown[]) => Promise<void>)(...stages)
  return { bytes, sha256: hash.digest('hex') }
}

async function get(req: FetchRequest): Promise<FetchReply> {
  // Taken before waiting at the gate: an abort meanwhile replaces the controller.
  const signal = aborter.signal
  await gate.enter()
  let inflate: Buffer | undefined
  let reply: FetchReply
  try {
    if (signal.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' })
    const res = await request(req.url, {
      method: 'GET',
      dispatcher: agent,
      headers: req.headers,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
      signal,
    })
    const head = { status: res.statusCode, type: String(res.headers['content-type'] ?? '') }
    if (res.statusCode === 200 && req.file !== undefined) {
      reply = { id: req.id, ...head, saved: await save(res, req.file) }
    } else {
      const raw = await collect(res)
      // Error bodies are read as sent (their text is only looked into for odata.error).
      if (res.statusCode === 200 && isGzip(res)) inflate = raw
      reply = { id: req.id, ...head, raw: raw.length, body: raw }
    }
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string }
    return { id: req.id, error: { name: String(e.name ?? ''), code: e.code === undefined ? undefined : String(e.code), message: String(e.message ?? err) } }
  } finally {
    // The next request goes out before this answer is inflated.
    gate.leave()
  }
  if (inflate !== undefined && 'body' in reply) {
    try {
      reply = { ...reply, body: await gunzipAsync(inflate) }
    } catch (err) {
      return { id: req.id, error: { name: 'Error', code: 'Z_DATA_ERROR', message: (err as Error).message } }
    }
  }
  return reply
}

port.on('message', (m: FetchRequest | { type: 'abort' } | { type: 'close' }) => {
  if (m.type === 'abort') {
    aborter.abort()
    aborter = new AbortController()
    return
  }
  if (m.type === 'close') {
    void agent.close().catch(() => {}).finally(() => port.close())
    return
  }
  void get(m).then((reply) => {
    const body = 'body' in reply ? reply.body : undefined
    // A pooled Buffer shares its ArrayBuffer: only an own one can be handed over.
    const transfer = body && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? [body.buffer as ArrayBuffer] : []
    port.postMessage(reply, transfer)
  })
})
