// A suffix index for short identifier columns (document numbers, codes): every suffix of
// 3+ characters of each folded value, with its row's `ref`, in one B-tree. The rows whose
// value contains a needle are the entries in the range of suffixes that start with it, so
// a number lookup reads a few index entries where a trigram index intersects doclists
// (decision "Number lookup through a suffix index" in docs/decisions.md). Plain SQL on
// both engines: `substr` and `length` count characters on both, and both compare text by
// code point (SQLite's BINARY, PostgreSQL's "C" collation of every text column).
import type { Dialect, SqlValue } from './sql.js'
import { tableDdl } from './schema.js'
import type { TableDef } from './schema.js'
import { TRIGRAM_MIN } from './trigram.js'

export const suffixTable = (table: string, column: string): string => `${table}__${column}__suf`

export const suffixTableDef = (table: string, column: string): TableDef => ({
  name: suffixTable(table, column),
  columns: [
    { name: 'suffix', type: 'text' },
    { name: 'ref', type: 'text' },
  ],
  primaryKey: ['suffix', 'ref'],
  clustered: true,
})

/** The suffixes (as `suffix`, `ref`) of `column` of the rows of `table` that `where` selects (every row without it). */
function suffixesOf(table: string, column: string, where?: string): string {
  return (
    `WITH RECURSIVE s (ref, suffix) AS (SELECT ref, ${column} FROM ${table} WHERE length(${column}) >= ${TRIGRAM_MIN}` +
    `${where === undefined ? '' : ` AND (${where})`} UNION ALL SELECT ref, substr(suffix, 2) FROM s WHERE length(suffix) > ${TRIGRAM_MIN}) ` +
    'SELECT suffix, ref FROM s'
  )
}

/** Before the rows `where` selects are deleted (all without it): their entries go. */
export const forgetSuffixes = (table: string, column: string, where?: string): string =>
  where === undefined
    ? `DELETE FROM ${suffixTable(table, column)}`
    : `DELETE FROM ${suffixTable(table, column)} WHERE (suffix, ref) IN (${suffixesOf(table, column, where)})`

/** After the rows `where` selects are inserted (all without it): their entries come. */
export const rememberSuffixes = (table: string, column: string, where?: string): string =>
  `INSERT INTO ${suffixTable(table, column)} (suffix, ref) ${suffixesOf(table, column, where)}`

const MAX_CODE_POINT = 0x10ffff

/**
 * The least string above every string that starts with `prefix`, by code point: the prefix
 * with its last character raised by one (past the surrogates, which no stored text holds);
 * a last character at U+10FFFF is dropped and the one before it raised. Null when there is
 * none (the prefix is all U+10FFFF).
 */
export function prefixEnd(prefix: string): string | null {
  const chars = [...prefix]
  while (chars.length > 0) {
    const last = chars.pop()!.codePointAt(0)!
    if (last < MAX_CODE_POINT) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1
      return chars.join('') + String.fromCodePoint(next)
    }
  }
  return null
}

/**
 * Rows of `table` whose `column` contains `needle` (folded, 3+ characters): `keys` names at
 * most `limit` of their refs as `k`, each once (a value holding the needle twice has two
 * entries). SQLite stops at the limit; PostgreSQL collects the range first, on the server.
 * Null where no range bounds the prefix.
 */
export function suffixKeys(table: string, column: string, needle: string, limit: number): { keys: string; params: SqlValue[]; key: string } | null {
  const end = prefixEnd(needle)
  if (end === null) return null
  return {
    keys: `SELECT DISTINCT ref AS k FROM ${suffixTable(table, column)} WHERE suffix >= ? AND suffix < ? LIMIT ${limit}`,
    params: [needle, end],
    key: 'ref',
  }
}

/** The DDL of the suffix tables of `columns` of read model `table`. */
export const suffixDdl = (table: string, columns: readonly string[], dialect: Dialect): string =>
  columns.map((c) => tableDdl(suffixTableDef(table, c), dialect)).join('\n')
