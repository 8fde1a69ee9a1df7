// What the four document lists (payments, receipts, orders, sorders) share: the database
// parameters and sort of spec § Endpoints, and the read-model SQL that prints references.
import { kopecks } from '../../values/money.js'
import { fold } from '../../values/fold.js'
import type { ColumnDef } from '../../store/table.js'
import type { Row, SqlValue } from '../../store/sql.js'
import { YES } from '../define.js'
import type { Param, Period } from '../define.js'
import type { SortKey } from '../../views/define.js'

/**
 * Read-model columns every document list has: its period column (stored
 * `YYYY-MM-DDTHH:MM:SS`, '' when empty), the number (sort and `code`), the amount in
 * kopecks (`summ`) and the posted flag (`approved`).
 */
export function documentColumns(periodColumn: string): ColumnDef[] {
  return [
    { name: periodColumn, type: 'text' },
    { name: 'number', type: 'text' },
    { name: 'number_f', type: 'text' },
    { name: 'amount_k', type: 'int' },
    { name: 'posted', type: 'int' },
  ]
}

/** Folded copies of printed fields for the post-filters (spec § Common rules 6). */
export const foldedColumns = (...names: string[]): ColumnDef[] => names.map((name) => ({ name, type: 'text' }))

/** `<name>_f`: the folded text of each named column of `r`, for foldedColumns() filters. */
export const foldedValues = (r: Row, ...names: string[]): Record<string, string> =>
  Object.fromEntries(names.map((n) => [`${n}_f`, fold(String(r[n]))]))

/** The values of documentColumns() from a row that selected `number`, `amount`, `posted` and the period column. */
export function documentValues(r: Row, periodColumn: string): Record<string, SqlValue> {
  return {
    [periodColumn]: String(r[periodColumn]),
    number: String(r.number),
    number_f: fold(String(r.number)),
    amount_k: kopecks(Number(r.amount)),
    posted: Number(r.posted),
  }
}

/** Serves the sort and the period range with one index scan. */
export const newestFirstIndex = (periodColumn: string): readonly string[] => [periodColumn, 'number', 'ref']

/** `from`/`to` only together, `date` one whole day (spec § Common rules 4). */
export const period = (column: string): Period => ({ column, date: true })

/** "sorted by date descending, then number descending" (each document endpoint). */
export const newestFirst = (periodColumn: string): SortKey[] => [
  { column: periodColumn, dir: 'desc' },
  { column: 'number', dir: 'desc' },
]

/** `code`, `summ` and `approved`: the database parameters of every document table. */
export const databaseParams: readonly Param[] = [
  { name: 'code', stage: 'database', match: 'contains', column: 'number_f', identifier: true },
  { name: 'summ', stage: 'database', match: 'amount', column: 'amount_k' },
  // Any value outside YES means "not posted" (spec § Common rules 2 names only the true values).
  { name: 'approved', stage: 'database', match: 'flag', column: 'posted', truthy: YES },
]

/** A post-filter: case-insensitive substring of a printed field, literals included. */
export const postFilter = (name: string, column: string, aliases?: readonly string[]): Param => ({
  name,
  stage: 'post-filter',
  match: 'contains',
  column,
  ...(aliases ? { aliases } : {}),
})

/**
 * Select items and joins that print reference columns of `s` as their presentations
 * (`objects.presentation`): an empty or dangling reference prints as ''.
 */
export function presentations(...columns: string[]): { readonly select: string; readonly joins: string } {
  return {
    select: columns.map((c) => `COALESCE(p_${c}.presentation, '') AS ${c}`).join(', '),
    joins: columns.map((c) => `LEFT JOIN objects p_${c} ON p_${c}.ref = s.${c}`).join(' '),
  }
}

/** 1 when the (composite) reference column `column` of `s` names a stored object, else 0. */
export const resolves = (column: string, as: string): string =>
  `(SELECT COUNT(*) FROM objects r_${column} WHERE r_${column}.ref = s.${column}) AS ${as}`

/** The attachments of `s` (ХранилищеДополнительнойИнформации whose Объект is it), those marked for deletion left out. */
export const attachmentCount = '(SELECT COUNT(*) FROM cat_attachments a WHERE a.object = s.ref AND a.deletion_mark = 0) AS attachments'

/** The short form stored in the read model, as an object to extend into the full form. */
export const shortForm = (row: Row): Record<string, unknown> =>
  JSON.parse((row.short as Buffer).toString('utf8')) as Record<string, unknown>
