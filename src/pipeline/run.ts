// The one answer path: parse → plan → query store → post-filter → shape → envelope.
// Short and full forms are ready JSON in the read model, joined by the store a page at a
// time; only a full form that depends on the request is built here, from what each
// page's reads loaded, and streamed.
import type { ComputedEndpoint, ListEndpoint } from '../endpoints/define.js'
import type { RequestContext } from '../views/define.js'
import { FULL_COLUMNS, fullForms, pageContentBytes, storedForm, storedPage } from '../views/full-forms.js'
import { pageRowsSql, readPageHead, readPages } from '../views/pages.js'
import { listOrder, pagedList } from '../endpoints/define.js'
import type { StoredPage } from '../views/pages.js'
import type { PagedList } from '../views/define.js'
import type { Condition } from '../store/plan.js'
import {
  compileBoundedPage,
  compileCount,
  compileJoinedPage,
  compileJoinedRows,
  compilePage,
  compilePageEnd,
  compileRecordsPage,
  joinRows,
  joinedParts,
} from '../store/select.js'
import { splitRecords } from '../store/records.js'
import type { ColumnKind, Row, SqlPort, SqlValue } from '../store/sql.js'
import { usesTrigrams } from '../store/trigram.js'
import { ChunkWriter, ReadyJson, pushReady, serialize } from '../views/json-stream.js'
import { OPEN_DATA, OPEN_ROWS, ROW_SEPARATOR, closeData, closeRows, closeRows as closeEnvelope } from './envelope.js'
import { endpointByService } from '../endpoints/index.js'
import { parseRequest, queryPairs } from '../endpoints/parse.js'
import { planQuery } from '../endpoints/plan.js'
import { encodeCursor, pageRequest } from '../endpoints/pages.js'
import { itemFields, outputRequest } from '../endpoints/fields.js'
import type { Format } from '../endpoints/fields.js'
import { reshaped } from './output.js'
import type { PageInfo, PageRequest } from '../endpoints/pages.js'
import { changedRows, changesRequest, removedSince } from '../endpoints/changes.js'

export type Body = Buffer | AsyncIterable<Buffer>

const PAGE = 500
/** The LIMIT of a list read in one statement (ListEndpoint.onePage). */
const ONE_PAGE = 2 ** 31 - 1
/** The columns of a joined page (compileJoinedPage), as SqlPort.readBytes reads them. */
const JOINED_PAGE = { body: 'bytes', n: 'int' } as const
const JOINED_FULL_PAGE = { ...JOINED_PAGE, special: 'int' } as const
/** …and of its rows where the client joins them (compileJoinedRows). */
const JOINED_ROWS = { short: 'bytes' } as const
const JOINED_FULL_ROWS = { full_form: 'bytes', full_issue: 'text', full_blobs: 'text' } as const

export interface RunOptions {
  readonly sql: SqlPort
  readonly now: () => Date
  /** Told how many `data` rows the answer holds (for the access log and metrics). */
  readonly rows?: (n: number) => void
  /** Read between pages and rows: throws once the request is past its time limit or its client is gone. */
  readonly signal?: { throwIfAborted(): void }
  /** Told, before the body is returned, the next page and the total of a paged request (`limit`). */
  readonly page?: (info: PageInfo) => void
  /** The format the request's `Accept` prefers (the route negotiates it; `format` in the query wins). */
  readonly format?: Format
  /** Told an answer's `errors` when it is not JSON (CSV sends them after its body), once the answer has ended. */
  readonly errors?: (errors: readonly string[], removed?: readonly unknown[]) => void
}

interface JoinedPage {
  readonly body: Buffer | null
  readonly n: number
  /** Rows with an `errors` entry or attachment contents: the page is printed row by row. */
  readonly special: number
}

/** What a list request reads: its parsed form, whether it prints full forms and how, its plan. */
function decide(ep: ListEndpoint, pairs: ReadonlyMap<string, string>, sql: SqlPort, now: () => Date) {
  const page = pageRequest(ep, pairs)
  const changes = changesRequest(pairs)
  const req = parseRequest(ep, pairs)
  const ctx: RequestContext = { sql, now, options: req.options, flags: req.flags, values: req.values }
  const full = ep.fullPage !== undefined && (ep.fullWhen ? ep.fullWhen(ctx) : req.options.full === true)
  // The full form kept ready by the import, or (a form that depends on the request) built here.
  const stored = full && (ep.fullStored ? ep.fullStored(ctx) : true)
  const built = full && !stored
  const planned = planQuery(ep, req, sql.dialect, built ? ep.fullColumns : stored ? FULL_COLUMNS : [])
  const postFilters = planned.postFilters
  const plan = changes ? { ...planned.plan, where: [...planned.plan.where, changedRows(ep, changes)] } : planned.plan
  // Short forms, or full forms the import keeps, of a whole list or a period: ready pages.
  const range = (!full || stored) && postFilters.length === 0 ? pageRange(ep, plan.where) : null
  return { pairs, page, changes, req, ctx, full, stored, built, plan, postFilters, range }
}

/** The rows a short-form request may read on the event loop when an indexed substring bounds them. */
export const LOOP_ROWS = 50

type Decided = ReturnType<typeof decide>

/**
 * The answer of a list request when it costs a few bounded reads of stored bytes, so the
 * event loop can give it; null otherwise (it goes to the pool). Bounded reads: an answer
 * read whole from ready pages by one statement, at most LOOP_BYTES with the attachment
 * contents it splices in (short forms, or full forms kept by the import), or short forms
 * among the at most LOOP_ROWS rows one of its substring conditions (a number, a name of
 * 3+ characters) matches, as the engine's trigram index finds them: one statement reads
 * the candidates and the page, and more candidates than LOOP_ROWS discard it.
 */
async function runListOnLoop(ep: ListEndpoint, pairs: ReadonlyMap<string, string>, options: RunOptions): Promise<Body | null> {
  const decided = decide(ep, pairs, options.sql, options.now)
  const { range, full, stored, plan, req } = decided
  // Changes are read through the log: the pool's work. So is a page of full forms, a filtered
  // or counted one, or one over PAGE rows; a page of short forms of the whole list or a period
  // is a few indexed, joined reads, like the period's own ready pages.
  if (decided.changes !== undefined) return null
  if (decided.page !== undefined)
    return !full && range !== null && decided.page.limit <= PAGE && !decided.page.count ? listAnswer(ep, decided, options, true) : null
  if (range !== null) return !full || stored ? listAnswer(ep, decided, options, true) : null
  if (full || decided.postFilters.length > 0) return null
  for (const c of plan.where) {
    if (c.kind !== 'contains' || !c.indexed || !usesTrigrams(c.value)) continue
    const bounded = compileBoundedPage(plan, options.sql.dialect, c, LOOP_ROWS)
    if (!bounded) return null
    const [row] = await options.sql.all<Row>(bounded.sql, bounded.params)
    if (Number(row?.cands) > LOOP_ROWS) continue
    const n = Number(row?.n ?? 0)
    options.rows?.(n)
    return Buffer.concat([OPEN_ROWS, options.sql.dialect.bytes.value(row?.body) ?? Buffer.alloc(0), closeRows(req.issues)])
  }
  return null
}

export async function runList(ep: ListEndpoint, pairs: ReadonlyMap<string, string>, options: RunOptions): Promise<Body> {
  return (await listAnswer(ep, decide(ep, pairs, options.sql, options.now), options, false))!
}

/**
 * The most an answer from ready pages may weigh to be given on the event loop, attachment
 * contents included. Streamed from the loop, a bigger one (a year of full forms, 49 MB)
 * holds it a step after another: eight such clients delayed `health` by 0.2–1.3 s.
 */
export const LOOP_BYTES = 1024 * 1024
/** …and read by one statement of at most this many pages (a larger answer's first read is the loop's only cost). */
export const LOOP_PAGES = 8

/** Whether ready pages read by one statement are the whole answer, within LOOP_BYTES. */
function fitsLoop(first: readonly StoredPage[], more: boolean): boolean {
  if (more) return false
  let bytes = 0
  for (const p of first) {
    if (p.body === null) return false
    bytes += p.body.length + (p.blobs === '' ? 0 : Math.ceil(pageContentBytes(p.blobs) / 3) * 4)
    if (bytes > LOOP_BYTES) return false
  }
  return true
}

/** The answer of a decided request; with `loopOnly`, null when ready pages would not fit the event loop. */
async function listAnswer(
  ep: ListEndpoint,
  decided: Decided,
  { sql, rows: counted, signal, page: told }: RunOptions,
  loopOnly: boolean,
): Promise<Body | null> {
  const { req, ctx, full, stored, built, postFilters, range } = decided
  if (built && ep.readyItems && decided.page === undefined && decided.changes === undefined && postFilters.length === 0) {
    const ready = await ep.readyItems(ctx)
    if (ready) {
      counted?.(ready.n)
      // Streamed as three parts: the items (megabytes) are not copied into an answer of their own.
      return (async function* () {
        yield OPEN_ROWS
        yield* ready.items
        yield closeEnvelope(req.issues)
      })()
    }
  }
  const plan = built && ep.readFirst ? { ...decided.plan, where: await ep.readFirst(ctx, decided.plan.where) } : decided.plan
  const removed = decided.changes && (await removedSince(sql, ep, decided.changes))
  // Every close below carries the `removed` of a changed_since request (the envelope's own without one).
  const closeRows = (issues: readonly string[]) => closeEnvelope(issues, removed)
  const keys = plan.orderBy.map((k) => k.column)
  // Rows read for forms built here (or filtered here), a page at a time unless the endpoint says one.
  const rowsPage = built && ep.onePage?.(ctx) === true ? ONE_PAGE : PAGE
  const fetch = async (after?: readonly SqlValue[], size = rowsPage): Promise<Row[]> => {
    // A list read whole for forms built here: its refs and short forms as one value.
    const records = size === ONE_PAGE && after === undefined && postFilters.length === 0 && !stored && compileRecordsPage(plan, sql.dialect)
    if (records) {
      const [row] = await sql.all<Row>(records.sql, records.params)
      return splitRecords(sql.dialect.bytes.value(row?.body), 2).map(([ref, short]) => ({ ref: ref!.toString('latin1'), short }))
    }
    const { sql: text, params } = compilePage(plan, sql.dialect, size, after)
    return sql.all<Row>(text, params)
  }
  const keep = (rows: Row[]) => (postFilters.length === 0 ? rows : rows.filter((r) => postFilters.every((f) => f(r))))
  const joinedForm = stored ? { form: 'full_form', special: ['full_issue', 'full_blobs'] } : { form: 'short' }
  const joinedColumns = stored ? JOINED_FULL_PAGE : JOINED_PAGE
  const joinedRowColumns = stored ? JOINED_FULL_ROWS : JOINED_ROWS
  // Rows joined here (Dialect.pageJoin) are read as stored bytes (PostgreSQL: a binary COPY)
  // unless the request's conditions hold its text, which stays bound (reliability battery F3);
  // a cursor's keys, signed by docgate, go into the COPY (store/pg-copy.ts inlineParams).
  const readRows = (text: string, params: readonly SqlValue[], columns: Readonly<Record<string, ColumnKind>>) =>
    plan.where.length > 0 ? sql.all<Row>(text, params) : sql.readBytes<Row>(text, params, columns)
  const joinedPage = async (after?: readonly SqlValue[], size = PAGE): Promise<JoinedPage> => {
    if (sql.dialect.pageJoin === 'client') {
      const { sql: text, params } = compileJoinedRows(plan, sql.dialect, size, { ...joinedForm, after })
      return joinRows(await readRows(text, params, joinedRowColumns), joinedForm)
    }
    // A whole list's first page has no parameter but its size: read as stored bytes
    // (readBytes: PostgreSQL's binary COPY). Conditions and a cursor hold request text, which
    // stays bound to a prepared statement; the bytes come in the dialect's form then.
    const encoded = after !== undefined || plan.where.length > 0
    const { sql: text, params } = compileJoinedPage(plan, sql.dialect, size, { ...joinedForm, after, encoded })
    const [row] = encoded ? await sql.all<Row>(text, params) : await sql.readBytes<Row>(text, params, joinedColumns)
    const body = encoded ? sql.dialect.bytes.value(row?.body) : ((row?.body ?? null) as Buffer | null)
    return { body, n: Number(row?.n ?? 0), special: Number(row?.special ?? 0) }
  }
  const pageEnd = async (after?: readonly SqlValue[], size = PAGE): Promise<SqlValue[]> => (await pageEndAndMore(after, size)).at
  /** The last row's sort keys of a full page and, asked with `more`, whether a row follows it. */
  const pageEndAndMore = async (after: readonly SqlValue[] | undefined, size: number, more = false) => {
    const { sql: text, params } = compilePageEnd(plan, sql.dialect, size, after, more ? 2 : 1)
    const rows = await sql.all<Row>(text, params)
    return { at: keys.map((k) => rows[0]![k] as SqlValue), more: rows.length > 1 }
  }
  /** The next page's cursor: the position of a page's last row, when more rows follow it. */
  const cursorAfter = (more: boolean, last: Row | undefined): string | undefined =>
    more && last
      ? encodeCursor(
          ep,
          decided.pairs,
          keys.map((k) => last[k] as SqlValue),
        )
      : undefined
  const out = new ChunkWriter()
  let count = 0

  if (decided.page !== undefined)
    return !full && postFilters.length === 0 ? joinedPaged(decided.page) : loopOnly ? null : paged(decided.page)

  if (range !== null) {
    signal?.throwIfAborted()
    const { first, rest } = await readPages(
      sql,
      pagesOf(ep),
      range === 'all' ? undefined : range,
      stored,
      loopOnly ? LOOP_PAGES : undefined,
    )
    if (loopOnly && !fitsLoop(first, rest !== undefined)) return null
    if (!rest && first.every((p) => p.body !== null && p.blobs === '')) {
      counted?.(first.reduce((n, p) => n + p.n, 0))
      const parts: Buffer[] = [OPEN_ROWS]
      for (const p of first) {
        if (parts.length > 1) parts.push(ROW_SEPARATOR)
        parts.push(p.body!)
      }
      parts.push(closeRows(req.issues))
      return Buffer.concat(parts)
    }
    return fromPages(first, rest?.())
  }

  if (!built && postFilters.length === 0) {
    const first = await joinedPage()
    if (first.n < PAGE && first.special === 0) {
      counted?.(first.n)
      return Buffer.concat([OPEN_ROWS, first.body ?? Buffer.alloc(0), closeRows(req.issues)])
    }
    return joined(first)
  }
  const first = await fetch()
  if (!full && first.length < rowsPage) {
    const parts: Buffer[] = [OPEN_ROWS]
    const kept = keep(first)
    for (const row of kept) {
      if (parts.length > 1) parts.push(ROW_SEPARATOR)
      parts.push(row.short as Buffer)
    }
    counted?.(kept.length)
    parts.push(closeRows(req.issues))
    return Buffer.concat(parts)
  }
  return rowByRow(first)

  /** Ready pages (views/pages.ts), streamed as they are read. */
  async function* fromPages(first: readonly StoredPage[], rest: AsyncIterable<StoredPage> | undefined): AsyncGenerator<Buffer> {
    out.push(OPEN_ROWS)
    const list = pagesOf(ep)
    async function* add(p: StoredPage): AsyncGenerator<Buffer> {
      if (p.body === null) {
        // A page without bytes: a full-form page the store could not join, or one a sync
        // left to join later (views/pages.ts `stale`). Its rows, each as stored.
        const rows = pageRowsSql(list, stored ? FULL_COLUMNS : ['short'], p.bucket, p.seq)
        for (const row of await sql.all<Row>(rows.sql, rows.params)) {
          signal?.throwIfAborted()
          if (stored) yield* storedRow(row)
          else {
            if (count++ > 0) out.push(ROW_SEPARATOR)
            if (out.push(row.short as Buffer)) yield out.take()!
          }
        }
        return
      }
      if (count > 0) out.push(ROW_SEPARATOR)
      count += p.n
      if (p.blobs !== '') yield* storedPage(sql, p.body, p.blobs, out)
      else if (out.push(p.body)) yield out.take()!
    }
    for (const p of first) yield* add(p)
    for await (const p of rest ?? []) {
      signal?.throwIfAborted()
      yield* add(p)
    }
    counted?.(count)
    out.push(closeRows(req.issues))
    yield out.take()!
  }

  /** A stored full form: its `errors` entry, and its bytes unless the document is left out of `data`. */
  async function* storedRow(row: Row): AsyncGenerator<Buffer> {
    const issue = String(row.full_issue ?? '')
    if (issue !== '') req.issues.push(issue)
    if (row.full_form === null || row.full_form === undefined) return
    if (count++ > 0) out.push(ROW_SEPARATOR)
    yield* storedForm(sql, row.full_form as Buffer, String(row.full_blobs ?? ''), out)
  }

  /** Page by page, each joined by the store; a page with special rows is read again row by row. */
  async function* joined(firstPage: JoinedPage): AsyncGenerator<Buffer> {
    out.push(OPEN_ROWS)
    let page = firstPage
    let after: readonly SqlValue[] | undefined
    for (;;) {
      signal?.throwIfAborted()
      if (page.special > 0) {
        for (const row of await fetch(after)) yield* storedRow(row)
      } else if (page.n > 0) {
        if (count > 0) out.push(ROW_SEPARATOR)
        count += page.n
        if (out.push(page.body!)) yield out.take()!
      }
      if (page.n < PAGE) break
      after = await pageEnd(after)
      page = await joinedPage(after)
    }
    counted?.(count)
    out.push(closeRows(req.issues))
    yield out.take()!
  }

  /** Rows printed in the list's form: short, the stored full form, or the full form built for this request. */
  async function* printed(rows: Row[]): AsyncGenerator<Buffer> {
    const form = built ? await fullForms(ep.service, ep.fullPage!, ctx, rows) : undefined
    for (const row of rows) {
      signal?.throwIfAborted()
      if (form) {
        const result = form(row)
        if (result.issue !== undefined) req.issues.push(result.issue)
        if (result.value === undefined) continue
        if (count++ > 0) out.push(ROW_SEPARATOR)
        const value = result.value
        // JSON already made needs no generator of its own (a list of thousands of spliced forms).
        if (Buffer.isBuffer(value) || value instanceof ReadyJson) {
          if (pushReady(value, out)) yield out.take()!
        } else yield* serialize(value, out)
      } else if (stored) {
        yield* storedRow(row)
      } else {
        if (count++ > 0) out.push(ROW_SEPARATOR)
        if (out.push(row.short as Buffer)) yield out.take()!
      }
    }
  }

  async function* rowByRow(firstPage: Row[]): AsyncGenerator<Buffer> {
    out.push(OPEN_ROWS)
    let page = firstPage
    for (;;) {
      signal?.throwIfAborted()
      yield* printed(keep(page))
      const last = page.at(-1)
      if (page.length < rowsPage || !last) break
      page = await fetch(keys.map((k) => last[k] as SqlValue))
    }
    counted?.(count)
    out.push(closeRows(req.issues))
    yield out.take()!
  }

  /**
   * One page of `limit` rows after the cursor's position, whole: its rows are read by keyset
   * (one more than the page, to know whether another follows) and printed as the whole list
   * prints them. The next cursor is the position of the page's last row.
   */
  async function paged(page: PageRequest): Promise<Buffer> {
    const rows: Row[] = []
    let after = page.after
    for (;;) {
      signal?.throwIfAborted()
      const size = Math.min(PAGE, page.limit + 1 - rows.length)
      const got = await fetch(after, size)
      rows.push(...keep(got))
      const last = got.at(-1)
      if (got.length < size || rows.length > page.limit || !last) break
      after = keys.map((k) => last[k] as SqlValue)
    }
    const more = rows.length > page.limit
    rows.length = Math.min(rows.length, page.limit)
    const parts: Buffer[] = []
    out.push(OPEN_ROWS)
    for (let i = 0; i < rows.length; i += PAGE) for await (const chunk of printed(rows.slice(i, i + PAGE))) parts.push(chunk)
    counted?.(count)
    out.push(closeRows(req.issues))
    parts.push(out.take()!)
    const next = cursorAfter(more, rows.at(-1))
    told?.({ ...(next !== undefined ? { next } : {}), ...(page.count ? { total: await total() } : {}) })
    return Buffer.concat(parts)
  }

  /**
   * A page of short forms, joined as a whole list's pages are: by the store (storePaged) or,
   * where the dialect says, here from its rows (rowsPaged).
   */
  async function joinedPaged(page: PageRequest): Promise<Buffer> {
    const kinds = keyKinds(ep)
    const { parts, n, next } =
      (await keptHead(page, kinds)) ?? (kinds && sql.dialect.pageJoin === 'client' ? await rowsPaged(page, kinds) : await storePaged(page))
    counted?.(n)
    told?.({ ...(next !== undefined ? { next } : {}), ...(page.count ? { total: await total() } : {}) })
    return Buffer.concat([OPEN_ROWS, ...parts, closeRows(req.issues)])
  }

  /** A page of the whole list or a period, cut out of the ready pages this connection keeps. */
  async function keptHead(page: PageRequest, kinds: Readonly<Record<string, ColumnKind>> | null) {
    if (kinds === null || range === null || postFilters.length > 0) return null
    const head = await readPageHead(sql, pagesOf(ep), range === 'all' ? undefined : range, page.limit, kinds, page.after)
    if (head === null) return null
    return { parts: head.parts, n: head.n, ...(head.last ? { next: encodeCursor(ep, decided.pairs, head.last) } : {}) }
  }

  /**
   * One statement for the page's joined rows, and when it is full one for its last row's sort
   * keys (the next cursor) and the row after them, if any (whether there is a next page).
   */
  async function storePaged(page: PageRequest): Promise<{ parts: Buffer[]; n: number; next?: string }> {
    const { body, n } = await joinedPage(page.after, page.limit)
    const parts = body ? [body] : []
    if (n < page.limit) return { parts, n }
    const end = await pageEndAndMore(page.after, page.limit, true)
    return { parts, n, ...(end.more ? { next: encodeCursor(ep, decided.pairs, end.at) } : {}) }
  }

  /**
   * The same page where the client joins it (Dialect.pageJoin): one statement reads its rows
   * with their sort keys and the row after them, if any, which says whether another follows.
   */
  async function rowsPaged(page: PageRequest, kinds: Readonly<Record<string, ColumnKind>>) {
    const form = { form: 'short', after: page.after, keys: true }
    const { sql: text, params } = compileJoinedRows(plan, sql.dialect, page.limit + 1, form)
    const rows = await readRows(text, params, { ...JOINED_ROWS, ...kinds })
    const more = rows.length > page.limit
    if (more) rows.length = page.limit
    const next = cursorAfter(more, rows.at(-1))
    return { ...joinedParts(rows, form), ...(next !== undefined ? { next } : {}) }
  }

  /** The rows of the whole list: counted by the store, or read and post-filtered. */
  async function total(): Promise<number> {
    if (postFilters.length === 0) {
      const { sql: text, params } = compileCount(plan, sql.dialect)
      const [row] = await sql.all<Row>(text, params)
      return Number(row?.n ?? 0)
    }
    let n = 0
    let after: readonly SqlValue[] | undefined
    for (;;) {
      signal?.throwIfAborted()
      const got = await fetch(after)
      n += keep(got).length
      const last = got.at(-1)
      if (got.length < PAGE || !last) return n
      after = keys.map((k) => last[k] as SqlValue)
    }
  }
}

const KEY_KINDS = new WeakMap<ListEndpoint, Readonly<Record<string, ColumnKind>> | null>()
/** How a byte read gives the list's sort keys (SqlPort.readBytes); null when one is neither text nor an integer. */
function keyKinds(ep: ListEndpoint): Readonly<Record<string, ColumnKind>> | null {
  let kinds = KEY_KINDS.get(ep)
  if (kinds === undefined) {
    const types = new Map<string, string>([['ref', 'text'], ...ep.readModel.columns.map((c) => [c.name, c.type] as const)])
    const pairs = listOrder(ep).map((k) => [k.column, types.get(k.column)] as const)
    kinds = pairs.every(([, t]) => t === 'text' || t === 'int') ? (Object.fromEntries(pairs) as Record<string, ColumnKind>) : null
    KEY_KINDS.set(ep, kinds)
  }
  return kinds
}

const PAGED = new WeakMap<ListEndpoint, PagedList>()
const pagesOf = (ep: ListEndpoint): PagedList => {
  let list = PAGED.get(ep)
  if (!list) PAGED.set(ep, (list = pagedList(ep)))
  return list
}

/**
 * The days a request reads from ready pages: 'all' for the whole list, a range of days when
 * its only conditions are period ranges over the date its pages are cut by; null when it has
 * other conditions (the rows are read).
 */
function pageRange(ep: ListEndpoint, where: readonly Condition[]): 'all' | { from: string; toExclusive: string } | null {
  if (where.length === 0) return 'all'
  const day = pagesOf(ep).day
  if (!day) return null
  let from = ''
  let toExclusive: string | undefined
  for (const c of where) {
    if (c.kind !== 'range' || c.column !== day) return null
    if (c.from > from) from = c.from
    if (toExclusive === undefined || c.toExclusive < toExclusive) toExclusive = c.toExclusive
  }
  return { from, toExclusive: toExclusive! }
}

/** The answer of a computed request when it is cheap enough for the event loop (a ready answer, a bounded cash statement); null otherwise. */
async function runComputedOnLoop(ep: ComputedEndpoint, pairs: ReadonlyMap<string, string>, options: RunOptions): Promise<Body | null> {
  const req = parseRequest(ep, pairs)
  if (ep.loopWhen === undefined || !(await ep.loopWhen(req.values, options.sql))) return null
  return computed(ep, req, options)
}

export async function runComputed(ep: ComputedEndpoint, pairs: ReadonlyMap<string, string>, options: RunOptions): Promise<Body> {
  return computed(ep, parseRequest(ep, pairs), options)
}

async function computed(
  ep: ComputedEndpoint,
  req: ReturnType<typeof parseRequest>,
  { sql, now, rows: counted }: RunOptions,
): Promise<Body> {
  const data = await ep.compute({ sql, now, options: req.options, flags: req.flags, values: req.values }, req.issues)
  // A computed answer ready as bytes does not say its length; only an array does.
  if (Array.isArray(data)) counted?.(data.length)
  if (Buffer.isBuffer(data)) return Buffer.concat([OPEN_DATA, data, closeData(req.issues)])
  if ('json' in data) {
    counted?.(data.count)
    return Buffer.concat([OPEN_DATA, data.json, closeData(req.issues)])
  }
  if (Symbol.asyncIterator in data) return framed(data, req.issues)
  return Buffer.from(JSON.stringify({ data, errors: req.issues }))
}

/** A computed answer read from the store in chunks (a ready answer) is sent as it is read. */
async function* framed(chunks: AsyncIterable<Buffer>, issues: readonly string[]): AsyncGenerator<Buffer> {
  yield OPEN_DATA
  yield* chunks
  yield closeData(issues)
}

/**
 * The answer of one data request, whatever surface asked (HTTP, the worker pool, MCP, tests):
 * the envelope's bytes, whole or streamed. Throws for a service no endpoint declares.
 */
export async function answer(service: string, query: string, options: RunOptions): Promise<Body> {
  const ep = endpointByService.get(service)
  if (!ep) throw new Error(`unknown service "${service}"`)
  const pairs = queryPairs(query)
  const out = outputRequest(ep, pairs, options.format)
  if (ep.kind === 'computed') {
    const body = await runComputed(ep, pairs, options)
    return out ? reshaped(body, out, { fields: itemFields(ep, false), children: ep.tree?.children, errors: options.errors }) : body
  }
  const decided = decide(ep, pairs, options.sql, options.now)
  const body = (await listAnswer(ep, decided, options, false))!
  return out ? reshaped(body, out, { fields: itemFields(ep, decided.full), errors: options.errors }) : body
}

/** `answer` when it costs a few bounded reads, so the event loop can give it (serving/ready-first.ts); null otherwise. */
export async function answerOnLoop(service: string, query: string, options: RunOptions): Promise<Body | null> {
  const ep = endpointByService.get(service)
  if (!ep) return null
  const pairs = queryPairs(query)
  // An answer read back and written again in another shape is the pool's work.
  if (outputRequest(ep, pairs, options.format) !== undefined) return null
  return ep.kind === 'list' ? runListOnLoop(ep, pairs, options) : runComputedOnLoop(ep, pairs, options)
}
