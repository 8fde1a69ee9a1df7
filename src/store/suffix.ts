// A suffix index for short identifier columns (document numbers, codes): every suffix of
// 3+ characters of each folded value, with its row's `ref`, in one B-tree. The rows whose
// value contains a needle are the entries in the range of suffixes that start with it, so
// a number lookup reads a few index entries where a trigram index intersects doclists
// (decision "Number lookup through a suffix index" in docs/perf/designs.md). The entries are
// counted in characters (code points), and both engines compare text by code point
// (SQLite's BINARY, PostgreSQL's "C" collation of every text column).
import type { Dialect, SqlPort, SqlValue } from './sql.js'
import { tableDdl } from './schema.js'
import type { TableDef } from './table.js'
import { TRIGRAM_MIN } from './trigram.js'

export const suffixTable = (table: string, column: string): string => `${table}__${column}__suf`

const suffixTableDef = (table: string, column: string): TableDef => ({
  name: suffixTable(table, column),
  columns: [
    { name: 'suffix', type: 'text' },
    { name: 'ref', type: 'text' },
  ],
  primaryKey: ['suffix', 'ref'],
  clustered: true,
})

/** A value's suffixes of TRIGRAM_MIN+ characters (code points, as `length` and `substr` count on both engines), longest first. */
export function suffixesOf(value: string): string[] {
  const out: string[] = []
  // Code units are characters unless a surrogate pair is among them.
  const chars = /[\uD800-\uDFFF]/.test(value) ? [...value] : undefined
  const length = chars ? chars.length : value.length
  for (let i = 0; i + TRIGRAM_MIN <= length; i++) out.push(chars ? chars.slice(i).join('') : value.slice(i))
  return out
}

/** Entries leaving a suffix table are listed here, then deleted by one statement. */
const GONE = '_suffix_gone'

/**
 * Keeps a read model's suffix entries in step with a rebuild of its rows, computed here
 * from the values the rebuild writes. A row rebuilt with its value unchanged keeps its
 * entries — the rows a sync re-renders (their counterparty renamed, an attachment added)
 * mostly keep their numbers, and each number is ~10 entries — and the entries of a new
 * value go in with the batch of rows that holds it (a binary COPY on PostgreSQL).
 * Statements over the rebuilt rows joined with what they were would be planned by the
 * statistics of temp tables filled a moment before: PostgreSQL counted 1,048 rows as one
 * and compared them pairwise, 0.2 s a statement that wrote nothing.
 */
export class SuffixEntries {
  readonly #sql: SqlPort
  readonly #table: string
  readonly #columns: readonly string[]
  /** Per column: what it held in rows about to be rebuilt or removed, until they are rebuilt. */
  readonly #before = new Map<string, Map<string, string>>()

  constructor(sql: SqlPort, table: string, columns: readonly string[]) {
    this.#sql = sql
    this.#table = table
    this.#columns = columns
    for (const c of columns) this.#before.set(c, new Map())
  }

  /** Before the table is emptied (a whole rebuild): every row's entries go. */
  async forgetAll(): Promise<void> {
    for (const c of this.#columns) await this.#sql.run(`DELETE FROM ${suffixTable(this.#table, c)}`)
  }

  /** Before the rows `where` selects are deleted: what their columns hold. */
  async keep(where: string): Promise<void> {
    const rows = await this.#sql.all<Record<string, string>>(`SELECT ref, ${this.#columns.join(', ')} FROM ${this.#table} WHERE ${where}`)
    for (const row of rows) for (const c of this.#columns) this.#before.get(c)!.set(row.ref!, row[c]!)
  }

  /** Rows just written (`columns` name their values): their new or changed values' entries come, the former ones go. */
  async written(columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void> {
    const at = columns.indexOf('ref')
    for (const c of this.#columns) {
      const i = columns.indexOf(c)
      const before = this.#before.get(c)!
      const gone: string[][] = []
      const come: string[][] = []
      for (const row of rows) {
        const ref = row[at] as string
        const value = row[i] as string
        const old = before.get(ref)
        if (old !== undefined) before.delete(ref)
        if (old === value) continue
        if (old !== undefined) for (const s of suffixesOf(old)) gone.push([s, ref])
        for (const s of suffixesOf(value)) come.push([s, ref])
      }
      // First the old entries: an old and a new value may share a suffix.
      await this.#forget(c, gone)
      if (come.length > 0) await this.#sql.insertRows(suffixTable(this.#table, c), ['suffix', 'ref'], come)
    }
  }

  /** After the rebuild: rows kept and not rebuilt were removed, and their entries go. */
  async finish(): Promise<void> {
    for (const c of this.#columns) {
      const gone: string[][] = []
      for (const [ref, value] of this.#before.get(c)!) for (const s of suffixesOf(value)) gone.push([s, ref])
      this.#before.get(c)!.clear()
      await this.#forget(c, gone)
    }
  }

  async #forget(column: string, entries: readonly string[][]): Promise<void> {
    if (entries.length === 0) return
    const sql = this.#sql
    await sql.exec(`CREATE TEMP TABLE IF NOT EXISTS ${GONE} (suffix TEXT, ref TEXT)`)
    await sql.run(sql.dialect.empty(GONE))
    await sql.insertRows(GONE, ['suffix', 'ref'], entries)
    await sql.run(`DELETE FROM ${suffixTable(this.#table, column)} WHERE (suffix, ref) IN (SELECT suffix, ref FROM ${GONE})`)
  }
}

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
export function suffixKeys(
  table: string,
  column: string,
  needle: string,
  limit: number,
): { keys: string; params: SqlValue[]; key: string } | null {
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
