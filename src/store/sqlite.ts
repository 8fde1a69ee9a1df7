// better-sqlite3 adapter. Synchronous underneath; the async surface is the port's.
import { existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { keyTable } from './sql.js'
import type { Dialect, Row, SqlPort, SqlValue, TrigramDialect } from './sql.js'
import { ftsPhrase } from './trigram.js'

const fts = (table: string): string => `${table}__trgm`

// One external-content FTS5 table per read model, over its searched columns, linked by rowid
// (read models are rowid tables; VACUUM keeps their rowids, and `rebuild` restores the index
// from the table if anything ever parts them). The columns hold folded text already, so the
// tokenizer must not fold again: `case_sensitive 1` keeps its trigrams exactly ours. The
// MATCH finds candidates; instr() keeps the exact literal test of the scan on them. Nothing
// is ranked, so no column sizes are kept (columnsize=0: one B-tree write less per row).
const sqliteTrigrams: TrigramDialect = {
  contains: (table, column, needle, qualifier) => {
    const q = qualifier ? `${qualifier}.` : ''
    return {
      text: `(${q}rowid IN (SELECT rowid FROM ${fts(table)} WHERE ${column} MATCH ?) AND instr(${q}${column}, ?) > 0)`,
      params: [ftsPhrase(needle), needle],
    }
  },
  // FTS5 walks its doclists lazily, so LIMIT bounds the walk. The MATCH alone (the phrase's
  // trigrams, without instr's exact recheck) may over-count, which only errs towards the pool.
  bounded: (table, column, needle, limit) => ({
    keys: `SELECT rowid AS k FROM ${fts(table)} WHERE ${column} MATCH ? LIMIT ${limit}`,
    params: [ftsPhrase(needle)],
    key: 'rowid',
  }),
  create: (table, columns) =>
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${fts(table)} USING fts5(${columns.join(', ')}, content='${table}', ` +
    `content_rowid='rowid', tokenize='trigram case_sensitive 1', columnsize=0);`,
  drop: (table) => `DROP TABLE IF EXISTS ${fts(table)};`,
  sync: {
    // External content: the index forgets a row by being told its indexed values again.
    forget: (table, columns, where) =>
      where === undefined
        ? `INSERT INTO ${fts(table)} (${fts(table)}) VALUES ('delete-all')`
        : `INSERT INTO ${fts(table)} (${fts(table)}, rowid, ${columns.join(', ')}) ` +
          `SELECT 'delete', rowid, ${columns.join(', ')} FROM ${table} WHERE ${where}`,
    remember: (table, columns, where) =>
      `INSERT INTO ${fts(table)} (rowid, ${columns.join(', ')}) SELECT rowid, ${columns.join(', ')} FROM ${table}` +
      (where === undefined ? '' : ` WHERE ${where}`),
    // A filled index is many segments; one merged segment halves a number search at scale
    // 100 (0.20 → 0.09 ms), for ~5 s over every table of a 1.2-million-object import.
    optimize: (table) => `INSERT INTO ${fts(table)} (${fts(table)}) VALUES ('optimize')`,
  },
  names: (table) => [fts(table)],
  existing: "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB '*__trgm'",
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  types: { text: 'TEXT', real: 'REAL', int: 'INTEGER', blob: 'BLOB' },
  indexCarries: true,
  clusteredTable: ' WITHOUT ROWID',
  contains: (column) => `instr(${column}, ?) > 0`,
  trigram: sqliteTrigrams,
  bytes: { select: (expr) => expr, value: (received) => (received ?? null) as Buffer | null },
  // The short forms are UTF-8 JSON, so joining them as text and casting back keeps the bytes.
  concatBytes: (column, orderBy) => `CAST(group_concat(${column}, ',' ORDER BY ${orderBy}) AS BLOB)`,
  // The page's subquery has ORDER BY and LIMIT, so SQLite runs it as a co-routine whose rows
  // the aggregate takes in order; an ORDER BY inside the aggregate would sort them again
  // (3× the page's cost). Decision "Joined pages keep the subquery's order".
  concatPage: (column) => `CAST(group_concat(${column}, ',') AS BLOB)`,
  // One value out of SQLite costs its client more than the join costs the engine.
  pageJoin: 'engine',
  // The subquery's order, as concatPage keeps it.
  textFromHex: (expr) => `CAST(unhex(${expr}) AS TEXT)`,
  concatRecords: (fields) =>
    `CAST(group_concat(${fields.map((f) => `ifnull(${'text' in f ? f.text : f.bytes}, '')`).join(" || x'1f' || ")}, x'1e') AS BLOB)`,
  // Each IN is an index lookup per row; one IN over a UNION ALL builds a list first (5 % slower imports).
  inAny: (column, tables) => tables.map((t) => `${column} IN (SELECT ref FROM ${t})`).join(' OR '),
  inKeys: (column, table) => `${column} IN (SELECT ref FROM ${table})`,
  // A unary + keeps the planner off the column's index, so the statement reads in its order.
  inList: (column, values, scan) => ({
    text: `${scan ? '+' : ''}${column} IN (SELECT value FROM json_each(?))`,
    params: [JSON.stringify(values)],
  }),
  // A page read from the file is a copy of ~50 µs per 100 KB; a kept buffer lives on into
  // V8's old generation and needs a full collection to go. Keeping the pages of every answer
  // (orders' full forms over random 3-day periods, ~390 KB each) made those 30 % slower.
  pageCache: { bytes: 64 * 1024 * 1024, answerBytes: 256 * 1024 },
  // Scale-10 import: young-generation collections 0.82 s with 10,000 rows, 0.43–0.53 s with 1,000
  // (2,000: 0.53–0.68; 500 and 250 no less).
  writeBufferRows: 1000,
  // Without a WHERE (and with no triggers) SQLite empties the table in one step already.
  empty: (table) => `DELETE FROM ${table}`,
}

const PAGE_SIZE = 16384

export interface SqliteOptions {
  readonly?: boolean
  /** How long a read waits for a writer's lock; kept short so a locked file gives a quick 500. */
  busyTimeoutMs?: number
}

// better-sqlite3 refuses JS booleans (WiseLibs/better-sqlite3#258). Only a list holding one
// is copied: an import binds ~600,000 rows, nearly all without.
const bind = (params: readonly SqlValue[]): readonly unknown[] =>
  params.includes(true) || params.includes(false) ? params.map((v) => (v === true ? 1 : v === false ? 0 : v)) : params

export class SqliteStore implements SqlPort {
  readonly dialect = sqliteDialect
  readonly readonly: boolean
  readonly db: Database.Database
  #statements = new Map<string, Database.Statement>()
  /** The column names of each reading statement whose rows #rows fills, null for the others. */
  #columns = new WeakMap<Database.Statement, readonly string[] | null>()

  constructor(path: string, options: SqliteOptions = {}) {
    this.readonly = options.readonly ?? false
    if (!this.readonly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    if (this.readonly && !existsSync(path)) throw new Error(`store missing: ${path}`)
    this.db = new Database(path, {
      readonly: this.readonly,
      fileMustExist: this.readonly,
      timeout: options.busyTimeoutMs ?? (this.readonly ? 200 : 5000),
    })
    if (!this.readonly) {
      // Only takes effect on a new file. Rows keyed by random UUIDs dirty one page per
      // object and index; larger pages mean fewer B-tree levels and splits for the same rows.
      this.db.pragma(`page_size = ${PAGE_SIZE}`)
      this.db.pragma('journal_mode = WAL')
      this.db.pragma('synchronous = NORMAL')
    }
    // A writer touches pages all over a large store (random UUID keys in every index): with
    // 64 MiB, `docgate demo --scale 100` (3.1 GB) spent 32–34 s of its ~140 s in the kernel
    // reading pages back; with 256 MiB 19–20 s, and 125–132 s in all (more gained nothing).
    this.db.pragma(this.readonly ? 'cache_size = -65536' : 'cache_size = -262144')
    if (this.readonly) {
      const version = this.db.prepare('PRAGMA data_version').pluck()
      this.commitsSeen = () => version.get() as number
    }
  }

  // SQLite's data_version: it moves when a read transaction of this connection finds a commit of another.
  readonly commitsSeen?: () => number

  statement(sql: string): Database.Statement {
    let stmt = this.#statements.get(sql)
    if (!stmt) {
      stmt = this.db.prepare(sql)
      this.#statements.set(sql, stmt)
    }
    return stmt
  }

  async all<T = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.#rows(this.statement(sql), bind(params)) as T[]
  }

  /**
   * A reading statement's rows as objects. better-sqlite3 builds each row object through
   * V8's API, property by property (~6 µs a row of 15 columns); taken as arrays and filled
   * into plain objects here, the rows share one hidden class per statement and cost a third
   * less (a page of 512 orders' goods: 17 → 11.5 ms).
   */
  #rows(stmt: Database.Statement, params: unknown): Row[] {
    let names = this.#columns.get(stmt)
    if (names === undefined) {
      names = stmt.reader ? stmt.columns().map((c) => c.name) : null
      if (names) stmt.raw(true)
      this.#columns.set(stmt, names)
    }
    if (names === null) return stmt.all(params) as Row[]
    const rows = stmt.all(params) as unknown[]
    const width = names.length
    for (let i = 0; i < rows.length; i++) {
      const values = rows[i] as unknown[]
      const row: Row = {}
      for (let j = 0; j < width; j++) row[names[j]!] = values[j]
      rows[i] = row
    }
    return rows as Row[]
  }

  // better-sqlite3 hands a BLOB over as a Buffer already.
  async readBytes<T = Row>(sql: string, params: readonly SqlValue[]): Promise<T[]> {
    return this.all<T>(sql, params)
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    return this.statement(sql).run(bind(params)).changes
  }

  async runMany(sql: string, rows: Iterable<readonly SqlValue[]>): Promise<void> {
    const stmt = this.statement(sql)
    for (const row of rows) stmt.run(bind(row))
  }

  // One prepared single-row INSERT per row: better-sqlite3 runs it several times faster
  // than a multi-row VALUES list (see docs/perf/history.md, import).
  async insertRows(table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void> {
    if (rows.length === 0) return
    const stmt = this.statement(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
    for (const row of rows) stmt.run(bind(row))
  }

  // One statement over a JSON array, its B-tree filled in key order: less than half the cost
  // of a random-order insert per key (the touched and seen refs of `demo --scale 100`, 1.2
  // million: scale 20 0.41 → 0.15 s).
  async fillKeys(table: string, refs: Iterable<string>): Promise<void> {
    this.db.exec(keyTable(this.dialect, table))
    this.statement(this.dialect.empty(table)).run()
    const list = [...refs]
    if (list.length > 0) this.statement(`INSERT INTO ${table} (ref) SELECT value FROM json_each(?) ORDER BY 1`).run(JSON.stringify(list))
  }

  async upsertRows(
    table: string,
    columns: readonly string[],
    key: readonly string[],
    rows: readonly (readonly SqlValue[])[],
  ): Promise<void> {
    if (rows.length === 0) return
    const set = columns.filter((c) => !key.includes(c)).map((c) => `${c} = excluded.${c}`)
    const stmt = this.statement(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ` +
        `ON CONFLICT (${key.join(', ')}) DO ${set.length > 0 ? `UPDATE SET ${set.join(', ')}` : 'NOTHING'}`,
    )
    for (const row of rows) stmt.run(bind(row))
  }

  async insertNew(
    table: string,
    columns: readonly string[],
    rows: readonly (readonly SqlValue[])[],
    key: readonly string[] = [columns[0]!],
  ): Promise<Set<string>> {
    const inserted = new Set<string>()
    if (rows.length === 0) return inserted
    const stmt = this.statement(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON CONFLICT (${key.join(', ')}) DO NOTHING`,
    )
    const at = columns.indexOf(key.at(-1)!)
    for (const row of rows) if (stmt.run(bind(row)).changes === 1) inserted.add(row[at] as string)
    return inserted
  }

  // In-process, a prepared one-key statement per key costs less than building an IN list.
  async selectIn<T = Row>(table: string, columns: readonly string[], column: string, keys: readonly string[]): Promise<T[]> {
    const stmt = this.statement(`SELECT ${columns.join(', ')} FROM ${table} WHERE ${column} = ?`)
    const rows: T[] = []
    for (const key of new Set(keys)) for (const row of this.#rows(stmt, [key])) rows.push(row as T)
    return rows
  }

  async deleteIn(table: string, column: string, keys: readonly string[], returning: readonly string[] = []): Promise<Row[]> {
    const rows: Row[] = []
    if (returning.length === 0) {
      const stmt = this.statement(`DELETE FROM ${table} WHERE ${column} = ?`)
      for (const key of keys) stmt.run(key)
    } else {
      const stmt = this.statement(`DELETE FROM ${table} WHERE ${column} = ? RETURNING ${returning.join(', ')}`)
      for (const key of keys) for (const row of this.#rows(stmt, [key])) rows.push(row)
    }
    return rows
  }

  // In-process and synchronous: nothing to overlap with.
  async writeBehind(work: () => Promise<void>): Promise<{ readonly done: Promise<void> }> {
    await work()
    return { done: Promise.resolve() }
  }

  async exec(script: string): Promise<void> {
    this.db.exec(script)
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    this.db.exec('BEGIN IMMEDIATE')
    try {
      const result = await work()
      this.db.exec('COMMIT')
      return result
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK')
      throw err
    }
  }

  async close(): Promise<void> {
    this.#statements.clear()
    if (this.db.open) this.db.close()
  }
}
