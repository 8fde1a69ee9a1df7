// The shape of a table as the schema, the views and the dialects describe it.

export interface ColumnDef {
  readonly name: string
  readonly type: 'text' | 'real' | 'int' | 'blob'
  /** Large values written once and read whole by requests: stored uncompressed where the engine would compress them (Dialect.uncompressed). */
  readonly whole?: boolean
}

/**
 * An index: its columns, or its columns and those it `carry`s where the engine lets an index
 * carry wide values (Dialect.indexCarries), so that a read of them in the index's order
 * reads the index alone; `where` makes it partial: only the rows that hold it are indexed,
 * and a statement that reads through it repeats the condition.
 */
export type IndexDef =
  | readonly string[]
  | { readonly columns: readonly string[]; readonly carry?: readonly string[]; readonly where?: string }

/** An index's columns, with those it carries where the engine `carries` them. */
export const indexColumns = (index: IndexDef, carries: boolean): readonly string[] =>
  'columns' in index ? [...index.columns, ...(carries ? (index.carry ?? []) : [])] : index

export interface TableDef {
  readonly name: string
  /** Stored in primary-key order (SQLite WITHOUT ROWID): one B-tree to write instead of two. */
  readonly clustered?: boolean
  readonly columns: readonly ColumnDef[]
  readonly primaryKey: readonly string[]
  readonly indexes?: readonly IndexDef[]
}
