// The vocabulary of views: what is built from stored objects and kept for serving (read
// models with their short and full forms, ready pages, ready answers, derived tables), and
// the catalogue of them that endpoints declare and hand down to migrate, import and sync.
import type { ColumnDef, IndexDef, TableDef } from '../store/table.js'
import type { Row, SqlPort, SqlValue } from '../store/sql.js'
import type { WordItemsIndex, WordsIndex } from '../store/words.js'

export interface SortKey {
  readonly column: string
  readonly dir: 'asc' | 'desc'
}

/** How a list's read model is cut into pages. */
export interface PagedList {
  /** The read model table. */
  readonly model: string
  /** Whether the model keeps full forms: they get pages of their own (`fullKey`). */
  readonly full: boolean
  /** The period column whose day (its first 10 characters) is the bucket; none: one bucket ''. */
  readonly day?: string
  /** The order of buckets: the list's first sort key. */
  readonly dir: 'asc' | 'desc'
  /** The list's whole order: its sort keys, then `ref`. */
  readonly order: readonly SortKey[]
}

/**
 * What the store keeps for an endpoint: one row per source object with the columns its
 * filters and sort need and the short (and, for documents, the full) form as ready JSON,
 * rebuilt at import whenever the object or anything it prints changes.
 */
export interface ReadModel<Short = unknown> {
  readonly table: string
  /**
   * Bumped whenever what the model stores or prints changes (its `build`, its select, the
   * endpoint's full form): a store holding rows of another version rebuilds them at migrate.
   * The version, not the code's text, says so: reformatting the code rebuilds nothing.
   */
  readonly version: number
  /** Model table the rows come from; `ref` is its key. */
  readonly source: string
  /**
   * For a model with several rows per source object (a tabular part's rows, keyed by
   * owner): the column that tells an owner's rows apart and orders them. The table's key
   * is then (`ref`, rowKey), and `select` yields one row per pair.
   */
  readonly rowKey?: string
  /** Dependencies beyond the source's own columns, for a model without a full form (with one: StoredFull.traces). */
  readonly traces?: readonly FullTrace[]
  readonly columns: readonly ColumnDef[]
  readonly indexes?: readonly IndexDef[]
  /**
   * Folded columns that substring filters look in, each with a trigram index (store/trigram.ts).
   * The columns of the endpoint's `contains` parameters are added by the registry
   * (endpoints/index.ts); name here only those other filters search (custom conditions).
   */
  readonly search?: readonly string[]
  /** Searched columns of short identifiers, each also with a suffix index (set by the registry from `identifier` parameters). */
  readonly suffixed?: readonly string[]
  /**
   * For a model with `rowKey`: its rows kept again under the words of a folded column
   * (store/words.ts), each entry carrying what a request prints of the row.
   */
  readonly words?: WordsIndex
  /** For a list model: its items kept ready under each word of its rows (store/words.ts WordItemsIndex). */
  readonly wordItems?: WordItemsIndex
  /** Select list and FROM clause over the source aliased `s` (joins allowed). */
  readonly select: string
  readonly build: (row: Row) => { readonly values: Readonly<Record<string, SqlValue>>; readonly short: Short }
  /** The full form kept ready beside the short one (set by the registry from the endpoint, endpoints/index.ts). */
  readonly full?: StoredFull
  /** The list's short forms kept joined by bucket (set by the registry for list endpoints, views/pages.ts). */
  readonly pages?: PagedList
  /**
   * The printed fields a client knows a row of the list by (`Номер` and the date, `Код`),
   * listed under `removed` once no row prints them (views/changes.ts; set by the registry
   * for list endpoints). Not part of the signature: it changes no row.
   */
  readonly identity?: readonly string[]
}

/**
 * A dependency of full forms that the model's own columns do not show: `sql` selects (as
 * `ref`) the source objects whose full form may change when objects listed in the temp
 * table `_touched` change; it runs only when one of `types` was touched.
 */
export interface FullTrace {
  /** Object types (`Справочник.Номенклатура`, `Документ.*`) whose change may reach the forms. */
  readonly types: readonly string[]
  readonly sql: string
}

/** How the import builds a model's full forms: the endpoint's own builder, without request parameters. */
export interface StoredFull {
  readonly service: string
  readonly page: (ctx: RequestContext, rows: readonly Row[]) => Promise<(row: Row) => FullResult>
  readonly traces: readonly FullTrace[]
  /** Part of the model's signature (views/migrate.ts): the shared full-form version and the traces. */
  readonly signature: string
}

export interface RequestContext {
  readonly sql: SqlPort
  /** The clock (tests inject one); cashflows' open periods end today. */
  readonly now: () => Date
  readonly options: Readonly<Record<string, boolean>>
  readonly flags: ReadonlyMap<string, boolean>
  readonly values: ReadonlyMap<string, string>
}

/** The full form of one row, or the problem that kept it out of `data`. */
export type FullResult = { readonly value: unknown; readonly issue?: string } | { readonly value?: undefined; readonly issue: string }

export interface ReadyAnswer {
  /** Its key in the ready table; its meta key (`ready:<name>`) holds the version it was built by. */
  readonly name: string
  /** Bump when what `build` prints changes without its read model's definition changing. */
  readonly version: number
  /** The read model it is printed from: rebuilt whenever migrate rebuilds that model. */
  readonly readModel: string
  /** The catalogue behind that read model, and its reference columns whose targets' presentations it prints. */
  readonly source: { readonly table: string; readonly type: string; readonly columns: readonly string[] }
  readonly build: (sql: SqlPort) => Promise<Buffer>
}

export interface DerivedTable {
  /** Its meta key (`derived:<name>`) holds the definition signature. */
  readonly name: string
  /** Bump when what the update computes changes: the tables are then rebuilt whole. */
  readonly version: number
  readonly tables: readonly TableDef[]
  /** The register table (`reg_*`) it is derived from. */
  readonly source: string
  /** Indexes on the source that the update needs. */
  readonly sourceIndexes?: readonly (readonly string[])[]
  /** Indexes on the source that earlier versions made and none needs now: dropped by migrate. */
  readonly retiredSourceIndexes?: readonly (readonly string[])[]
  /** Source columns that locate the derived rows a source row feeds. */
  readonly keyColumns: readonly string[]
  /** The key of those derived rows, from a source row's keyColumns values (in that order). */
  readonly key: (values: readonly SqlValue[]) => string
  /** Rebuilds the derived rows of the given keys from the source; 'all': every row. */
  readonly update: (sql: SqlPort, keys: ReadonlySet<string> | 'all') => Promise<void>
}

/**
 * Every view the store keeps, as the endpoints declare them (endpoints/index.ts `VIEWS`):
 * handed down to migrate, import and sync, which rebuild them without importing endpoints.
 */
export interface ViewCatalog {
  /** Every read model, the support models first: they are rebuilt before the models that read them. */
  readonly models: readonly ReadModel[]
  /** Read models that serve filters and forms of endpoints rather than one endpoint's rows. */
  readonly support: readonly ReadModel[]
  readonly derived: readonly DerivedTable[]
  readonly answers: readonly ReadyAnswer[]
}
