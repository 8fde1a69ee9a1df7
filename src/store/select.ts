// QueryPlan → SQL text and parameters. Values are always parameters; column names come
// only from endpoint declarations, never from the request.
import type { Condition, QueryPlan } from './plan.js'
import type { Dialect, SqlValue } from './sql.js'
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
export function compilePage(plan: QueryPlan, dialect: Dialect, limit: number, after?: readonly SqlValue[]): Compiled {
  const params: SqlValue[] = []
  const where = plan.where.map((c) => condition(c, plan.source, dialect, params))
  if (after) {
    const keys = plan.orderBy
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
  const order = plan.orderBy.map((k) => `${k.column} ${k.dir.toUpperCase()}`).join(', ')
  params.push(limit)
  const sql =
    `SELECT ${plan.columns.join(', ')} FROM ${plan.source}` +
    (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
    ` ORDER BY ${order} LIMIT ?`
  return { sql, params }
}

/**
 * The first page as one blob of comma-joined short forms and its row count: one buffer
 * per request instead of one per row (the hot path of list endpoints).
 */
export function compileJoinedPage(plan: QueryPlan, dialect: Dialect, limit: number): Compiled {
  const page = compilePage({ ...plan, columns: ['short', ...plan.orderBy.map((k) => k.column)] }, dialect, limit)
  const order = plan.orderBy.map((k) => `${k.column} ${k.dir.toUpperCase()}`).join(', ')
  return { sql: `SELECT ${dialect.concatBytes('short', order)} AS body, count(*) AS n FROM (${page.sql}) AS page`, params: page.params }
}
