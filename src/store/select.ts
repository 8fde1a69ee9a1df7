// QueryPlan → SQL text and parameters. Values are always parameters; column names come
// only from endpoint declarations, never from the request.
import type { Condition, QueryPlan } from './plan.js'
import type { Dialect, SqlValue } from './sql.js'
import { suffixKeys } from './suffix.js'
import { containsSql } from './trigram.js'

export interface Compiled {
  readonly sql: string
  readonly params: readonly SqlValue[]
}

function condition(c: Condition, source: string, dialect: Dialect, params: SqlValue[]): string {
  switch (c.kind) {
    case 'contains': {
      const found = containsSql(dialect, { table: source, column: c.column, indexed: c.indexed }, c.value)
      params.push(...found.params)
      return found.text
    }
    case 'equals':
      params.push(c.value)
      return `${c.column} = ?`
    case 'range':
      params.push(c.from, c.toExclusive)
      return `${c.column} >= ? AND ${c.column} < ?`
    case 'sql':
      params.push(...c.params)
      return `(${c.text})`
  }
}

/**
 * One page of a plan. `after` holds the sort-key values of the last row of the previous
 * page (keyset pagination: each page is an index range, never an OFFSET scan).
 */
export function compilePage(plan: QueryPlan, dialect: Dialect, limit: number | 'all', after?: readonly SqlValue[]): Compiled {
  const params: SqlValue[] = []
  const where = plan.where.map((c) => condition(c, plan.source, dialect, params))
  if (after) {
    const keys = plan.orderBy
    // One direction throughout: a row-value comparison, which both engines read as one index
    // range (SQLite scans the whole index for the OR form).
    if (keys.every((k) => k.dir === keys[0]!.dir)) {
      params.push(...keys.map((_, i) => after[i] ?? null))
      where.push(`(${keys.map((k) => k.column).join(', ')}) ${keys[0]!.dir === 'asc' ? '>' : '<'} (${keys.map(() => '?').join(', ')})`)
    } else {
      const alternatives = keys.map((k, i) => {
        const eq = keys.slice(0, i).map((p, j) => {
          params.push(after[j] ?? null)
          return `${p.column} = ?`
        })
        params.push(after[i] ?? null)
        return `(${[...eq, `${k.column} ${k.dir === 'asc' ? '>' : '<'} ?`].join(' AND ')})`
      })
      where.push(`(${alternatives.join(' OR ')})`)
    }
  }
  const order = plan.orderBy.map((k) => `${k.column} ${k.dir.toUpperCase()}`).join(', ')
  // 'all': no LIMIT, under which SQLite sorts a large list in a cheaper way.
  if (limit !== 'all') params.push(limit)
  const sql =
    `SELECT ${plan.columns.join(', ')} FROM ${plan.source}` +
    (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
    ` ORDER BY ${order}${limit === 'all' ? '' : ' LIMIT ?'}`
  return { sql, params }
}

/** The number of rows of a plan (`n`). */
export function compileCount(plan: QueryPlan, dialect: Dialect): Compiled {
  const params: SqlValue[] = []
  const where = plan.where.map((c) => condition(c, plan.source, dialect, params))
  return { sql: `SELECT count(*) AS n FROM ${plan.source}` + (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''), params }
}

/** What one joined page says besides its bytes. */
export interface JoinedPageOptions {
  /** The column of ready JSON to join (`short`, or `full_form`). */
  readonly form: string
  /** Columns counted in `special` where not '' (rows the store cannot join: an `errors` entry, attachment contents). */
  readonly special?: readonly string[]
  /** The previous page's last sort-key values (compilePage). */
  readonly after?: readonly SqlValue[]
  /** `body` in the dialect's `bytes` form, for SqlPort.all (else stored bytes, for SqlPort.readBytes). */
  readonly encoded?: boolean
}

/**
 * One page as one blob of comma-joined ready forms (`body`), its row count (`n`) and the
 * number of `special` rows: one statement and one buffer per page instead of one per row
 * (the hot path of list endpoints).
 */
export function compileJoinedPage(
  plan: QueryPlan,
  dialect: Dialect,
  limit: number,
  options: JoinedPageOptions = { form: 'short' },
): Compiled {
  const special = options.special ?? []
  const page = compilePage(
    { ...plan, columns: [options.form, ...special, ...plan.orderBy.map((k) => k.column)] },
    dialect,
    limit,
    options.after,
  )
  const order = plan.orderBy.map((k) => `${k.column} ${k.dir.toUpperCase()}`).join(', ')
  const counts = special.length > 0 ? `, ${special.map((c) => `count(NULLIF(${c}, ''))`).join(' + ')} AS special` : ''
  const joined = dialect.concatPage(options.form, order)
  const encoded = options.encoded === true
  return {
    sql: `SELECT ${encoded ? dialect.bytes.select(joined) : joined} AS body, count(*) AS n${counts} FROM (${page.sql}) AS page`,
    params: page.params,
  }
}

/**
 * compileJoinedPage's page as rows, for an engine whose client joins them (Dialect.pageJoin):
 * each row's form and `special` columns (with `keys`, its sort keys too), in the page's
 * order (joinRows).
 */
export function compileJoinedRows(
  plan: QueryPlan,
  dialect: Dialect,
  limit: number,
  options: JoinedPageOptions & { readonly keys?: boolean } = { form: 'short' },
): Compiled {
  const keys = options.keys ? plan.orderBy.map((k) => k.column) : []
  return compilePage({ ...plan, columns: [options.form, ...(options.special ?? []), ...keys] }, dialect, limit, options.after)
}

const COMMA = Buffer.from(',')

/** compileJoinedPage's `body`, `n` and `special` of compileJoinedRows' `rows`. */
export function joinRows(
  rows: readonly Record<string, unknown>[],
  options: JoinedPageOptions = { form: 'short' },
): { body: Buffer | null; n: number; special: number } {
  const { parts, n, special } = joinedParts(rows, options)
  return { body: parts.length === 0 ? null : Buffer.concat(parts), n, special }
}

/** joinRows' body as its parts, forms and commas, for a caller that copies them once into more. */
export function joinedParts(
  rows: readonly Record<string, unknown>[],
  options: JoinedPageOptions = { form: 'short' },
): { parts: Buffer[]; n: number; special: number } {
  const parts: Buffer[] = []
  let special = 0
  for (const row of rows) {
    for (const c of options.special ?? []) if (row[c] !== '' && row[c] !== null && row[c] !== undefined) special++
    const form = row[options.form] as Buffer | null | undefined
    // As the aggregate: a NULL form is skipped, separator and all.
    if (form === null || form === undefined) continue
    if (parts.length > 0) parts.push(COMMA)
    parts.push(form)
  }
  return { parts, n: rows.length, special }
}

/**
 * The whole list of `plan` as one blob of records (Dialect.concatRecords, in the dialect's
 * `bytes` form): each row's `ref` and `short`, for rows a request prints one by one. Null
 * where the engine has no records.
 */
export function compileRecordsPage(plan: QueryPlan, dialect: Dialect): Compiled | null {
  if (!dialect.concatRecords) return null
  // The records keep the subquery's order (concatRecords), which sorts by columns it need not return.
  const page = compilePage({ ...plan, columns: ['ref', 'short'] }, dialect, 'all')
  const records = dialect.concatRecords([{ text: 'ref' }, { bytes: 'short' }])
  return { sql: `SELECT ${dialect.bytes.select(records)} AS body FROM (${page.sql}) AS page`, params: page.params }
}

/**
 * The whole answer of `plan` as one joined page of short forms (compileJoinedPage's `body`, `n`) when
 * its substring condition `bounded` may match at most `cap` rows, as the engine's index finds
 * them (the suffix index of an identifier column, else the trigram index): the statement
 * reads at most `cap + 1` candidates, and says how many in `cands`; over `cap`, rows may be
 * missing. Its cost is bounded by `cap` whatever the table holds, so the event loop can
 * afford it. Null where the engine cannot bound the read.
 */
export function compileBoundedPage(
  plan: QueryPlan,
  dialect: Dialect,
  bounded: Condition & { kind: 'contains' },
  cap: number,
): Compiled | null {
  const bound =
    (bounded.suffixed ? suffixKeys(plan.source, bounded.column, bounded.value, cap + 1) : null) ??
    dialect.trigram.bounded?.(plan.source, bounded.column, bounded.value, cap + 1)
  if (!bound) return null
  const params: SqlValue[] = []
  // One pass over the candidates: each is kept when every condition holds, and both
  // aggregates skip the others' NULLs. Substrings are tested exactly on the few candidates
  // (an index would read every row its value matches).
  const where = plan.where.map((c) =>
    c.kind === 'contains'
      ? (params.push(c.value), dialect.contains(`${plan.source}.${c.column}`))
      : condition(c, plan.source, dialect, params),
  )
  const order = plan.orderBy.map((k) => `${k.column} ${k.dir.toUpperCase()}`).join(', ')
  const rows =
    `SELECT ${['short', ...plan.orderBy.map((k) => k.column)].map((c) => `${plan.source}.${c}`).join(', ')}, CASE WHEN ${where.join(' AND ')} THEN 1 END AS hit ` +
    `FROM (${bound.keys}) AS bound JOIN ${plan.source} ON ${plan.source}.${bound.key} = bound.k`
  return {
    sql: `SELECT ${dialect.bytes.select(dialect.concatBytes(`CASE WHEN hit = 1 THEN short END`, order))} AS body, count(hit) AS n, count(*) AS cands FROM (${rows}) AS candidate`,
    params: [...params, ...bound.params],
  }
}

/**
 * The sort keys of a full page's last row, to continue after it: an index-range read of
 * the keys alone (an aggregate cannot name the last row on both engines without a window
 * over the page, which costs more than the page's join). With `rows` 2, the row after it
 * too, when there is one: whether another page follows, in the same statement.
 */
export function compilePageEnd(plan: QueryPlan, dialect: Dialect, limit: number, after?: readonly SqlValue[], rows = 1): Compiled {
  const page = compilePage({ ...plan, columns: plan.orderBy.map((k) => k.column) }, dialect, rows, after)
  return { sql: `${page.sql} OFFSET ?`, params: [...page.params, limit - 1] }
}
