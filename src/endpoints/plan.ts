// ParsedRequest → the database selection (QueryPlan) and the post-filters to run on its
// rows (spec § Common rules 6–7: the database selection first, then the post-filters).
import type { ListEndpoint } from './define.js'
import { listOrder } from './define.js'
import type { Condition, QueryPlan } from '../store/plan.js'
import type { Dialect, Row } from '../store/sql.js'
import { usesTrigrams } from '../store/trigram.js'
import { fold } from '../values/fold.js'
import { kopecks } from '../values/money.js'
import { messages } from '../values/messages.js'
import type { ParsedRequest } from './parse.js'

type PostFilter = (row: Row) => boolean

export interface Planned {
  readonly plan: QueryPlan
  readonly postFilters: readonly PostFilter[]
}

const AMOUNT = /^[+-]?\d+(?:[.,]\d+)?$/

const NOTHING: Condition = { kind: 'sql', text: '1 = 0', params: [] }

export function planQuery(ep: ListEndpoint, req: ParsedRequest, dialect: Dialect, extraColumns: readonly string[] = []): Planned {
  const where: Condition[] = []
  const postFilters: PostFilter[] = []
  const columns = new Set(['ref', 'short', ...ep.sort.map((s) => s.column), ...extraColumns])
  for (const p of ep.params) {
    const value = req.values.get(p.name)
    if (value === undefined) continue
    if (p.stage === 'database') {
      // Every column a substring filter names has a trigram index (endpoints/index.ts).
      if (p.match === 'contains') {
        where.push({ kind: 'contains', column: p.column, value: fold(value), indexed: true, ...(p.identifier ? { suffixed: true } : {}) })
      } else if (p.match === 'custom') {
        const c = p.condition(value, { dialect, options: req.options, values: req.values, issues: req.issues })
        if (c) where.push(c)
      } else if (p.match === 'flag') {
        const on = req.flags.get(p.name)
        if (on !== undefined) where.push({ kind: 'equals', column: p.column, value: on ? 1 : 0 })
      } else if (AMOUNT.test(value.trim())) {
        const k = kopecks(Number(value.trim().replace(',', '.')))
        // Beyond 2^53 kopecks (~90 trillion) no stored amount can be equal, and PostgreSQL's
        // BIGINT would refuse the parameter (`Infinity`, or out of range): match nothing.
        where.push(Number.isSafeInteger(k) ? { kind: 'equals', column: p.column, value: k } : NOTHING)
      } else req.issues.push(messages.badNumber(p.name, value))
    } else if (p.stage === 'post-filter') {
      if (p.match === 'contains') {
        const needle = fold(value)
        const column = p.column
        // The same test as a database condition keeps exactly the same rows (both are an AND
        // over the selection), and with an index it reads only the candidates, not the table.
        if (usesTrigrams(needle)) {
          where.push({ kind: 'contains', column, value: needle, indexed: true })
          continue
        }
        columns.add(column)
        postFilters.push((row) => String(row[column] ?? '').includes(needle))
      } else {
        p.columns.forEach((c) => columns.add(c))
        postFilters.push((row) => p.test(value, row))
      }
    }
  }
  if (ep.period) for (const r of req.ranges) where.push({ kind: 'range', column: ep.period.column, ...r })
  const orderBy = listOrder(ep)
  return {
    plan: { source: ep.readModel.table, columns: [...columns], where, orderBy },
    postFilters,
  }
}
