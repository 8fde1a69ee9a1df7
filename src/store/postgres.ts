// PostgreSQL adapter. It depends only on a structural `query(sql, params) → { rows }`
// port, which both `pg` (Pool or Client) and PGlite (in-process PostgreSQL) satisfy.
import { createHash } from 'node:crypto'
import { copyRows, copyStream, inlineParams, textFromHex } from './pg-copy.js'
import type { Copy } from './pg-copy.js'
import { keyTable } from './sql.js'
import type { ColumnKind, Dialect, Row, SqlPort, SqlValue, TrigramDialect } from './sql.js'
import { likePattern } from './trigram.js'

const gin = (table: string, column: string): string => `${table}__${column}__trgm`

// A pg_trgm GIN index per searched column, used by LIKE '%…%' (the index is lossy: the
// server rechecks each candidate against the pattern, so LIKE alone is exact). PostgreSQL
// maintains it with the table.
const postgresTrigrams: TrigramDialect = {
  setup: 'CREATE EXTENSION IF NOT EXISTS pg_trgm',
  contains: (_table, column, needle, qualifier) => ({
    text: `${qualifier ? `${qualifier}.` : ''}${column} LIKE ?`,
    params: [likePattern(needle)],
  }),
  // The server collects the index's candidates (a bitmap) before the LIMIT, so its own work
  // grows with how common the needle's trigrams are; the caller's, which is what the bound
  // is for, does not: at most `limit` rows come back. LIKE is exact, so they are matches.
  bounded: (table, column, needle, limit) => ({
    keys: `SELECT ref AS k FROM ${table} WHERE ${column} LIKE ? LIMIT ${limit}`,
    params: [likePattern(needle)],
    key: 'ref',
  }),
  create: (table, columns) =>
    columns.map((c) => `CREATE INDEX IF NOT EXISTS ${gin(table, c)} ON ${table} USING gin (${c} gin_trgm_ops);`).join('\n'),
  drop: () => '',
  // GIN queues new entries in a pending list (up to 4 MB) and merges them at the next
  // VACUUM or when it overflows: after an import, every search scans the list, and the
  // planner, costing that, prefers scanning the table (0.06 vs 1.9 ms for one warehouse
  // of 6,000). Only the indexes the importing role owns can be merged by it.
  settle: (table) =>
    'SELECT count(gin_clean_pending_list(i.indexrelid)) AS n FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid ' +
    "JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = current_schema() AND c.relname LIKE '%\\_\\_trgm' " +
    "AND c.relam = (SELECT oid FROM pg_am WHERE amname = 'gin') AND pg_has_role(c.relowner, 'USAGE')" +
    (table ? ` AND i.indrelid = '${table}'::regclass` : ''),
  names: (table, columns) => columns.map((c) => gin(table, c)),
  existing: "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE '%\\_\\_trgm'",
}

type Result = Promise<{ rows: Row[]; rowCount?: number | null; affectedRows?: number }>

export interface PgQueryable {
  query(sql: string, params?: unknown[]): Result
  /** Multi-statement scripts (PGlite); `pg` runs them through `query` without parameters. */
  exec?(sql: string): Promise<unknown>
}

export const postgresDialect: Dialect = {
  name: 'postgres',
  // "C" collation compares code points, as SQLite does, so both engines sort alike.
  types: { text: 'TEXT COLLATE "C"', real: 'DOUBLE PRECISION', int: 'BIGINT', blob: 'BYTEA' },
  indexCarries: false,
  clusteredTable: '',
  contains: (column) => `strpos(${column}, ?) > 0`,
  trigram: postgresTrigrams,
  // A bytea comes as hex text (twice its size), which the server spells out and node-pg
  // decodes twice (UTF-8, then hex); Base64 text is a third smaller and decodes natively.
  // Binary results are no better: node-pg decodes every field as UTF-8 text first.
  bytes: {
    select: (expr) => `encode(${expr}, 'base64')`,
    value: (received) => (received === null || received === undefined ? null : Buffer.from(received as string, 'base64')),
  },
  concatBytes: (column, orderBy) => `string_agg(${column}, ','::bytea ORDER BY ${orderBy})`,
  concatPage: (column, orderBy) => `string_agg(${column}, ','::bytea ORDER BY ${orderBy})`,
  // Aggregating a page's forms into one bytea costs the server several times what sending
  // the same rows does, and their join here is one copy (decision "A page of forms joined by
  // the client on PostgreSQL").
  pageJoin: 'client',
  textFromHex,
  // ORed INs are subplans tested per row, each a scan of its table once that outgrows
  // work_mem (30 s a batch at scale 100); one IN over a UNION ALL is a hashed semi-join.
  inAny: (column, tables) => `${column} IN (${tables.map((t) => `SELECT ref FROM ${t}`).join(' UNION ALL ')})`,
  // An IN over the key table is a semi-join the planner hashes, reading the whole indexed
  // table for a batch's thousand refs (a request's basis traced for a batch of payments:
  // 24 ms at scale 100); an array read first is looked up ref by ref in the index (1.3 ms).
  inKeys: (column, table) => `${column} = ANY(ARRAY(SELECT ref FROM ${table}))`,
  // An array the planner sees whole: it knows how many values it holds and tests them by a
  // hash in one pass over the table, where an IN over a set-returning function is guessed at
  // a fixed row count and probes the key index once per value (docs/perf/designs.md "The
  // matching rows read first").
  inList: (column, values) => ({
    text: `${column} = ANY(?::text[])`,
    params: [`{${values.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`],
  }),
  // A value over ~2 KB is compressed (pglz) and moved out of line: writing a ready page
  // compressed its 10–700 KB, and every request decompressed it again. EXTERNAL keeps the
  // out-of-line chunks and drops the compression (about a fifth off a PostgreSQL import:
  // docs/perf/history.md); the store grows by what pglz had saved on those tables.
  uncompressed: {
    stored: "SELECT attname AS name FROM pg_attribute WHERE attrelid = to_regclass(?) AND attstorage = 'e' AND NOT attisdropped",
    keep: (table, column) => `ALTER TABLE ${table} ALTER COLUMN ${column} SET STORAGE EXTERNAL`,
  },
  // A page read is a round trip, the server's detoasting and sending, and node-pg's copies:
  // 2.8 ms for the 400 KB of a 3-day period of orders' full forms, against ~50 µs from a
  // SQLite file. Kept for any answer the event loop gives (at most 1 MiB, pipeline/run.ts
  // LOOP_BYTES), those requests went from ~400 to ~2,850/s at scale 100 (the pages of every
  // day of orders' full forms are 98 MB: the room holds them). Larger answers run in the
  // workers, one cache each: keeping theirs would multiply the memory by the workers.
  pageCache: { bytes: 128 * 1024 * 1024, answerBytes: 1024 * 1024 },
  writeBufferRows: 10_000,
  // A table's size now against its size at its last ANALYZE (relpages; 0 before any): the
  // transaction's own counts (pg_stat_xact_*) would do, but since PostgreSQL 15 they include
  // earlier transactions' counts not yet flushed. 64 KB: below it a table's estimates cannot
  // mislead a join by much.
  statistics: {
    changed:
      "SELECT c.oid::regclass::text AS name FROM pg_class c WHERE c.relkind = 'r' " +
      'AND c.relnamespace IN (current_schema()::regnamespace, pg_my_temp_schema()) ' +
      "AND pg_relation_size(c.oid) > greatest(65536, 1.2 * c.relpages * current_setting('block_size')::int) ORDER BY 1",
    // A sample of 3,000 rows, not 30,000: join estimates need the counts and distinct values,
    // which it gives, at a tenth of the cost (~1.2 s of a scale-10 import with the default).
    // The lock an ANALYZE takes is held to the commit: a table another writer or autovacuum
    // is analyzing is skipped rather than waited for (names come sorted, so two writers
    // analyzing the same tables could not wait on each other in a circle either).
    gather: (table) => `SET LOCAL default_statistics_target = 10; ANALYZE (SKIP_LOCKED) ${table}`,
  },
  // A DELETE leaves the rows' index entries until the transaction ends, and each refill's
  // inserts check its keys against them: 50,000 keys refilled twice took 62 → 224 → 278 ms.
  // TRUNCATE starts the table, and its index, anew (62 ms each time).
  empty: (table) => `TRUNCATE ${table}`,
}

/** `?` placeholders (outside quoted literals) → `$1, $2, …`. */
export function numberPlaceholders(sql: string): string {
  let out = ''
  let n = 0
  let quoted = false
  for (const ch of sql) {
    if (ch === "'") quoted = !quoted
    out += ch === '?' && !quoted ? `$${++n}` : ch
  }
  return out
}

/** A statement in PostgreSQL form, with a stable name for server-side preparation. */
interface Statement {
  readonly text: string
  /** Absent for a statement that must be planned with its values each time. */
  readonly name?: string
}

// After five executions PostgreSQL may keep a prepared statement's generic plan, made
// without the parameter values. For a substring condition it cannot tell a rare needle
// from a common one, nor the page's LIMIT, and on a read model of a few thousand rows it
// picks walking the sort order and filtering every row over the trigram index. A statement
// with that condition (the only `LIKE ?` docgate writes) goes unnamed: planned with its
// values at every execution, for a parse and a plan of a few tenths of a millisecond.
const plannedWithValues = (sql: string): boolean => sql.includes(' LIKE ?')

const converted = new Map<string, Statement>()
function statement(sql: string): Statement {
  let st = converted.get(sql)
  if (st === undefined) {
    const text = numberPlaceholders(sql)
    st = plannedWithValues(sql) ? { text } : { text, name: `dg_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}` }
    if (converted.size < 10_000) converted.set(sql, st)
  }
  return st
}

/** `pg` (Pool or Client): named statements are parsed and planned once per connection. */
export interface PgNamedQueryable extends PgQueryable {
  query(config: { name: string; text: string; values: unknown[] }): Result
  query(sql: string, params?: unknown[]): Result
}

// PostgreSQL refuses a NUL in text. The import refuses it in stored text on both engines,
// so a filter value holding one matches nothing either way (an empty match, not a 500).
const bind = (params: readonly SqlValue[]): unknown[] =>
  params.map((v) => (v === true ? 1 : v === false ? 0 : typeof v === 'string' && v.includes('\0') ? v.replaceAll('\0', '\uFFFF') : v))

/** PGlite returns bytea as Uint8Array; the rest of docgate expects Buffers. */
function decode(rows: Row[]): Row[] {
  for (const row of rows) {
    for (const key in row) {
      const v = row[key]
      if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[key] = Buffer.from(v.buffer, v.byteOffset, v.byteLength)
    }
  }
  return rows
}

const UNIQUE_VIOLATION = '23505'

/** Parameters per multi-row statement: under PostgreSQL's 65,535, in statements it parses quickly. */
const MAX_PARAMS = 30_000
/** Rows per unnest() statement: bounds one message's size, not the parameters (one per column). */
const UNNEST_ROWS = 20_000

export class PgStore implements SqlPort {
  readonly dialect = postgresDialect
  readonly readonly: boolean
  #db: PgQueryable
  #named: PgNamedQueryable | undefined
  #close: () => Promise<void>
  #copy: Copy | undefined
  #types = new Map<string, Map<string, string>>()
  #behind = new Set<Promise<void>>()
  readonly sibling?: () => Promise<SqlPort>

  /**
   * `named`: the queryable is `pg`, which prepares named statements (PGlite does not);
   * `copy`: how to run a binary COPY on it (readBytes, insertRows), where the client can.
   */
  constructor(
    db: PgQueryable,
    options: { readonly?: boolean; close?: () => Promise<void>; named?: boolean; copy?: Copy; sibling?: () => Promise<SqlPort> } = {},
  ) {
    this.#db = db
    this.#named = options.named ? (db as PgNamedQueryable) : undefined
    this.#copy = options.copy
    this.readonly = options.readonly ?? false
    this.#close = options.close ?? (async () => {})
    if (options.sibling) this.sibling = options.sibling
  }

  #query(sql: string, params: readonly SqlValue[]): Result {
    const st = statement(sql)
    const values = bind(params)
    return this.#named && st.name ? this.#named.query({ name: st.name, text: st.text, values }) : this.#db.query(st.text, values)
  }

  async all<T = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return decode((await this.#query(sql, params)).rows) as T[]
  }

  async readBytes<T = Row>(sql: string, params: readonly SqlValue[], columns: Readonly<Record<string, ColumnKind>>): Promise<T[]> {
    // PGlite hands bytea over as bytes already (decode makes them Buffers).
    if (!this.#copy) return this.all<T>(sql, params)
    return copyRows<T>(await this.#copy.out(`COPY (${inlineParams(sql, params)}) TO STDOUT (FORMAT binary)`), columns)
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    const result = await this.#query(sql, params)
    return result.rowCount ?? result.affectedRows ?? 0
  }

  async runMany(sql: string, rows: Iterable<readonly SqlValue[]>): Promise<void> {
    for (const row of rows) await this.#query(sql, row)
  }

  async insertRows(table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void> {
    if (rows.length === 0) return
    // One binary COPY stream where the client can: the server stores the rows without
    // parsing a statement that lists every value (unnest's arrays, VALUES' parameters).
    if (this.#copy) {
      const data = copyStream(rows, await this.#columnTypes(table, columns))
      if (data) return this.#copy.in(`COPY ${table} (${columns.join(', ')}) FROM STDIN (FORMAT binary)`, data)
    }
    await this.#bulk(table, columns, rows, '')
  }

  // In key order, the index grows at its right edge: 50,000 keys 105 → 62 ms.
  async fillKeys(table: string, refs: Iterable<string>): Promise<void> {
    await this.exec(keyTable(this.dialect, table))
    await this.run(this.dialect.empty(table))
    await this.insertRows(
      table,
      ['ref'],
      [...refs].sort().map((r) => [r]),
    )
  }

  async upsertRows(
    table: string,
    columns: readonly string[],
    key: readonly string[],
    rows: readonly (readonly SqlValue[])[],
  ): Promise<void> {
    const set = columns.filter((c) => !key.includes(c)).map((c) => `${c} = excluded.${c}`)
    await this.#bulk(
      table,
      columns,
      rows,
      `ON CONFLICT (${key.join(', ')}) DO ${set.length > 0 ? `UPDATE SET ${set.join(', ')}` : 'NOTHING'}`,
    )
  }

  /**
   * Where the client can COPY: the keys stored already are looked up, and the other rows
   * COPYed (10,000 new objects: 17 + 20 ms, against 88 ms for INSERT … ON CONFLICT DO NOTHING
   * RETURNING, which checks each row for a conflict in a way of its own). A key that another
   * writer stores in between fails the COPY with a unique violation: a savepoint takes it back,
   * and the statement that waits for the other writer and skips its keys runs instead. A key
   * of several columns goes straight to that statement: the lookup of such keys is planned by
   * the table's statistics, which a table filled since its last ANALYZE (sync_seen during a
   * scan) has wrong, and the plan then reads every stored key of the first column per lookup.
   */
  async insertNew(
    table: string,
    columns: readonly string[],
    rows: readonly (readonly SqlValue[])[],
    keys: readonly string[] = [columns[0]!],
  ): Promise<Set<string>> {
    const key = keys.at(-1)!
    if (rows.length === 0) return new Set()
    if (this.#copy && keys.length === 1 && key === columns[0]) {
      const stored = await this.selectIn<Row>(
        table,
        [key],
        key,
        rows.map((r) => r[0] as string),
      )
      const known = new Set(stored.map((r) => r[key]))
      const fresh = rows.filter((r) => !known.has(r[0] as string))
      await this.exec('SAVEPOINT docgate_insert_new')
      try {
        await this.insertRows(table, columns, fresh)
        await this.exec('RELEASE SAVEPOINT docgate_insert_new')
        return new Set(fresh.map((r) => r[0] as string))
      } catch (err) {
        if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err
        await this.exec('ROLLBACK TO SAVEPOINT docgate_insert_new; RELEASE SAVEPOINT docgate_insert_new')
      }
    }
    const inserted = await this.#bulk(table, columns, rows, `ON CONFLICT (${keys.join(', ')}) DO NOTHING RETURNING ${key} AS key`)
    return new Set(inserted.map((r) => r.key as string))
  }

  // One array parameter holds every key: no placeholder list to build, parse or bound.
  async selectIn<T = Row>(table: string, columns: readonly string[], column: string, keys: readonly string[]): Promise<T[]> {
    if (keys.length === 0) return []
    const result = await this.#db.query(`SELECT ${columns.join(', ')} FROM ${table} WHERE ${column} = ANY($1::text[])`, [keys])
    return decode(result.rows) as T[]
  }

  async deleteIn(table: string, column: string, keys: readonly string[], returning: readonly string[] = []): Promise<Row[]> {
    if (keys.length === 0) return []
    const tail = returning.length > 0 ? ` RETURNING ${returning.join(', ')}` : ''
    const result = await this.#db.query(`DELETE FROM ${table} WHERE ${column} = ANY($1::text[])${tail}`, [keys])
    return decode(result.rows)
  }

  /**
   * `INSERT INTO table (columns) <rows> tail`. Rows go as one array per column through
   * unnest(): a statement of a few parameters, parsed and planned in constant time, where a
   * VALUES list costs a parameter per cell. Binary columns (read-model short forms,
   * attachment chunks) would travel as hex inside array literals, twice their size; rows
   * holding them go as VALUES lists with binary parameters instead.
   */
  async #bulk(table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[], tail: string): Promise<Row[]> {
    if (rows.length === 0) return []
    const head = `INSERT INTO ${table} (${columns.join(', ')})`
    if (rows.some((row) => row.some((v) => Buffer.isBuffer(v)))) return this.#values(`${head} VALUES`, columns.length, rows, tail)
    const types = await this.#columnTypes(table, columns)
    const out: Row[] = []
    for (let i = 0; i < rows.length; i += UNNEST_ROWS) {
      const chunk = rows.length <= UNNEST_ROWS ? rows : rows.slice(i, i + UNNEST_ROWS)
      const arrays = columns.map(() => new Array<unknown>(chunk.length))
      chunk.forEach((row, r) => bind(row).forEach((v, c) => (arrays[c]![r] = v)))
      const unnest = types.map((t, c) => `$${c + 1}::${t}[]`).join(', ')
      const result = await this.#db.query(`${head} SELECT * FROM unnest(${unnest}) ${tail}`, arrays)
      for (const row of result.rows) out.push(row)
    }
    return out
  }

  /** The SQL types of `columns` of `table`, looked up once per table (read again for a column it lacks). */
  async #columnTypes(table: string, columns: readonly string[]): Promise<string[]> {
    let known = this.#types.get(table)
    if (!known || columns.some((c) => !known!.has(c))) {
      const rows = await this.#db.query(
        'SELECT attname AS name, format_type(atttypid, NULL) AS type FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped',
        [table],
      )
      known = new Map(rows.rows.map((r) => [r.name as string, r.type as string]))
      this.#types.set(table, known)
    }
    return columns.map((c) => {
      const type = known!.get(c)
      if (type === undefined) throw new Error(`column ${table}.${c} does not exist`)
      return type
    })
  }

  /** `head` VALUES-lists of `rows` `tail`, a statement per chunk under PostgreSQL's 65,535 parameters. */
  async #values(head: string, width: number, rows: readonly (readonly SqlValue[])[], tail: string): Promise<Row[]> {
    const out: Row[] = []
    const batch = Math.max(1, Math.floor(MAX_PARAMS / width))
    for (let i = 0; i < rows.length; i += batch) {
      const chunk = rows.slice(i, i + batch)
      const params: SqlValue[] = []
      const tuples = chunk.map((row) => {
        const start = params.length
        params.push(...row)
        return `(${row.map((_, j) => `$${start + j + 1}`).join(', ')})`
      })
      const result = await this.#db.query(`${head} ${tuples.join(', ')} ${tail}`, bind(params))
      for (const row of result.rows) out.push(row)
    }
    return decode(out)
  }

  async writeBehind(work: () => Promise<void>): Promise<{ readonly done: Promise<void> }> {
    const done = work()
    this.#behind.add(done)
    const settled = () => void this.#behind.delete(done)
    done.then(settled, settled)
    return { done }
  }

  /** Waits for the writes still running behind the caller; rejects with the first that failed. */
  async #caughtUp(): Promise<void> {
    for (const done of [...this.#behind]) await done
  }

  async exec(script: string): Promise<void> {
    if (this.#db.exec) await this.#db.exec(script)
    else await this.#db.query(script)
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.exec('BEGIN')
    try {
      const result = await work()
      await this.#caughtUp()
      await this.exec('COMMIT')
      return result
    } catch (err) {
      // A write still running would go on after the ROLLBACK, outside any transaction.
      await this.#caughtUp().catch(() => {})
      await this.exec('ROLLBACK').catch(() => {})
      throw err
    }
  }

  async close(): Promise<void> {
    await this.#close()
  }
}
