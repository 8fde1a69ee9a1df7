// The one seam between docgate and a SQL engine. Everything above it speaks plain SQL
// with `?` placeholders; an adapter translates what its engine needs (see dialect.ts).

export type SqlValue = string | number | boolean | null | Buffer
export type Row = Record<string, unknown>
/** How a column of a byte read (SqlPort.readBytes) comes back: text, an integer, or bytes (a Buffer). */
export type ColumnKind = 'text' | 'int' | 'bytes'

/** A session's temp table of keys (`ref`, its primary key) that statements join with, created when missing. */
export const keyTable = (dialect: Dialect, table: string): string =>
  `CREATE TEMP TABLE IF NOT EXISTS ${table} (ref ${dialect.types.text} PRIMARY KEY)`

/** A field of concatRecords: bytes, or text (UTF-8). */
type RecordField = { readonly bytes: string } | { readonly text: string }

export interface Dialect {
  readonly name: 'sqlite' | 'postgres'
  readonly types: { readonly text: string; readonly real: string; readonly int: string; readonly blob: string }
  /**
   * Whether an index may carry wide values (IndexDef `carry`). SQLite keeps a row's values
   * inline, so reading short forms through a table reads its full forms' pages as well;
   * PostgreSQL moves large values out of line already and bounds an index entry's size.
   */
  readonly indexCarries: boolean
  /** Table-definition suffix that stores rows in primary-key order ('' where that is the default or absent). */
  readonly clusteredTable: string
  /** SQL that is true when `column` (already folded) contains the folded parameter: a scan. */
  contains(column: string): string
  /** The trigram index over a read model's searched columns (store/trigram.ts). */
  readonly trigram: TrigramDialect
  /** Aggregate joining a blob column's values with commas, in `orderBy` order, as one blob. */
  concatBytes(column: string, orderBy: string): string
  /** `concatBytes` over a subquery that is already in `orderBy` order (one page of a list). */
  concatPage(column: string, orderBy: string): string
  /**
   * Who joins a page of ready forms a request reads (store/select.ts compileJoinedPage): the
   * engine, by concatPage, or the client, from the page's rows (compileJoinedRows, joinRows).
   * The ready pages the writer joins are joined by the engine either way.
   */
  readonly pageJoin: 'engine' | 'client'
  /**
   * Aggregate joining each row's `fields` into one record of store/records.ts (fields apart
   * by UNIT, records by RECORD; NULL as empty), all records as one blob: one value for many
   * rows, where each value a statement returns costs the client more than the bytes it
   * holds. Over a subquery already in the order it is to keep (as concatPage), or in any
   * order. Absent where one large value costs the client as much as many (PostgreSQL: its
   * bytes come as text either way, and a large value's Base64 is built in one piece).
   */
  readonly concatRecords?: (fields: readonly RecordField[]) => string
  /** The text whose UTF-8 bytes `expr` spells in hex: stored text passed to a byte read as a key (pg-copy.ts inlineParams). */
  textFromHex(expr: string): string
  /**
   * Stored bytes a request reads (ready pages and answers): `select` names them in the form
   * the engine's client receives fastest, `value` makes that a Buffer again (null stays null).
   */
  readonly bytes: { select(expr: string): string; value(received: unknown): Buffer | null }
  /** True when `column` is in any of the one-column (`ref`) `tables`, in the form the engine runs as lookups. */
  inAny(column: string, tables: readonly string[]): string
  /**
   * True when `column`, which has an index, is one of the refs of the one-column (`ref`)
   * `table`: a lookup in that index per ref, never a pass over the whole table.
   */
  inKeys(column: string, table: string): string
  /**
   * True when `column` is one of `values` (a list read before the statement), given as one
   * parameter in the form the engine reads as a list. With `scan`, tested on the rows the
   * statement reads in its order rather than looked up value by value: cheaper for many values.
   */
  inList(column: string, values: readonly string[], scan?: boolean): { readonly text: string; readonly params: SqlValue[] }
  /**
   * Where the engine compresses large values on its own: `stored` names the `whole` columns
   * (schema.ts) of table `?` that are kept uncompressed already, `keep` makes one so for the
   * rows written from then on. Absent where nothing is compressed (SQLite).
   */
  readonly uncompressed?: { readonly stored: string; keep(table: string, column: string): string }
  /**
   * What each serving connection keeps in memory of the ready pages it read
   * (views/pages.ts): `bytes` in all, and only the pages of answers of at
   * most `answerBytes`. Where a read is dear, more is worth keeping.
   */
  readonly pageCache: { readonly bytes: number; readonly answerBytes: number }
  /**
   * Rows (objects, tabular and register rows) the import's writer buffers before writing
   * them (import/writer.ts). Where each statement is a round trip, many; in-process, few:
   * a buffer held across statements is what V8's young-generation collections copy.
   */
  readonly writeBufferRows: number
  /**
   * Where the planner chooses joins by statistics that only a later, separate process
   * gathers (PostgreSQL's autovacuum, after the commit): `changed` names, as `name`, the
   * tables grown by more than a fifth since their statistics were last gathered,
   * and `gather` renews a table's statistics inside the transaction (store/statistics.ts).
   */
  readonly statistics?: { readonly changed: string; gather(table: string): string }
  /** Empties a session's temp table that the import refills, batch after batch, in one transaction. */
  empty(table: string): string
}

/** What an engine does for substring search through a trigram index (store/trigram.ts). */
export interface TrigramDialect {
  /** Run once per migration before any index is created; it may fail (no rights), which leaves the scan. */
  readonly setup?: string
  /** The folded `column` of read model `table` contains `needle` (folded, 3+ characters), through the
   *  index; `qualifier` is the table's name or alias in the query when it needs one. */
  contains(table: string, column: string, needle: string, qualifier?: string): { readonly text: string; readonly params: SqlValue[] }
  /**
   * At most `limit` rows of `table` whose `column` may hold `needle` (folded, 3+ characters),
   * read through the index at a cost bounded by `limit`, not by the table: `keys`, a query
   * naming them as `k`, and `key`, the column of `table` they are values of. The candidates
   * may over-count (the exact test is the caller's). Absent where the engine cannot bound the read.
   */
  bounded?(
    table: string,
    column: string,
    needle: string,
    limit: number,
  ): { readonly keys: string; readonly params: SqlValue[]; readonly key: string }
  /** Creates the index over `columns` of read model `table` (idempotent). */
  create(table: string, columns: readonly string[]): string
  /** Drops it with its table ('' where dropping the table drops it). */
  drop(table: string): string
  /**
   * Statements for an index the engine does not maintain itself: `forget` before the rows that
   * `where` selects are deleted, `remember` after they are inserted (every row without `where`).
   * Absent where the engine keeps the index in step (PostgreSQL).
   */
  readonly sync?: {
    forget(table: string, columns: readonly string[], where?: string): string
    remember(table: string, columns: readonly string[], where?: string): string
    /** Merges the index into one structure after it was filled whole (the fastest to search). */
    optimize?(table: string): string
  }
  /**
   * Run after an import's read-model writes where the engine buffers index entries for
   * later (PostgreSQL's GIN pending lists): merges them, so that searches read the index
   * rather than scan the buffer, and planners cost the index as it is. Those of `table`
   * only, when named.
   */
  settle?(table?: string): string
  /** Names of the index structures `create` makes, to check that they exist. */
  names(table: string, columns: readonly string[]): string[]
  /** SQL listing the names of existing trigram structures, one per row as `name`. */
  readonly existing: string
}

export interface SqlPort {
  readonly dialect: Dialect
  readonly readonly: boolean
  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>
  /**
   * Rows of a statement reading large stored bytes by key (ready pages and answers), received
   * the way the engine's client takes bytes fastest (PostgreSQL: a binary COPY, store/pg-copy.ts).
   * `columns` names the statement's columns in order and how each is read; its byte columns
   * are selected plainly, not through Dialect.bytes. A COPY takes no parameters, so they are
   * written into the statement: only keys docgate formed itself (names, validated days,
   * numbers), never request text — a string outside [A-Za-z0-9_:.-] is refused. For reads of
   * many KB: a COPY is planned each time, where `all` reuses a prepared statement.
   */
  readBytes<T = Row>(sql: string, params: readonly SqlValue[], columns: Readonly<Record<string, ColumnKind>>): Promise<T[]>
  run(sql: string, params?: readonly SqlValue[]): Promise<number>
  /** The same statement once per parameter row. */
  runMany(sql: string, rows: Iterable<readonly SqlValue[]>): Promise<void>
  /** Bulk insert (import), done the way the engine is fastest: multi-row statements over the
   *  network (PostgreSQL), one prepared single-row statement per row in-process (SQLite). */
  insertRows(table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void>
  /**
   * Makes the session's temp table `table` (one column `ref`, its primary key; created when
   * missing) hold exactly `refs`, no two alike: the key lists an import's statements join with
   * (`… IN (SELECT ref FROM table)`), filled the way the engine takes a list fastest.
   */
  fillKeys(table: string, refs: Iterable<string>): Promise<void>
  /**
   * Opens another writing connection to the same store, for work in transactions of its own
   * beside this one's (PostgreSQL: a second server process). Absent where the store takes
   * one writer at a time (SQLite).
   */
  sibling?(): Promise<SqlPort>
  /** Bulk insert that replaces the other columns of a row whose `key` columns are stored
   *  already; no two rows may share a key. Done the way insertRows is. */
  upsertRows(table: string, columns: readonly string[], key: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void>
  /** Bulk insert of the rows whose `key` (a primary key; by default the first column) is not
   *  stored yet; no two rows may share a key. Returns the values of the key's last column in
   *  the rows it inserted. Inside a transaction only. */
  insertNew(
    table: string,
    columns: readonly string[],
    rows: readonly (readonly SqlValue[])[],
    key?: readonly string[],
  ): Promise<Set<string>>
  /** `SELECT columns FROM table WHERE column IN keys`, in one statement where the engine gains by it. */
  selectIn<T = Row>(table: string, columns: readonly string[], column: string, keys: readonly string[]): Promise<T[]>
  /** `DELETE FROM table WHERE column IN keys`, returning the `returning` columns of the rows it deleted. */
  deleteIn(table: string, column: string, keys: readonly string[], returning?: readonly string[]): Promise<Row[]>
  /**
   * Runs `work`, a batch of import writes, beside the caller where the engine gains by it
   * (PostgreSQL: the server writes while the caller reads and checks the next lines) and
   * resolves at once with its `done`; elsewhere resolves when it is done. The transaction
   * it runs in waits for it before it ends, and fails with it.
   */
  writeBehind(work: () => Promise<void>): Promise<{ readonly done: Promise<void> }>
  exec(script: string): Promise<void>
  transaction<T>(work: () => Promise<T>): Promise<T>
  close(): Promise<void>
  /**
   * A number that moves whenever another connection has committed to the store since it was
   * last read, read now at the cost of no table: while it stands, what this connection read
   * earlier is what the store holds. Absent where the engine has none (PostgreSQL) and on a
   * connection that writes (its own commits do not move it).
   */
  commitsSeen?(): number
}
