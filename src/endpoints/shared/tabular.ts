// Tabular parts of a page's documents, read for the `full` forms when the import rebuilds
// them (every reference in a row is traced, so a renamed object rebuilds the forms that
// print it: views/rebuild.ts), and the per-document failure handling the spec asks
// for (§ Errors: a problem with a single document goes to `errors`; the others stay in `data`).
import { numberDate } from '../../values/printed.js'
import { messages } from '../../values/messages.js'
import type { Row } from '../../store/sql.js'
import type { OwnersQuery } from '../../store/by-owner.js'
import { orEmpty } from './row.js'

/** The short form kept in the read model, as an object the full form extends. */
export const shortOf = (row: Row): Record<string, unknown> => JSON.parse((row.short as Buffer).toString('utf8')) as Record<string, unknown>

/** One printed row: `Номенклатура`, `ЕдиницаИзмерения` (and `ХарактеристикаНоменклатуры`) are presentations. */
export interface PartRow {
  readonly owner: string
  readonly row_number: string
  readonly nomenclature: string | null
  readonly characteristic?: string | null
  readonly unit: string | null
  readonly quantity: number
}

/**
 * Rows of a tabular part with `Номенклатура`, `ЕдиницаИзмерения`, `Количество` (and, for
 * goods transfers, `ХарактеристикаНоменклатуры`), in the stored order (for readByOwner).
 */
export function partQuery(table: string, withCharacteristic = false): OwnersQuery {
  return (list) =>
    `SELECT t.owner, t.row_number, n.presentation AS nomenclature, u.presentation AS unit, t.quantity` +
    (withCharacteristic ? ', c.presentation AS characteristic' : '') +
    ` FROM ${table} t LEFT JOIN objects n ON n.ref = t.nomenclature LEFT JOIN objects u ON u.ref = t.unit` +
    (withCharacteristic ? ' LEFT JOIN objects c ON c.ref = t.characteristic' : '') +
    ` WHERE t.owner IN (${list}) ORDER BY t.owner, t.line`
}

/** How an `errors` entry names a document: `<kind> <Номер> от <DD.MM.YYYY>` (read-model columns `number`, `doc_date`). */
export const documentLabel = (kind: string, row: Row): string => `${kind} ${numberDate(orEmpty(row.number), orEmpty(row.doc_date))}`

export type PartResult<T> = { readonly rows: T; readonly issue?: undefined } | { readonly rows?: undefined; readonly issue: string }

/** One document's tabular part (e.g. from readByOwner); its read failure becomes the `errors` entry the caller reports. */
export function tryPart<T>(read: () => T, what: string, part: string): PartResult<T> {
  try {
    return { rows: read() }
  } catch (err) {
    return { issue: messages.tabularRead(what, part, err instanceof Error ? err.message : String(err)) }
  }
}
