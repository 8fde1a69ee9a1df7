// A words index of a read model's rows: each row kept again under every word of one of its
// folded columns, carrying the columns an answer prints, in one B-tree ordered by word and
// then by the row's key. A needle made of one word's characters (letters and digits) lies
// inside one word of every value that contains it, so the rows holding it are the entries
// under the vocabulary's words that contain it — for a common word one range of ready rows
// in the row's key order, where a trigram index names rows scattered over the model's
// table (decision "Specifications by material read through a words index" in
// docs/perf/designs.md). Words are counted in code points, as the trigram index counts
// them: a needle of fewer than TRIGRAM_MIN characters is not looked up here, so shorter
// words are left out.
import type { Dialect, SqlPort, SqlValue } from './sql.js'
import { tableDdl } from './schema.js'
import type { ColumnDef, TableDef } from './table.js'
import { usesTrigrams } from './trigram.js'

/** A read model's words index: the folded `column` whose words key it, and the columns each entry `carry`s. */
export interface WordsIndex {
  readonly column: string
  readonly carry: readonly ColumnDef[]
}

export const wordsTable = (table: string): string => `${table}__words`
export const vocabularyTable = (table: string): string => `${table}__vocabulary`

/** A word: a run of letters and digits (any script); everything else separates. */
const SEPARATORS = /[^\p{L}\p{N}]+/u

/** The distinct words of `value` with TRIGRAM_MIN or more characters, in order of first appearance. */
export function wordsOf(value: string): string[] {
  const out = new Set<string>()
  for (const word of value.split(SEPARATORS)) if (usesTrigrams(word)) out.add(word)
  return [...out]
}

/** Whether `needle` lies inside one word wherever it occurs, with enough characters for the index. */
export const isWordPart = (needle: string): boolean => !SEPARATORS.test(needle) && usesTrigrams(needle)

const wordsTableDef = (table: string, rowKey: string, index: WordsIndex): TableDef => ({
  name: wordsTable(table),
  columns: [{ name: 'word', type: 'text' }, { name: 'ref', type: 'text' }, { name: rowKey, type: 'int' }, ...index.carry],
  primaryKey: ['word', 'ref', rowKey],
  clustered: true,
})

const vocabularyTableDef = (table: string): TableDef => ({
  name: vocabularyTable(table),
  columns: [{ name: 'word', type: 'text' }],
  primaryKey: ['word'],
  clustered: true,
})

/** The DDL of a model's words index and vocabulary. */
export const wordsDdl = (table: string, rowKey: string, index: WordsIndex, dialect: Dialect): string =>
  `${tableDdl(wordsTableDef(table, rowKey, index), dialect)}\n${tableDdl(vocabularyTableDef(table), dialect)}`

export const dropWordsDdl = (table: string): string =>
  `DROP TABLE IF EXISTS ${wordsTable(table)};\nDROP TABLE IF EXISTS ${vocabularyTable(table)};`

/** Entries leaving the words index are listed here, then deleted by one statement. */
const GONE = '_words_gone'

/**
 * Keeps a read model's words index in step with a rebuild of its rows, from the values the
 * rebuild writes. Every rebuilt row's entries are written again (they carry what it prints,
 * which may change while its words do not). The vocabulary only grows between whole
 * rebuilds: a word no row holds any more finds no entries, which costs one empty range.
 */
export class WordEntries {
  readonly #sql: SqlPort
  readonly #table: string
  readonly #rowKey: string
  readonly #index: WordsIndex

  constructor(sql: SqlPort, table: string, rowKey: string, index: WordsIndex) {
    this.#sql = sql
    this.#table = table
    this.#rowKey = rowKey
    this.#index = index
  }

  /** Before the table is emptied (a whole rebuild). */
  async forgetAll(): Promise<void> {
    await this.#sql.run(`DELETE FROM ${wordsTable(this.#table)}`)
    await this.#sql.run(`DELETE FROM ${vocabularyTable(this.#table)}`)
  }

  /** Before the rows `where` selects are deleted: their entries go, found by the words of what they hold. */
  async forget(where: string): Promise<void> {
    const sql = this.#sql
    const key = this.#rowKey
    const rows = await sql.all<Record<string, SqlValue>>(
      `SELECT ref, ${key}, ${this.#index.column} AS words FROM ${this.#table} WHERE ${where}`,
    )
    const gone: SqlValue[][] = []
    for (const row of rows) for (const word of wordsOf(String(row.words))) gone.push([word, row.ref!, row[key]!])
    if (gone.length === 0) return
    await sql.exec(`CREATE TEMP TABLE IF NOT EXISTS ${GONE} (word TEXT, ref TEXT, k INTEGER)`)
    await sql.run(sql.dialect.empty(GONE))
    await sql.insertRows(GONE, ['word', 'ref', 'k'], gone)
    await sql.run(`DELETE FROM ${wordsTable(this.#table)} WHERE (word, ref, ${key}) IN (SELECT word, ref, k FROM ${GONE})`)
  }

  /** Rows just written (`columns` name their values): their entries, and their words in the vocabulary. */
  async written(columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void> {
    const at = (name: string): number => {
      const i = columns.indexOf(name)
      if (i < 0) throw new Error(`${this.#table}: the words index needs the column ${name}`)
      return i
    }
    const [ref, key, value] = [at('ref'), at(this.#rowKey), at(this.#index.column)]
    const carried = this.#index.carry.map((c) => at(c.name))
    const entries: SqlValue[][] = []
    const vocabulary = new Set<string>()
    for (const row of rows) {
      for (const word of wordsOf(String(row[value]))) {
        entries.push([word, row[ref]!, row[key]!, ...carried.map((i) => row[i]!)])
        vocabulary.add(word)
      }
    }
    if (entries.length === 0) return
    // In the index's order: a batch's entries then land on neighbouring pages.
    entries.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0))
    const names = ['word', 'ref', this.#rowKey, ...this.#index.carry.map((c) => c.name)]
    await this.#sql.insertRows(wordsTable(this.#table), names, entries)
    await this.#sql.insertNew(
      vocabularyTable(this.#table),
      ['word'],
      [...vocabulary].map((w) => [w]),
    )
  }
}
