// Ready pages: a list's short forms kept joined in the list's order (decision "Ready pages").
// A list sorted by its period's date is cut into one bucket per day; any other list is one
// bucket. Each bucket is stored as pages of up to PAGE_ROWS forms, comma-joined, so a
// request for a period (or for the whole list) without other filters reads a few blobs
// by key instead of every row. The import rebuilds the buckets of the rows it changes, in
// the transaction that changes them (views/rebuild.ts).
import { randomBytes } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { dayEnd, parseDay } from '../values/dates.js'
import type { TableDef } from '../store/table.js'
import type { ColumnKind, Dialect, Row, SqlPort, SqlValue } from '../store/sql.js'
import { whileUnchanged } from '../store/unchanged.js'
import type { PagedList, ReadModel } from './define.js'

export const PAGES_TABLE = 'ready_pages'
/** Bumped when the pages' layout changes: part of each read model's signature (views/migrate.ts). */
export const PAGES_VERSION = 4

/** Forms per stored page: ~0.5 MB of the longest short forms. */
export const PAGE_ROWS = 500

export const readyPagesTable: TableDef = {
  name: PAGES_TABLE,
  columns: [
    { name: 'model', type: 'text' },
    { name: 'bucket', type: 'text' },
    { name: 'seq', type: 'int' },
    { name: 'body', type: 'blob', whole: true },
    { name: 'n', type: 'int' },
    // Where attachment contents go in `body` ('' for none): JSON `[base, [place, full_blobs], …]`,
    // `place - base` being the position in `body` of the form whose `full_blobs` follows (full-forms.ts).
    { name: 'blobs', type: 'text' },
    // Drawn at random by each rebuild of a page: a page's bytes are known by (model, bucket, seq, gen).
    { name: 'gen', type: 'int' },
  ],
  primaryKey: ['model', 'bucket', 'seq'],
}

/** The pages' key of a model's full forms. */
export const fullKey = (model: string): string => `${model}:full`

// A row the store cannot join: its form is left out of `data` or it has an `errors` entry.
// A page holding one keeps no body; it is read row by row. Attachment contents are not
// joined either, but their places are: the page keeps its body and says where they go.
const SPECIAL = "CASE WHEN t.full_form IS NULL OR t.full_issue <> '' THEN 1 ELSE 0 END"

const bucketOf = (list: PagedList, alias: string): string => (list.day ? `substr(${alias}.${list.day}, 1, 10)` : "''")

/** The exclusive bound of the stored dates of bucket `day` (`YYYY-MM-DD`): the next day (values/dates.ts). */
function dayAfter(day: string): string {
  if (day === '') return '0' // the bucket of empty dates: '' only
  const d = parseDay(day)
  // Stored dates are validated at import, so every bucket parses; a stray one still bounds its own day.
  return d ? dayEnd(d) : `${day}T24`
}

const TOUCHED_BUCKETS = '_ready_buckets'

/** The buckets of `list` that rows of its read model matching `where` (over alias `r`) fall in. */
export async function bucketsOf(sql: SqlPort, list: PagedList, where: string): Promise<string[]> {
  const rows = await sql.all<{ bucket: string }>(`SELECT DISTINCT ${bucketOf(list, 'r')} AS bucket FROM ${list.model} r WHERE ${where}`)
  return rows.map((r) => String(r.bucket))
}

const POSITIONS = '_ready_positions'

/**
 * Each row's page (`seq`) and place in its bucket (`pos`, from 1) in the list's order and,
 * when the model keeps full forms and they are joined, `before`: the bytes of the bucket's
 * forms before the row's, each with its comma. Taken apart from the bytes, which a window over whole rows
 * would sort, and the grouping sort again (a page rebuild of 3,000 orders' full forms:
 * 37–77 → 23–32 ms).
 */
const positions = (list: PagedList, from: string, placesOnly = false): string => {
  const order = list.order.map((k) => `t.${k.column} ${k.dir.toUpperCase()}`).join(', ')
  // One window for all three (the engine sorts once); the frame matters to the sum only.
  const window = `OVER (PARTITION BY ${bucketOf(list, 't')} ORDER BY ${order} ROWS UNBOUNDED PRECEDING)`
  const before = list.full && !placesOnly ? `sum(octet_length(t.full_form) + 1) ${window} - octet_length(t.full_form) - 1` : '0'
  return (
    `INSERT INTO ${POSITIONS} (bucket, seq, pos, ref, before) SELECT ${bucketOf(list, 't')}, ` +
    `(row_number() ${window} - 1) / ${PAGE_ROWS}, row_number() ${window}, t.ref, ${before} FROM ${from}`
  )
}

/**
 * The pages of the rows in POSITIONS, short or full forms. The positions' key is their
 * order, so SQLite reads them in it (CROSS JOIN keeps them the outer loop) and groups and
 * joins the forms as they come (dialect.concatPage).
 */
const pages = (list: PagedList, dialect: Dialect, full: boolean): string => {
  const from = `FROM ${POSITIONS} p CROSS JOIN ${list.model} t WHERE t.ref = p.ref GROUP BY p.bucket, p.seq`
  const [form, special] = full ? ['t.full_form', SPECIAL] : ['t.short', '0']
  const body = `CASE WHEN max(${special}) = 0 THEN ${dialect.concatPage(form, 'p.pos')} END`
  if (!full) return `INSERT INTO ${PAGES_TABLE} (model, bucket, seq, body, n, gen) SELECT ?, p.bucket, p.seq, ${body}, count(*), ? ${from}`
  // The page's first form's place is `base`, which the reader subtracts. Each spot carries
  // its own place, so their order in the aggregate does not matter (the reader sorts them).
  const spot = `CASE WHEN t.full_blobs <> '' THEN '[' || p.before || ',' || t.full_blobs || ']' END`
  return (
    `INSERT INTO ${PAGES_TABLE} (model, bucket, seq, body, n, gen, blobs) ` +
    `SELECT ?, p.bucket, p.seq, ${body}, count(*), ?, ` +
    `CASE WHEN max(${special}) = 0 AND count(${spot}) > 0 THEN '[' || min(p.before) || ',' || string_agg(${spot}, ',') || ']' ELSE '' END ${from}`
  )
}

/**
 * How `rebuildPages` leaves the buckets: `build` joins their forms; `stale` keeps only their
 * pages' places (row counts) with no bytes, which readers take row by row from the read
 * model — the same answer, slower — until `rebuildStalePages` joins them.
 */
export type PagesMode = 'build' | 'stale'

/**
 * Rebuilds the pages of `buckets` (all of them when 'all') from the read model as it is now,
 * inside the caller's transaction, short and (when the model keeps them) full forms. A
 * bucket left without rows loses its pages.
 */
export async function rebuildPages(
  sql: SqlPort,
  list: PagedList,
  buckets: readonly string[] | 'all',
  mode: PagesMode = 'build',
): Promise<void> {
  if (buckets !== 'all' && buckets.length === 0) return
  const keys = list.full ? [list.model, fullKey(list.model)] : [list.model]
  const gen = newGen()
  await sql.exec(
    `CREATE TEMP TABLE IF NOT EXISTS ${POSITIONS} (bucket TEXT, seq INTEGER, pos INTEGER, ref TEXT, before INTEGER, ` +
      `PRIMARY KEY (bucket, seq, pos))${sql.dialect.clusteredTable}`,
  )
  await sql.run(sql.dialect.empty(POSITIONS))
  let from = `${list.model} t`
  let within = ''
  if (buckets !== 'all' && list.day) {
    await sql.exec(`CREATE TEMP TABLE IF NOT EXISTS ${TOUCHED_BUCKETS} (bucket TEXT PRIMARY KEY, next TEXT)`)
    await sql.run(sql.dialect.empty(TOUCHED_BUCKETS))
    await sql.insertRows(
      TOUCHED_BUCKETS,
      ['bucket', 'next'],
      buckets.map((b) => [b, dayAfter(b)]),
    )
    // Each bucket is an index range of the date column: one statement reads only their rows.
    from = `${TOUCHED_BUCKETS} b JOIN ${list.model} t ON t.${list.day} >= b.bucket AND t.${list.day} < b.next`
    within = ` AND bucket IN (SELECT bucket FROM ${TOUCHED_BUCKETS})`
  }
  const stale = mode === 'stale'
  await sql.run(positions(list, from, stale))
  for (const key of keys) {
    await sql.run(`DELETE FROM ${PAGES_TABLE} WHERE model = ?${within}`, [key])
    await sql.run(stale ? placesOnly : pages(list, sql.dialect, key !== list.model), [key, gen])
  }
}

/** Pages without bytes: the places of the rows in POSITIONS, which a reader takes from the read model. */
const placesOnly = `INSERT INTO ${PAGES_TABLE} (model, bucket, seq, body, n, gen, blobs) SELECT ?, bucket, seq, NULL, count(*), ?, '' FROM ${POSITIONS} GROUP BY bucket, seq`

/** Buckets joined per transaction by `rebuildStalePages`. */
const STALE_CHUNK = 200

/**
 * Joins the buckets that `stale` rebuilds left without bytes, a chunk per transaction. A
 * short page has bytes unless it is stale, so its key alone finds them (a full page may
 * lack them for good: a row the store cannot join). With `stop` aborted it stops before the
 * next chunk: the pages left read as their rows until a later call joins them.
 */
export async function rebuildStalePages(sql: SqlPort, models: readonly ReadModel[], stop?: { readonly aborted: boolean }): Promise<number> {
  let joined = 0
  for (const list of models.flatMap((m) => (m.pages ? [m.pages] : []))) {
    for (;;) {
      if (stop?.aborted) return joined
      const rows = await sql.all<{ bucket: string }>(
        `SELECT DISTINCT bucket FROM ${PAGES_TABLE} WHERE model = ? AND body IS NULL ORDER BY bucket LIMIT ${STALE_CHUNK}`,
        [list.model],
      )
      if (rows.length === 0) break
      await sql.transaction(() =>
        rebuildPages(
          sql,
          list,
          rows.map((r) => String(r.bucket)),
        ),
      )
      joined += rows.length
    }
  }
  return joined
}

/**
 * A page's generation: 48 random bits, exact in a JS number and in both engines' integers.
 * Two builds of one page drawing the same value (odds 2^-48) would let a reader keep the
 * bytes of the first (readPages).
 */
const newGen = (): number => randomBytes(6).readUIntBE(0, 6)

/**
 * The rows of one stored page (bucket `bucket`, page `seq`) from the read model, in the
 * list's order: a full-form page that holds a row the store cannot join is read this way.
 */
export function pageRowsSql(list: PagedList, columns: readonly string[], bucket: string, seq: number): { sql: string; params: SqlValue[] } {
  const order = list.order.map((k) => `${k.column} ${k.dir.toUpperCase()}`).join(', ')
  const where = list.day ? ` WHERE ${list.day} >= ? AND ${list.day} < ?` : ''
  return {
    sql: `SELECT ${columns.join(', ')} FROM ${list.model}${where} ORDER BY ${order} LIMIT ${PAGE_ROWS} OFFSET ?`,
    params: [...(list.day ? [bucket, dayAfter(bucket)] : []), seq * PAGE_ROWS],
  }
}

/** A page read from the store. */
export interface StoredPage {
  readonly bucket: string
  readonly seq: number
  /** The page's forms joined; null for a full-form page the store cannot join (read its rows). */
  readonly body: Buffer | null
  readonly n: number
  /** Where attachment contents go in `body` ('' for none; `blobs` of ready_pages). */
  readonly blobs: string
}

/** Pages read per statement; a bucket cut by the limit is read again page by page. */
const READ_LIMIT = 16

// The pages an answer starts with, kept by (model key, bucket, seq) with their generation:
// a request whose pages are all here at the generation the store names reads no bytes, only
// the pages' keys (an answer of 3 pages, 124 KB: 7 µs against 54 µs for the copies out of
// SQLite). A page rebuilt since has another generation and is read again. One cache per
// store connection, so that what one store's answers read never depends on another's.
interface PageCache {
  readonly pages: LRUCache<string, { readonly gen: number; readonly body: Buffer | null }>
  /** The pages' keys (models, and their full forms) with a page ever kept: only theirs are looked up first. */
  readonly kept: Set<string>
  /** Where each form of a kept short page ends and each row's sort keys, at the page's generation (readPageHead). */
  readonly places: LRUCache<string, PagePlaces>
  /** Model keys found with more pages than a directory holds: always named by statement. */
  readonly unlisted: Set<string>
}

/** A stored page's key, row count, attachment places and generation: what an answer names before its bytes. */
interface NamedPage {
  readonly bucket: string
  readonly seq: number
  readonly n: number
  readonly blobs: string
  readonly gen: number
}

interface PagePlaces {
  readonly gen: number
  /** The end in the page's body of each of its forms (its comma excluded). */
  readonly ends: readonly number[]
  /** Each row's sort keys, in the list's order. */
  readonly keys: readonly (readonly SqlValue[])[]
}

const caches = new WeakMap<SqlPort, PageCache>()

function cacheOf(sql: SqlPort): PageCache {
  let cache = caches.get(sql)
  if (cache === undefined) {
    cache = {
      pages: new LRUCache({ maxSize: sql.dialect.pageCache.bytes, sizeCalculation: (p) => (p.body?.length ?? 0) + 1 }),
      kept: new Set(),
      // A row's place and keys weigh some tens of bytes against its form's hundreds.
      places: new LRUCache({ maxSize: sql.dialect.pageCache.bytes / 8, sizeCalculation: (p) => p.ends.length * PLACE_BYTES + 1 }),
      unlisted: new Set(),
    }
    caches.set(sql, cache)
  }
  return cache
}

const cacheId = (key: string, bucket: string, seq: number): string => `${key}\t${bucket}\t${seq}`

/** The bytes alone: a view into a larger buffer (a PostgreSQL COPY's) would keep all of it alive. */
const own = (body: Buffer | null): Buffer | null => (body === null || body.byteLength === body.buffer.byteLength ? body : Buffer.from(body))

/** Which of a model key's stored pages an answer names, and in what order. */
interface Naming {
  readonly range: { readonly from: string; readonly toExclusive: string } | undefined
  readonly dir: 'asc' | 'desc'
  /** The first bucket a cursor's page may start in (the list's direction says on which side). */
  readonly day?: string
}

/** A model key's pages past which the connection does not keep them, reading them by statement instead. */
const DIRECTORY_PAGES = 20_000

/**
 * At most `count` stored pages of model key `key` in the list's order (bucket in its
 * direction, then seq): read from the connection's copy of the key's pages while the
 * store has seen no commit since it was read (SqlPort.commitsSeen), else by one statement.
 * Naming them by statement cost more than the rest of a small period's answer put
 * together: the columns after a page's body are read past its overflow pages.
 */
async function namedPages(sql: SqlPort, cache: PageCache, key: string, naming: Naming, count: number): Promise<readonly NamedPage[]> {
  if (sql.commitsSeen && !cache.unlisted.has(key)) {
    const pages = await whileUnchanged(sql, `pages\t${key}`, async () => {
      const rows = await sql.all<NamedPage>(
        `SELECT bucket, seq, n, blobs, gen FROM ${PAGES_TABLE} WHERE model = ? ORDER BY bucket, seq LIMIT ${DIRECTORY_PAGES + 1}`,
        [key],
      )
      if (rows.length <= DIRECTORY_PAGES) return rows.map(namedPage)
      cache.unlisted.add(key)
      return undefined
    })
    if (pages) return pagesIn(pages, naming, count)
  }
  let where = `model = ?${naming.range ? ' AND bucket >= ? AND bucket < ?' : ''}`
  const params: SqlValue[] = naming.range ? [key, naming.range.from, naming.range.toExclusive] : [key]
  if (naming.day !== undefined) {
    where += ` AND bucket ${naming.dir === 'asc' ? '>=' : '<='} ?`
    params.push(naming.day)
  }
  const rows = await sql.all<NamedPage>(
    `SELECT bucket, seq, n, blobs, gen FROM ${PAGES_TABLE} WHERE ${where} ORDER BY bucket ${naming.dir.toUpperCase()}, seq ASC LIMIT ${count}`,
    params,
  )
  return rows.map(namedPage)
}

const namedPage = (r: NamedPage): NamedPage => ({
  bucket: String(r.bucket),
  seq: Number(r.seq),
  n: Number(r.n),
  blobs: r.blobs ?? '',
  gen: Number(r.gen),
})

/** The first index of `pages` (by bucket ascending) whose bucket is at least `bucket` (`after`: above it). */
function boundOf(pages: readonly NamedPage[], bucket: string, after = false): number {
  let lo = 0
  let hi = pages.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const b = pages[mid]!.bucket
    if (b < bucket || (after && b === bucket)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** What namedPages' statement would return, taken from a key's pages in ascending order. */
function pagesIn(pages: readonly NamedPage[], naming: Naming, count: number): NamedPage[] {
  let start = naming.range ? boundOf(pages, naming.range.from) : 0
  let end = naming.range ? boundOf(pages, naming.range.toExclusive) : pages.length
  if (naming.day !== undefined) {
    if (naming.dir === 'asc') start = Math.max(start, boundOf(pages, naming.day))
    else end = Math.min(end, boundOf(pages, naming.day, true))
  }
  if (naming.dir === 'asc') return pages.slice(start, Math.min(end, start + count))
  // Buckets from the last, each bucket's pages in seq order.
  const out: NamedPage[] = []
  while (end > start && out.length < count) {
    const first = Math.max(start, boundOf(pages, pages[end - 1]!.bucket))
    for (let i = first; i < end && out.length < count; i++) out.push(pages[i]!)
    end = first
  }
  return out
}

/**
 * The stored pages of `list` for days in [from, toExclusive) (every bucket without a range),
 * in the list's order. `first` holds the answer's first pages, at most `limit`; `rest`, when
 * set, yields the others a statement at a time, so a long answer is never held whole.
 */
export async function readPages(
  sql: SqlPort,
  list: PagedList,
  range: { readonly from: string; readonly toExclusive: string } | undefined,
  full = false,
  limit = READ_LIMIT,
): Promise<{ readonly first: readonly StoredPage[]; readonly rest?: () => AsyncGenerator<StoredPage> }> {
  const key = full ? fullKey(list.model) : list.model
  const base = `model = ?${range ? ' AND bucket >= ? AND bucket < ?' : ''}`
  const baseParams: SqlValue[] = range ? [key, range.from, range.toExclusive] : [key]
  const dir = list.dir === 'asc' ? '>' : '<'
  const order = (pages: number) => `ORDER BY bucket ${list.dir.toUpperCase()}, seq ASC LIMIT ${pages + 1}`
  type Stored = { bucket: string; seq: number; body: Buffer | null; n: number; blobs: string | null; gen: number }
  const kinds = { bucket: 'text', seq: 'int', body: 'bytes', n: 'int', blobs: 'text', gen: 'int' } as const
  const columns = Object.keys(kinds).join(', ')
  // The pages' keys and generations alone: when the cache holds every one, they are the answer's pages.
  const pageCache = cacheOf(sql)
  const { pages: cache, kept } = pageCache
  const known = kept.has(key) ? await namedPages(sql, pageCache, key, { range, dir: list.dir }, limit + 1) : []
  if (known.length > 0 && known.length <= limit) {
    const bodies = new Map<string, Buffer | null>()
    const missing: NamedPage[] = []
    for (const r of known) {
      const id = cacheId(key, r.bucket, r.seq)
      const hit = cache.get(id)
      if (hit !== undefined && hit.gen === r.gen) bodies.set(id, hit.body)
      else missing.push(r)
    }
    // Pages an import rebuilt since (a sync's batch touches a day or two): only theirs are
    // read, each taken only at the generation the keys named, so the answer is still the
    // one state those keys came from; a page rebuilt again meanwhile reads the answer whole.
    if (missing.length > 0 && missing.length < known.length) {
      const buckets = [...new Set(missing.map((r) => r.bucket))]
      const rows = await sql.readBytes<Stored>(
        `SELECT ${columns} FROM ${PAGES_TABLE} WHERE model = ? AND bucket IN (${buckets.map(() => '?').join(', ')})`,
        [key, ...buckets],
        kinds,
      )
      for (const r of rows) {
        const id = cacheId(key, String(r.bucket), Number(r.seq))
        if (bodies.has(id) || !missing.some((m) => m.bucket === String(r.bucket) && m.seq === Number(r.seq) && m.gen === Number(r.gen)))
          continue
        const body = own(r.body)
        cache.set(id, { gen: Number(r.gen), body })
        bodies.set(id, body)
      }
    }
    if (bodies.size === known.length) {
      const first = known.map((r) => ({
        bucket: r.bucket,
        seq: r.seq,
        body: bodies.get(cacheId(key, r.bucket, r.seq))!,
        n: r.n,
        blobs: r.blobs,
      }))
      return { first }
    }
  }
  const read = (after?: string, pages = READ_LIMIT) =>
    sql.readBytes<Stored>(
      `SELECT ${columns} FROM ${PAGES_TABLE} WHERE ${base}${after === undefined ? '' : ` AND bucket ${dir} ?`} ${order(pages)}`,
      after === undefined ? baseParams : [...baseParams, after],
      kinds,
    )
  const page = (r: Stored): StoredPage => ({
    bucket: String(r.bucket),
    seq: Number(r.seq),
    body: r.body,
    n: Number(r.n),
    blobs: r.blobs ?? '',
  })
  const rows = await read(undefined, limit)
  if (rows.length <= limit) {
    if (rows.length > 0 && rows.reduce((n, r) => n + (r.body?.length ?? 0), 0) <= sql.dialect.pageCache.answerBytes) {
      kept.add(key)
      for (const r of rows) cache.set(cacheId(key, String(r.bucket), Number(r.seq)), { gen: Number(r.gen), body: own(r.body) })
    }
    return { first: rows.map(page) }
  }
  // The last bucket may continue past the limit: it is read page by page, then what follows it.
  const cut = (batch: Stored[], pages = READ_LIMIT) => {
    const last = batch[pages]!.bucket
    return { whole: batch.filter((r) => r.bucket !== last).map(page), last }
  }
  const head = cut(rows, limit)
  return {
    first: head.whole,
    rest: async function* () {
      let last = head.last
      for (;;) {
        for (let seq = 0; ; seq++) {
          const [row] = await sql.readBytes<Stored>(
            `SELECT ${columns} FROM ${PAGES_TABLE} WHERE model = ? AND bucket = ? AND seq = ?`,
            [key, last, seq],
            kinds,
          )
          if (!row) break
          yield page(row)
        }
        const next = await read(last)
        if (next.length <= READ_LIMIT) {
          for (const r of next) yield page(r)
          return
        }
        const more = cut(next)
        yield* more.whole
        last = more.last
      }
    },
  }
}

/** What one row's place and sort keys are counted as in the places' cache. */
const PLACE_BYTES = 96
/**
 * Pages named by readPageHead's statement: a few first (each named costs the engine a row
 * returned), more when they do not hold the page; a page that needs more still is read as rows.
 */
const HEAD_PAGES = [16, 64] as const
const COMMA = Buffer.from(',')

/** The first `rows` forms of a list, cut out of its kept short pages (readPageHead). */
export interface PageHead {
  /** The forms, comma-joined, in parts. */
  readonly parts: readonly Buffer[]
  readonly n: number
  /** The sort keys of the last row, when rows follow it: the next page's cursor. */
  readonly last?: readonly SqlValue[]
}

/**
 * The first `rows` short forms of `list` (days in [from, toExclusive) with a range; after
 * the row whose sort keys are `after`, with a cursor), cut out of the stored pages this
 * connection keeps at the generation the store names: a page of `limit` rows reads only the
 * pages' keys, as a period's answer does, where reading its rows made the engine send every
 * form's bytes (decision "A page cut out of kept pages"). Each page's forms' ends and rows'
 * sort keys are read once per generation with it. Null when the page is not all there this
 * way (a stale page, one rebuilt meanwhile, more pages than one statement names, a cursor's
 * row no longer in its day): the caller reads the rows.
 */
export async function readPageHead(
  sql: SqlPort,
  list: PagedList,
  range: { readonly from: string; readonly toExclusive: string } | undefined,
  rows: number,
  keyKinds: Readonly<Record<string, ColumnKind>>,
  after?: readonly SqlValue[],
): Promise<PageHead | null> {
  // A cursor's page starts in the day of its row.
  const day = after === undefined ? undefined : list.day ? after[0] : ''
  if (day !== undefined && typeof day !== 'string') return null
  const naming = { range, dir: list.dir, ...(day === undefined ? {} : { day: day.slice(0, 10) }) }
  for (const limit of HEAD_PAGES) {
    const pages = await namedPages(sql, cacheOf(sql), list.model, naming, limit)
    const head = await cutHead(sql, list, pages, pages.length === limit, rows, keyKinds, after)
    if (head !== MORE) return head
  }
  return null
}

/** Said by cutHead when the pages named do not hold the page but more follow them. */
const MORE = Symbol('more pages')

/** The page of `rows` forms cut out of `pages`, the list's stored pages from the request's start (`cut`, more after them). */
async function cutHead(
  sql: SqlPort,
  list: PagedList,
  pages: readonly HeadPage[],
  cut: boolean,
  rows: number,
  keyKinds: Readonly<Record<string, ColumnKind>>,
  after: readonly SqlValue[] | undefined,
): Promise<PageHead | null | typeof MORE> {
  const cache = cacheOf(sql)
  let skip = 0
  if (after !== undefined) {
    const at = await rowOf(sql, cache, list, pages, after, keyKinds)
    if (at === null) return cut && pages.every((p) => p.bucket === pages[0]!.bucket) ? MORE : null
    skip = at + 1
  }
  // Whole pages before the first row given are passed over; `from` is its place in its page.
  let first = 0
  while (first < pages.length && skip >= pages[first]!.n) skip -= pages[first++]!.n
  let available = -skip
  let end = first
  while (end < pages.length && available <= rows) available += pages[end++]!.n
  if (available <= rows && cut) return MORE
  const more = available > rows
  const parts: Buffer[] = []
  let left = rows
  let last: readonly SqlValue[] | undefined
  for (let i = first; i < end && left > 0; i++) {
    const page = pages[i]!
    const body = await keptBody(sql, cache, list.model, page)
    if (body === null) return null
    const from = i === first ? skip : 0
    const take = Math.min(left, page.n - from)
    left -= take
    // The page is cut, or its last row taken is the next cursor's: its places are needed.
    const ends = more && left === 0
    const places = from > 0 || ends ? await keptPlaces(sql, cache, list, page, body, keyKinds) : undefined
    if (places === null) return null
    if (parts.length > 0) parts.push(COMMA)
    const start = from > 0 ? places!.ends[from - 1]! + 1 : 0
    parts.push(from + take < page.n ? body.subarray(start, places!.ends[from + take - 1]) : body.subarray(start))
    if (ends) last = places!.keys[from + take - 1]
  }
  return { parts, n: rows - left, ...(last ? { last } : {}) }
}

/** The place among `pages` (from 0, over their rows in order) of the row whose sort keys are `keys`; null when it is not in the first day's pages. */
async function rowOf(
  sql: SqlPort,
  cache: PageCache,
  list: PagedList,
  pages: readonly HeadPage[],
  keys: readonly SqlValue[],
  keyKinds: Readonly<Record<string, ColumnKind>>,
): Promise<number | null> {
  let before = 0
  for (const page of pages) {
    if (page.bucket !== pages[0]!.bucket) return null
    const body = await keptBody(sql, cache, list.model, page)
    const places = body === null ? null : await keptPlaces(sql, cache, list, page, body, keyKinds)
    if (places === null) return null
    const at = places.keys.findIndex((k) => k.length === keys.length && k.every((v, i) => v === keys[i]))
    if (at >= 0) return before + at
    before += page.n
  }
  return null
}

type HeadPage = Pick<NamedPage, 'bucket' | 'seq' | 'n' | 'gen'>

/** A page's bytes at generation `page.gen`, kept or read; null when it has none or another generation now. */
async function keptBody(sql: SqlPort, cache: PageCache, key: string, page: HeadPage): Promise<Buffer | null> {
  const id = cacheId(key, page.bucket, page.seq)
  const hit = cache.pages.get(id)
  if (hit !== undefined && hit.gen === page.gen) return hit.body
  const [row] = await sql.readBytes<{ body: Buffer | null; gen: number }>(
    `SELECT body, gen FROM ${PAGES_TABLE} WHERE model = ? AND bucket = ? AND seq = ?`,
    [key, page.bucket, page.seq],
    { body: 'bytes', gen: 'int' },
  )
  if (row === undefined || Number(row.gen) !== page.gen) return null
  const body = own(row.body)
  cache.pages.set(id, { gen: page.gen, body })
  cache.kept.add(key)
  return body
}

/**
 * A page's forms' ends and rows' sort keys at generation `page.gen`, kept or read by one
 * statement that also names the page's generation (one statement sees one state of the store);
 * null when that is another, or the rows do not add up to `body`.
 */
async function keptPlaces(
  sql: SqlPort,
  cache: PageCache,
  list: PagedList,
  page: HeadPage,
  body: Buffer,
  keyKinds: Readonly<Record<string, ColumnKind>>,
): Promise<PagePlaces | null> {
  const id = cacheId(list.model, page.bucket, page.seq)
  const hit = cache.places.get(id)
  if (hit !== undefined && hit.gen === page.gen) return hit
  const columns = Object.keys(keyKinds)
  const genOf = `(SELECT gen FROM ${PAGES_TABLE} WHERE model = ? AND bucket = ? AND seq = ?) AS gen`
  const read = pageRowsSql(list, [...columns, 'octet_length(short) AS len', genOf], page.bucket, page.seq)
  const rows = await sql.readBytes<Row>(read.sql, [list.model, page.bucket, page.seq, ...read.params], {
    ...keyKinds,
    len: 'int',
    gen: 'int',
  })
  const ends: number[] = []
  let end = -1
  for (const r of rows) {
    if (Number(r.gen) !== page.gen) return null
    end += 1 + Number(r.len)
    ends.push(end)
  }
  if (rows.length !== page.n || end !== body.length) return null
  const places = { gen: page.gen, ends, keys: rows.map((r) => columns.map((c) => r[c] as SqlValue)) }
  cache.places.set(id, places)
  return places
}
