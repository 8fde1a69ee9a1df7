// Full forms as the import keeps them ready (import/read-models.ts) and as the pipeline
// serves them (pipeline/run.ts): the JSON bytes of a document's form, the `errors` entry
// it carries, and where attachment contents go — those are never stored twice, they stay
// in their chunks (store/blobs.ts) and are spliced into the bytes while streaming.
import { serialize } from '../pipeline/json-stream.js'
import type { ChunkWriter } from '../pipeline/json-stream.js'
import { messages } from '../pipeline/messages.js'
import type { Row, SqlPort } from '../store/sql.js'
import type { FullResult, RequestContext } from './define.js'
import { BLOB_MARK, content } from './shared/linked.js'

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
    // A read that is not per document (shared/by-owner.ts) failed: no row of the page has its data.
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

/** The read-model columns of a ReadyForm (store/migrate.ts adds them to each model with a full form). */
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

/** Streams a stored form into `out`, reading each attachment's content from its chunks. */
export async function* storedForm(sql: SqlPort, full: Buffer, blobs: string, out: ChunkWriter): AsyncGenerator<Buffer> {
  if (blobs !== '') {
    let at = 0
    for (const [offset, ref, size] of JSON.parse(blobs) as [number, string, number][]) {
      out.push(full.subarray(at, offset - 1))
      yield* serialize(content(sql, ref, size), out)
      at = offset + 1
    }
    full = full.subarray(at)
  }
  if (out.push(full)) yield out.take()!
}
