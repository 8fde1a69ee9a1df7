// The one orchestrator: parse → plan → query store → post-filter → shape → envelope.
// Short forms are ready JSON in the read model and are copied as bytes; full forms are
// built from what each page's reads loaded and streamed.
import type { ComputedEndpoint, FullResult, ListEndpoint, RequestContext } from '../endpoints/define.js'
import { compileJoinedPage, compilePage } from '../store/select.js'
import type { Row, SqlPort, SqlValue } from '../store/sql.js'
import { ChunkWriter, serialize } from './json-stream.js'
import { messages } from './messages.js'
import { parseRequest } from './parse.js'
import { planQuery } from './plan.js'

export type Body = Buffer | AsyncIterable<Buffer>

const PAGE = 500
const HEAD = Buffer.from('{"data":[')
const COMMA = Buffer.from(',')
const DATA_KEY = Buffer.from('{"data":')
const errorsPart = (issues: readonly string[]) => Buffer.from(`],"errors":${JSON.stringify(issues)}}`)

export interface RunOptions {
  readonly sql: SqlPort
  readonly now: () => Date
  /** Told how many `data` rows the answer holds (for the access log and metrics). */
  readonly rows?: (n: number) => void
}

/** The full forms of one page's rows; a row whose form fails gets an `errors` entry and leaves `data`. */
async function fullForms(ep: ListEndpoint, ctx: RequestContext, rows: readonly Row[]): Promise<(row: Row) => FullResult> {
  const failed = (row: Row, err: unknown): FullResult => ({
    issue: messages.document(`${ep.service}: документ ${String(row.ref)}`, (err as Error).message),
  })
  let build: (row: Row) => FullResult
  try {
    build = await ep.fullPage!(ctx, rows)
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

export async function runList(ep: ListEndpoint, pairs: ReadonlyMap<string, string>, { sql, now, rows: counted }: RunOptions): Promise<Body> {
  const req = parseRequest(ep, pairs)
  const ctx: RequestContext = { sql, now, options: req.options, flags: req.flags, values: req.values }
  const full = ep.fullPage !== undefined && (ep.fullWhen ? ep.fullWhen(ctx) : req.options.full === true)
  const { plan, postFilters } = planQuery(ep, req, sql.dialect, full ? ep.fullColumns : [])
  const keys = plan.orderBy.map((k) => k.column)
  const fetch = async (after?: readonly SqlValue[]) => {
    const { sql: text, params } = compilePage(plan, sql.dialect, PAGE, after)
    return sql.all<Row>(text, params)
  }
  const keep = (rows: Row[]) => (postFilters.length === 0 ? rows : rows.filter((r) => postFilters.every((f) => f(r))))
  if (!full && postFilters.length === 0) {
    const { sql: text, params } = compileJoinedPage(plan, sql.dialect, PAGE)
    const [joined] = await sql.all<{ body: Buffer | null; n: number }>(text, params)
    if (joined && joined.n < PAGE) {
      counted?.(Number(joined.n))
      return Buffer.concat([HEAD, joined.body ?? Buffer.alloc(0), errorsPart(req.issues)])
    }
  }
  const first = await fetch()
  if (!full && first.length < PAGE) {
    const parts: Buffer[] = [HEAD]
    const kept = keep(first)
    for (const row of kept) {
      if (parts.length > 1) parts.push(COMMA)
      parts.push(row.short as Buffer)
    }
    counted?.(kept.length)
    parts.push(errorsPart(req.issues))
    return Buffer.concat(parts)
  }
  return stream(first)

  async function* stream(firstPage: Row[]): AsyncGenerator<Buffer> {
    const out = new ChunkWriter()
    out.push(HEAD)
    let page = firstPage
    let count = 0
    for (;;) {
      const rows = keep(page)
      const form = full ? await fullForms(ep, ctx, rows) : undefined
      for (const row of rows) {
        if (form) {
          const result = form(row)
          if (result.issue !== undefined) req.issues.push(result.issue)
          if (result.value === undefined) continue
          if (count++ > 0) out.push(COMMA)
          yield* serialize(result.value, out)
        } else {
          if (count++ > 0) out.push(COMMA)
          if (out.push(row.short as Buffer)) yield out.take()!
        }
      }
      const last = page.at(-1)
      if (page.length < PAGE || !last) break
      page = await fetch(keys.map((k) => last[k] as SqlValue))
    }
    counted?.(count)
    out.push(errorsPart(req.issues))
    yield out.take()!
  }
}

export async function runComputed(ep: ComputedEndpoint, pairs: ReadonlyMap<string, string>, { sql, now, rows: counted }: RunOptions): Promise<Body> {
  const req = parseRequest(ep, pairs)
  const data = await ep.compute({ sql, now, options: req.options, flags: req.flags, values: req.values }, req.issues)
  // A computed answer ready as bytes does not say its length; only an array does.
  if (Array.isArray(data)) counted?.(data.length)
  if (Buffer.isBuffer(data)) return Buffer.concat([DATA_KEY, data, Buffer.from(`,"errors":${JSON.stringify(req.issues)}}`)])
  if (Symbol.asyncIterator in data) return framed(data, req.issues)
  return Buffer.from(JSON.stringify({ data, errors: req.issues }))
}

/** A computed answer read from the store in chunks (a ready answer) is sent as it is read. */
async function* framed(chunks: AsyncIterable<Buffer>, issues: readonly string[]): AsyncGenerator<Buffer> {
  yield DATA_KEY
  yield* chunks
  yield Buffer.from(`,"errors":${JSON.stringify(issues)}}`)
}
