// Full forms as the import keeps them ready (import/read-models.ts) and as the pipeline
// serves them (pipeline/run.ts): the JSON bytes of a document's form, the `errors` entry
// it carries, and where attachment contents go — those are never stored twice, they stay
// in their chunks (store/blobs.ts) and are spliced into the bytes while streaming.
import { Base64Blob, serialize } from '../pipeline/json-stream.js'
import type { ChunkWriter } from '../pipeline/json-stream.js'
import { messages } from '../pipeline/messages.js'
import type { Row, SqlPort } from '../store/sql.js'
import type { FullResult, RequestContext } from './define.js'
import { StoredBlob, content } from './shared/linked.js'

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

function hasBlob(value: unknown): boolean {
  if (value instanceof Base64Blob) return true
  if (Array.isArray(value)) return value.some(hasBlob)
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasBlob)
  return false
}

/** The bytes json-stream's `serialize` prints for `result.value`, with each attachment content left as `""`. */
export function readyForm(result: FullResult): ReadyForm {
  const issue = result.issue ?? ''
  if (result.value === undefined) return { full: null, issue, blobs: '' }
  if (!hasBlob(result.value)) return { full: Buffer.from(JSON.stringify(result.value)), issue, blobs: '' }
  const parts: Buffer[] = []
  let size = 0
  const spots: [number, string, number][] = []
  const push = (text: string) => {
    const buf = Buffer.from(text)
    parts.push(buf)
    size += buf.length
  }
  // The same walk as serialize(): plain subtrees as JSON.stringify, objects skipping undefined.
  const write = (value: unknown): void => {
    if (!hasBlob(value)) return push(JSON.stringify(value))
    if (value instanceof Base64Blob) {
      if (!(value instanceof StoredBlob)) throw new Error('an attachment content without its attachment cannot be stored')
      push('"')
      spots.push([size, value.ref, value.size])
      return push('"')
    }
    if (Array.isArray(value)) {
      push('[')
      value.forEach((v, i) => {
        if (i > 0) push(',')
        write(v)
      })
      return push(']')
    }
    push('{')
    let first = true
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue
      push(`${first ? '' : ','}${JSON.stringify(k)}:`)
      first = false
      write(v)
    }
    push('}')
  }
  write(result.value)
  return { full: Buffer.concat(parts, size), issue, blobs: JSON.stringify(spots) }
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
