// Answers in the content coding the client accepts (`Accept-Encoding: br` or `gzip`), when
// they weigh 1 KiB or more (decision "Answers compressed when asked, kept compressed"). A
// request without it gets the identity bytes it always got. The answer cache keeps what it
// compressed (serving/answer-cache.ts), so an answer asked again is not compressed again;
// without the cache, `compressing` does it for every answer.
import { Readable, pipeline } from 'node:stream'
import { constants, brotliCompress, createBrotliCompress, createGzip, gzip } from 'node:zlib'
import type { BrotliOptions, ZlibOptions } from 'node:zlib'
import { promisify } from 'node:util'
import type { Coding, DataRequest, Execution, Executor } from './executor.js'

/** Answers smaller than this go as they are: the coding would save less than its headers cost. */
const COMPRESS_FROM = 1024

// Brotli's default quality (11) takes ~1 s per MB; 4 keeps a streamed answer ahead of its client
// and still makes JSON smaller than gzip does at its default level.
const BROTLI: BrotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } }
const GZIP: ZlibOptions = { level: 6 }
const brotliBytes = promisify(brotliCompress) as (data: Buffer, options: BrotliOptions) => Promise<Buffer>
const gzipBytes = promisify(gzip) as (data: Buffer, options: ZlibOptions) => Promise<Buffer>

/**
 * The coding a request's `Accept-Encoding` asks for: `br` when it is acceptable (q > 0, by
 * name or by `*`), else `gzip`, else none. A coding named with a greater q is preferred.
 */
export function acceptedCoding(header: string | undefined): Coding | undefined {
  if (header === undefined || header === '') return undefined
  const q = new Map<string, number>()
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim())
    if (!name) continue
    let weight = 1
    for (const p of params) {
      const m = /^q=([01](?:\.\d{0,3})?)$/.exec(p)
      if (m) weight = Number(m[1])
    }
    q.set(name, weight)
  }
  const of = (name: string) => q.get(name) ?? q.get('*') ?? 0
  const br = of('br')
  const gz = Math.max(of('gzip'), q.get('x-gzip') ?? 0)
  if (br > 0 && br >= gz) return 'br'
  return gz > 0 ? 'gzip' : undefined
}

/** What an answer is once coded: its bytes, and the coding they are in (none: as they were). */
export interface Coded {
  readonly body: Buffer | Readable
  readonly coding: Coding | undefined
}

/**
 * `body` in `coding` when it weighs COMPRESS_FROM bytes or more. A stream is read until that
 * many bytes (or its end) before the choice; the rest is compressed as it comes, its
 * back-pressure, its failure (a cut body) and its stop when the client leaves unchanged.
 * `compressed` is told of each answer compressed (the cache counts them).
 */
export async function codedAnswer(body: Buffer | Readable, coding: Coding | undefined, compressed?: () => void): Promise<Coded> {
  if (coding === undefined) return { body, coding: undefined }
  if (Buffer.isBuffer(body)) {
    if (body.length < COMPRESS_FROM) return { body, coding: undefined }
    compressed?.()
    return { body: await (coding === 'br' ? brotliBytes(body, BROTLI) : gzipBytes(body, GZIP)), coding }
  }
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>
  const head: Buffer[] = []
  let size = 0
  while (size < COMPRESS_FROM) {
    const next = await chunks.next()
    if (next.done) return { body: Buffer.concat(head, size), coding: undefined }
    head.push(next.value)
    size += next.value.length
  }
  async function* whole(): AsyncGenerator<Buffer> {
    yield* head
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value
  }
  compressed?.()
  const zip = coding === 'br' ? createBrotliCompress(BROTLI) : createGzip(GZIP)
  // The route's reply destroys `zip` when the client goes away: pipeline ends the source, which stops its work.
  pipeline(Readable.from(whole(), { objectMode: false }), zip, () => {})
  return { body: zip, coding }
}

/** `inner` with its answers in the coding each request accepts (`DataRequest.coding`), for a server without the answer cache. */
export function compressing(inner: Executor): Executor {
  return {
    async execute(request: DataRequest, how: Execution) {
      const out = await codedAnswer(await inner.execute(request, how), request.coding)
      if (out.coding !== undefined) how.coded?.(out.coding)
      return out.body
    },
    close: () => inner.close(),
  }
}
