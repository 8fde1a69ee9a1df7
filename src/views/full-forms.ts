// Full forms as the import keeps them ready (views/rebuild.ts) and as the pipeline
// serves them (pipeline/run.ts): the JSON bytes of a document's form, the `errors` entry
// it carries, and where the attachment contents of a document too heavy to keep them in
// its form (views/attachments.ts READY_CONTENTS) go — those stay in their chunks only
// (store/blobs.ts) and are spliced into the bytes while streaming.
import { base64, serialize } from './json-stream.js'
import type { ChunkWriter } from './json-stream.js'
import { messages } from '../values/messages.js'
import { BLOB_CHUNK } from '../store/blobs.js'
import type { Row, SqlPort } from '../store/sql.js'
import type { FullResult, RequestContext } from './define.js'
import { OWNERS_PER_QUERY, readByOwner } from '../store/by-owner.js'
import { BLOB_MARK, FIRST_CHUNKS, changedContent, content } from './attachments.js'

/** The full forms of one page's rows; a row whose form fails gets an `errors` entry and leaves `data`. */
export async function fullForms(
  service: string,
  page: (ctx: RequestContext, rows: readonly Row[]) => Promise<(row: Row) => FullResult>,
  ctx: RequestContext,
  rows: readonly Row[],
): Promise<(row: Row) => FullResult> {
  const failed = (row: Row, err: unknown): FullResult => ({
    issue: messages.document(`${service}: документ ${String(row.ref)}`, (err as Error).message),
  })
  let build: (row: Row) => FullResult
  try {
    build = await page(ctx, rows)
  } catch (err) {
    // A read that is not per document (store/by-owner.ts) failed: no row of the page has its data.
    return (row) => failed(row, err)
  }
  return (row) => {
    try {
      return build(row)
    } catch (err) {
      return failed(row, err)
    }
  }
}

/** The read-model columns of a ReadyForm (views/migrate.ts adds them to each model with a full form). */
export const FULL_COLUMNS = ['full_form', 'full_issue', 'full_blobs'] as const

/**
 * A full form as stored (`full_form`, `full_issue`, `full_blobs`): `full` is its JSON (NULL when the document is left out of `data`),
 * `issue` its `errors` entry ('' for none), `blobs` where attachment contents go ('' for
 * none; else JSON `[[offset, ref, size], …]`, `offset` being the position inside the empty
 * string `""` that the content fills).
 */
export interface ReadyForm {
  readonly full: Buffer | null
  readonly issue: string
  readonly blobs: string
}

/** A StoredBlob's mark as JSON.stringify escapes it inside a string: `"\u0000<uuid>\u0000<ref>\u0000<size>"`. */
const MARKED = new RegExp(`"${JSON.stringify(BLOB_MARK).slice(1, -1).replace(/\\/g, '\\\\')}([^"\\\\]+)\\\\u0000(\\d+)"`, 'g')

/** The bytes json-stream's `serialize` prints for `result.value`, with each attachment content left as `""`. */
export function readyForm(result: FullResult): ReadyForm {
  const issue = result.issue ?? ''
  if (result.value === undefined) return { full: null, issue, blobs: '' }
  const json = JSON.stringify(result.value)
  if (!json.includes('\\u0000')) return { full: Buffer.from(json), issue, blobs: '' }
  const spots: [number, string, number][] = []
  const parts: string[] = []
  let size = 0
  let at = 0
  for (const m of json.matchAll(MARKED)) {
    const before = json.slice(at, m.index + 1)
    parts.push(before)
    size += Buffer.byteLength(before)
    spots.push([size, m[1]!, Number(m[2])])
    at = m.index + m[0].length - 1
  }
  parts.push(json.slice(at))
  return { full: Buffer.from(parts.join('')), issue, blobs: spots.length > 0 ? JSON.stringify(spots) : '' }
}

/** Where one attachment content goes in stored bytes: the position inside its `""`, its attachment, its size. */
type Spot = readonly [offset: number, ref: string, size: number]

/** Streams a stored form into `out`, reading each attachment's content from its chunks. */
export function storedForm(sql: SqlPort, full: Buffer, blobs: string, out: ChunkWriter): AsyncGenerator<Buffer> {
  return spliced(sql, full, blobs === '' ? [] : (JSON.parse(blobs) as Spot[]), out)
}

/**
 * Streams a stored page of full forms into `out` (ready-pages.ts): `blobs` is the page's
 * `[base, [place, full_blobs], …]`, each form starting at `place - base` in `body`.
 */
export function storedPage(sql: SqlPort, body: Buffer, blobs: string, out: ChunkWriter): AsyncGenerator<Buffer> {
  const spots: Spot[] = []
  if (blobs !== '') {
    const [base, ...forms] = JSON.parse(blobs) as [number, ...[number, Spot[]][]]
    for (const [place, form] of forms) for (const [offset, ref, size] of form) spots.push([place - base + offset, ref, size])
  }
  return spliced(
    sql,
    body,
    spots.sort((a, b) => a[0] - b[0]),
    out,
  )
}

/** The bytes of the attachment contents a stored page's `blobs` (storedPage) splices in, before Base64. */
export function pageContentBytes(blobs: string): number {
  const [, ...forms] = JSON.parse(blobs) as [number, ...[number, Spot[]][]]
  let bytes = 0
  for (const [, form] of forms) for (const [, , size] of form) bytes += size
  return bytes
}

/** Small contents read by one statement: at most this many bytes (the memory a page's splice holds)… */
const BATCH_BYTES = 4 * BLOB_CHUNK
/** …and this many contents. */
const BATCH_CONTENTS = OWNERS_PER_QUERY

async function* spliced(sql: SqlPort, bytes: Buffer, spots: readonly Spot[], out: ChunkWriter): AsyncGenerator<Buffer> {
  let at = 0
  // The contents of one chunk or less are read many per statement (a page of payments has
  // one or more each); a longer one streams chunk by chunk, never held whole.
  let batch: (ref: string) => { chunk: Buffer }[] = () => []
  let batched = new Set<string>()
  for (let i = 0; i < spots.length; i++) {
    const [offset, ref, size] = spots[i]!
    if (size > BLOB_CHUNK) {
      out.push(bytes.subarray(at, offset - 1))
      yield* serialize(content(sql, ref, size), out)
      at = offset + 1
      continue
    }
    if (size > 0 && !batched.has(ref)) {
      batched = nextBatch(spots, i)
      batch = await readByOwner<{ owner: string; chunk: Buffer }>(sql, FIRST_CHUNKS, [...batched], [], { owner: 'text', chunk: 'bytes' })
    }
    // The bytes up to the content, its opening quote included; the closing one starts the next part.
    out.push(bytes.subarray(at, offset))
    at = offset
    if (size === 0) continue
    const chunk = batch(ref)[0]?.chunk
    // As content() does: a file replaced by an import since its size was read breaks the answer rather than corrupt it.
    if (!chunk || chunk.length !== size) throw changedContent(ref)
    yield* base64(chunk, out)
  }
  if (out.push(bytes.subarray(at))) yield out.take()!
}

/** The small contents from spot `i` on that one statement reads. */
function nextBatch(spots: readonly Spot[], i: number): Set<string> {
  const refs = new Set<string>()
  let total = 0
  for (let j = i; j < spots.length && refs.size < BATCH_CONTENTS; j++) {
    const [, ref, size] = spots[j]!
    if (size === 0 || size > BLOB_CHUNK || refs.has(ref)) continue
    if (total + size > BATCH_BYTES && refs.size > 0) break
    refs.add(ref)
    total += size
  }
  return refs
}
