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
import { randomBytes } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Dialect, SqlPort, SqlValue } from './sql.js'
import { tableDdl } from './schema.js'
import type { ColumnDef, TableDef } from './table.js'
import { usesTrigrams } from './trigram.js'
import { readByOwner } from './by-owner.js'

/** A read model's words index: the folded `column` whose words key it, and the columns each entry `carry`s. */
export interface WordsIndex {
  readonly column: string
  readonly carry: readonly ColumnDef[]
}

export const wordsTable = (table: string): string => `${table}__words`
export const vocabularyTable = (table: string): string => `${table}__vocabulary`

const COMMA = Buffer.from(',')

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

/**
 * Deletes the entries of `index` whose primary key is one of `gone`'s rows (in key order):
 * listed in a temp table of the key's columns (one per index, so the next batch empties it
 * rather than creating it again), then one DELETE.
 */
async function deleteEntries(sql: SqlPort, index: TableDef, gone: readonly (readonly SqlValue[])[]): Promise<void> {
  if (gone.length === 0) return
  const list = `_${index.name}_gone`
  const key = index.primaryKey
  const type = (name: string) => sql.dialect.types[index.columns.find((c) => c.name === name)!.type]
  await sql.exec(`CREATE TEMP TABLE IF NOT EXISTS ${list} (${key.map((c) => `${c} ${type(c)}`).join(', ')})`)
  await sql.run(sql.dialect.empty(list))
  await sql.insertRows(list, key, gone)
  await sql.run(`DELETE FROM ${index.name} WHERE (${key.join(', ')}) IN (SELECT ${key.join(', ')} FROM ${list})`)
}

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
    await deleteEntries(sql, wordsTableDef(this.#table, key, this.#index), gone)
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

/**
 * A list model's items kept ready under each word of its rows: for a model whose rows live
 * in a rows model (`rows`, keyed by this model's ref and `rows.key`), one entry per word
 * and list row, keyed in the list's order (`order`, then ref), holding the item a request
 * for that word prints: the list row and only its rows holding the word. A needle that lies
 * inside one word of the vocabulary alone is then one range of ready items (decision
 * "Specifications by material read as ready items" in docs/perf/designs.md).
 */
export interface WordItemsIndex {
  /** This model's folded column holding its rows' texts joined: the words its entries are under. */
  readonly column: string
  /** This model's columns of the list's order, before ref (text columns of the model). */
  readonly order: readonly string[]
  /** The rows model, rebuilt before this one: its folded `column` has the words, `read` the bytes an item prints. */
  readonly rows: { readonly table: string; readonly key: string; readonly column: string; readonly read: readonly string[] }
  /** The item of one list row (its short form) under one word, from its rows holding the word, in key order. */
  readonly item: (short: Buffer, rows: readonly Readonly<Record<string, SqlValue>>[]) => Buffer
}

export const wordItemsTable = (table: string): string => `${table}__word_items`

const wordItemsTableDef = (table: string, index: WordItemsIndex): TableDef => ({
  name: wordItemsTable(table),
  columns: [
    { name: 'word', type: 'text' },
    ...index.order.map((name): ColumnDef => ({ name, type: 'text' })),
    { name: 'ref', type: 'text' },
    { name: 'item', type: 'blob' },
  ],
  primaryKey: ['word', ...index.order, 'ref'],
  clustered: true,
})

/**
 * Each word's generation: 48 random bits drawn anew by every write of its items, so that a
 * connection that read a word's items whole knows them still current by one key's lookup
 * (readWordItems), as ready pages are known by theirs (views/pages.ts).
 */
const wordGensTableDef = (table: string): TableDef => ({
  name: `${table}__word_gens`,
  columns: [
    { name: 'word', type: 'text' },
    { name: 'gen', type: 'int' },
  ],
  primaryKey: ['word'],
  clustered: true,
})

/** Part of a words-items model's signature: a change here rebuilds its index (views/migrate.ts). */
export const WORD_ITEMS_VERSION = 2

export const wordItemsDdl = (table: string, index: WordItemsIndex, dialect: Dialect): string =>
  `${tableDdl(wordItemsTableDef(table, index), dialect)}\n${tableDdl(wordGensTableDef(table), dialect)}`

export const dropWordItemsDdl = (table: string): string =>
  `DROP TABLE IF EXISTS ${wordItemsTable(table)};\nDROP TABLE IF EXISTS ${wordGensTableDef(table).name};`

const newGen = (): number => randomBytes(6).readUIntBE(0, 6)

/** Keeps a list model's ready items per word in step with a rebuild of its rows (WordItemsIndex). */
export class WordItemEntries {
  readonly #sql: SqlPort
  readonly #table: string
  readonly #index: WordItemsIndex

  constructor(sql: SqlPort, table: string, index: WordItemsIndex) {
    this.#sql = sql
    this.#table = table
    this.#index = index
  }

  /** Before the table is emptied (a whole rebuild). */
  async forgetAll(): Promise<void> {
    await this.#sql.run(`DELETE FROM ${wordItemsTable(this.#table)}`)
    await this.#sql.run(`DELETE FROM ${wordGensTableDef(this.#table).name}`)
  }

  /** The words whose items changed get a new generation. */
  async #renew(words: ReadonlySet<string>): Promise<void> {
    if (words.size === 0) return
    const gens = wordGensTableDef(this.#table)
    const list = [...words].sort()
    await deleteEntries(
      this.#sql,
      gens,
      list.map((w) => [w]),
    )
    await this.#sql.insertRows(
      gens.name,
      ['word', 'gen'],
      list.map((w) => [w, newGen()]),
    )
  }

  /** Before the list rows `where` selects are deleted: their items go, found by the words and order they held. */
  async forget(where: string): Promise<void> {
    const sql = this.#sql
    const { column, order } = this.#index
    const rows = await sql.all<Record<string, SqlValue>>(`SELECT ref, ${[...order, column].join(', ')} FROM ${this.#table} WHERE ${where}`)
    const gone: SqlValue[][] = []
    for (const row of rows) for (const word of wordsOf(String(row[column]))) gone.push([word, ...order.map((c) => row[c]!), row.ref!])
    await deleteEntries(sql, wordItemsTableDef(this.#table, this.#index), gone)
    await this.#renew(new Set(gone.map((g) => String(g[0]))))
  }

  /** List rows just written (`columns` name their values): their items under each word of their rows. */
  async written(columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void> {
    if (rows.length === 0) return
    const at = (name: string): number => {
      const i = columns.indexOf(name)
      if (i < 0) throw new Error(`${this.#table}: the word items need the column ${name}`)
      return i
    }
    const { order, rows: source, item } = this.#index
    const [ref, short] = [at('ref'), at('short')]
    const ordered = order.map(at)
    const refs = rows.map((r) => String(r[ref]))
    const read = await readByOwner<Record<string, SqlValue> & { owner: string }>(
      this.#sql,
      (list) =>
        `SELECT ref AS owner, ${[source.column, ...source.read].join(', ')} FROM ${source.table} ` +
        `WHERE ref IN (${list}) ORDER BY ref, ${source.key}`,
      refs,
      [],
      { owner: 'text', [source.column]: 'text', ...Object.fromEntries(source.read.map((c) => [c, 'bytes' as const])) },
    )
    const entries: SqlValue[][] = []
    for (const row of rows) {
      const under = new Map<string, Record<string, SqlValue>[]>()
      for (const r of read(String(row[ref]))) {
        for (const word of wordsOf(String(r[source.column]))) {
          const list = under.get(word)
          if (list) list.push(r)
          else under.set(word, [r])
        }
      }
      for (const [word, held] of under) entries.push([word, ...ordered.map((i) => row[i]!), row[ref]!, item(row[short] as Buffer, held)])
    }
    if (entries.length === 0) return
    // In the index's order: a batch's entries then land on neighbouring pages.
    entries.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0))
    await this.#sql.insertRows(wordItemsTable(this.#table), ['word', ...order, 'ref', 'item'], entries)
    await this.#renew(new Set(entries.map((e) => String(e[0]))))
  }
}

// The items of the words a connection read, with their words' generations, where docgate
// joins them (PostgreSQL): a request whose word still has that generation reads one key, not
// the items again (a common material's items are megabytes, each kilobyte out of the server a
// cost). They are the store's bytes, kept like the ready pages (views/pages.ts) and joined for
// each request; no answer is kept (decision "No answer is kept under --answer-cache 0").
// One cache per store connection, of at most the bytes it keeps of ready pages.
type KeptItems = { readonly gen: number; readonly items: readonly Buffer[]; readonly bytes: number }
const itemCaches = new WeakMap<SqlPort, LRUCache<string, KeptItems>>()

function itemCacheOf(sql: SqlPort): LRUCache<string, KeptItems> {
  let cache = itemCaches.get(sql)
  if (cache === undefined) {
    cache = new LRUCache({ maxSize: sql.dialect.pageCache.bytes, sizeCalculation: (e) => e.bytes + 1 })
    itemCaches.set(sql, cache)
  }
  return cache
}

/** Joined items are handed on in parts of about this size: no answer is one allocation of megabytes. */
const PART_BYTES = 256 * 1024

/**
 * The ready items under `word` (WordItemsIndex), in the list's order, joined by commas in
 * parts, and how many: one range of the index. `word` is a word of the vocabulary (stored text).
 */
export async function readWordItems(
  sql: SqlPort,
  table: string,
  index: WordItemsIndex,
  word: string,
): Promise<{ items: Buffer[]; n: number }> {
  const d = sql.dialect
  const order = [...index.order, 'ref'].join(', ')
  if (d.concatRecords) {
    // One value: the subquery's order is the index's own after its word, which the aggregate
    // keeps (decision "Joined pages keep the subquery's order").
    const [row] = await sql.all<{ items: unknown; n: number }>(
      `SELECT ${d.concatPage('item', order)} AS items, COUNT(*) AS n FROM ` +
        `(SELECT item, ${order} FROM ${wordItemsTable(table)} WHERE word = ? ORDER BY ${order}) AS i`,
      [word],
    )
    const items = d.bytes.value(row?.items)
    return { items: items === null ? [] : [items], n: Number(row?.n ?? 0) }
  }
  const [row] = await sql.all<{ gen: number }>(`SELECT gen FROM ${wordGensTableDef(table).name} WHERE word = ?`, [word])
  if (row === undefined) return { items: [], n: 0 }
  const gen = Number(row.gen)
  const cache = itemCacheOf(sql)
  const id = `${table}\t${word}`
  let kept = cache.get(id)
  if (kept?.gen !== gen) {
    // Read after the generation: a write in between leaves newer items under the older
    // generation, which the next request finds stale and reads again.
    const items = await readItems(sql, table, index, word)
    kept = { gen, items, bytes: items.reduce((n, b) => n + b.length, 0) }
    cache.set(id, kept)
  }
  return { items: joinInParts(kept.items), n: kept.items.length }
}

/** `items` joined by commas, cut into parts of `partBytes` or a little more (the last one less). */
export function joinInParts(items: readonly Buffer[], partBytes = PART_BYTES): Buffer[] {
  const parts: Buffer[] = []
  let group: Buffer[] = []
  let size = 0
  items.forEach((item, i) => {
    if (i > 0) {
      group.push(COMMA)
      size++
    }
    group.push(item)
    size += item.length
    if (size >= partBytes) {
      parts.push(Buffer.concat(group, size))
      group = []
      size = 0
    }
  })
  if (size > 0) parts.push(Buffer.concat(group, size))
  return parts
}

/** The items under `word`, each its own bytes, in the list's order (PostgreSQL). */
async function readItems(sql: SqlPort, table: string, index: WordItemsIndex, word: string): Promise<Buffer[]> {
  // PostgreSQL joins bytea slowly in an aggregate (tens of ms for megabytes), and its heap
  // keeps no key order: the ORDER BY sorted megabytes on disk past work_mem. The items come by
  // binary COPY (the word spelled as a key) with their keys as bytes, sorted here in the
  // order the text columns keep, COLLATE "C": their UTF-8 bytes.
  const keys = [...index.order, 'ref']
  const rows = await sql.readBytes<Record<string, Buffer | string>>(
    `SELECT ${keys.join(', ')}, item FROM ${wordItemsTable(table)} WHERE word = ${sql.dialect.textFromHex('?')}`,
    [Buffer.from(word).toString('hex')],
    Object.fromEntries([...keys, 'item'].map((c) => [c, 'bytes' as const])),
  )
  // PGlite, read without COPY, gives the text as strings.
  const bytes = (v: Buffer | string): Buffer => (typeof v === 'string' ? Buffer.from(v) : v)
  rows.sort((a, b) => {
    for (const k of keys) {
      const c = Buffer.compare(bytes(a[k]!), bytes(b[k]!))
      if (c !== 0) return c
    }
    return 0
  })
  // Each its own bytes: a view into a COPY's buffer would keep all of that buffer alive.
  return rows.map((r) => Buffer.from(bytes(r.item!)))
}
