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

/** The suffixes (as `suffix`, `ref`) of the values `rows` selects as `ref`, `value`. */
function suffixesOf(rows: string): string {
  return (
    `WITH RECURSIVE s (ref, suffix) AS (SELECT ref, value FROM (${rows}) AS v WHERE length(value) >= ${TRIGRAM_MIN} ` +
    `UNION ALL SELECT ref, substr(suffix, 2) FROM s WHERE length(suffix) > ${TRIGRAM_MIN}) SELECT suffix, ref FROM s`
  )
}

/** Every row's entries go (before the table is emptied). */
export const forgetSuffixes = (table: string, column: string): string => `DELETE FROM ${suffixTable(table, column)}`

/** After the table is filled anew: every row's entries come. */
export const rememberSuffixes = (table: string, column: string): string =>
  `INSERT INTO ${suffixTable(table, column)} (suffix, ref) ${suffixesOf(`SELECT ref, ${column} AS value FROM ${table}`)}`

/**
 * A rebuild of some rows keeps their entries where the value stays: the rows a sync
 * re-renders (their counterparty renamed, an attachment added) mostly keep their numbers,
 * and each number is ~10 entries. SUFFIX_BEFORE holds what `column` was in the rows about
 * to be rebuilt or removed (`keepSuffixed`), compared afterwards.
 */
export const SUFFIX_BEFORE = '_suffix_before'

export const suffixBeforeDdl = `CREATE TEMP TABLE IF NOT EXISTS ${SUFFIX_BEFORE} (col TEXT, ref TEXT, value TEXT, PRIMARY KEY (col, ref))`

/** Before the rows `where` selects are deleted: what `column` holds in them. */
export const keepSuffixed = (table: string, column: string, where: string): string =>
  `INSERT INTO ${SUFFIX_BEFORE} (col, ref, value) SELECT '${column}', ref, ${column} FROM ${table} WHERE ${where}`

/** After the rebuild: the entries of values that went or changed go (before rememberChanged). */
export const forgetChanged = (table: string, column: string): string =>
  `DELETE FROM ${suffixTable(table, column)} WHERE (suffix, ref) IN (${suffixesOf(
    `SELECT o.ref, o.value FROM ${SUFFIX_BEFORE} o WHERE o.col = '${column}' ` +
      `AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.ref = o.ref AND t.${column} = o.value)`,
  )})`

/** After the rebuild: the rows `where` selects (over `t`) whose value is new or changed get their entries. */
export const rememberChanged = (table: string, column: string, where: string): string =>
  `INSERT INTO ${suffixTable(table, column)} (suffix, ref) ${suffixesOf(
    `SELECT t.ref, t.${column} AS value FROM ${table} t WHERE ${where} ` +
      `AND NOT EXISTS (SELECT 1 FROM ${SUFFIX_BEFORE} o WHERE o.col = '${column}' AND o.ref = t.ref AND o.value = t.${column})`,
  )}`

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
