// The shape of a table as the schema, the views and the dialects describe it.

export interface ColumnDef {
  readonly name: string
  readonly type: 'text' | 'real' | 'int' | 'blob'
  /** Large values written once and read whole by requests: stored uncompressed where the engine would compress them (Dialect.uncompressed). */
  readonly whole?: boolean
}

export interface TableDef {
  readonly name: string
  /** Stored in primary-key order (SQLite WITHOUT ROWID): one B-tree to write instead of two. */
  readonly clustered?: boolean
  readonly columns: readonly ColumnDef[]
  readonly primaryKey: readonly string[]
  readonly indexes?: readonly (readonly string[])[]
}
