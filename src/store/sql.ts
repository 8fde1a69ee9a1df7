// The one seam between docgate and a SQL engine. Everything above it speaks plain SQL
// with `?` placeholders; an adapter translates what its engine needs (see dialect.ts).

export type SqlValue = string | number | boolean | null | Buffer
export type Row = Record<string, unknown>

export interface Dialect {
  readonly name: 'sqlite' | 'postgres'
  readonly types: { readonly text: string; readonly real: string; readonly int: string; readonly blob: string }
  /** Table-definition suffix that stores rows in primary-key order ('' where that is the default or absent). */
  readonly clusteredTable: string
  /** SQL that is true when `column` (already folded) contains the folded parameter. */
  contains(column: string): string
  /** Aggregate joining a blob column's values with commas, in `orderBy` order, as one blob. */
  concatBytes(column: string, orderBy: string): string
}

export interface SqlPort {
  readonly dialect: Dialect
  readonly readonly: boolean
  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>
  run(sql: string, params?: readonly SqlValue[]): Promise<number>
  /** The same statement once per parameter row. */
  runMany(sql: string, rows: Iterable<readonly SqlValue[]>): Promise<void>
  /** Bulk insert (import), done the way the engine is fastest: multi-row statements over the
   *  network (PostgreSQL), one prepared single-row statement per row in-process (SQLite). */
  insertRows(table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void>
  exec(script: string): Promise<void>
  transaction<T>(work: () => Promise<T>): Promise<T>
  close(): Promise<void>
}
