// The vocabulary every endpoint file speaks. An endpoint is data that mirrors its table
// in the spec; the pipeline (pipeline/run.ts) is the only code that interprets it.
import type { ColumnDef } from '../store/table.js'
import type { ResponseShapes } from './responses.js'
import type { PagedList } from './shared/ready-pages.js'
import type { Condition } from '../store/plan.js'
import type { Dialect, Row, SqlPort, SqlValue } from '../store/sql.js'

/** Spellings that mean true, compared case-insensitively (spec § Common rules 2). */
export type Truthy = readonly string[]
export const YES: Truthy = ['1', 'true', 'yes', 'да']
export const NO: Truthy = ['0', 'false', 'no', 'нет']

interface Named {
  /** Exactly as in the spec table. */
  readonly name: string
  /** Other accepted names (receipts: `contactor`, `supplier` → `contractor`). */
  readonly aliases?: readonly string[]
  /** The key itself is matched case-insensitively (receipts and morders `full`). */
  readonly keyCaseInsensitive?: boolean
  /** `/` is sent as `_slash_`. */
  readonly slash?: boolean
}

export type Param = Named &
  (
    | {
        readonly stage: 'database'
        readonly match: 'contains'
        readonly column: string
        /** The column holds short identifiers (numbers, codes): also kept in a suffix index (store/suffix.ts). */
        readonly identifier?: true
      }
    | { readonly stage: 'database'; readonly match: 'amount'; readonly column: string }
    | {
        readonly stage: 'database'
        readonly match: 'custom'
        /** Engine-neutral SQL over the read model (e.g. an EXISTS over a tabular part); values as parameters. */
        readonly condition: (value: string, ctx: ParamContext) => Condition | undefined
      }
    | {
        readonly stage: 'database'
        readonly match: 'flag'
        readonly column: string
        readonly truthy: Truthy
        /** When given, values in neither set are ignored with an `errors` entry; otherwise they mean false. */
        readonly falsy?: Truthy
      }
    | { readonly stage: 'post-filter'; readonly match: 'contains'; readonly column: string }
    | {
        readonly stage: 'post-filter'
        readonly match: 'custom'
        readonly columns: readonly string[]
        readonly test: (value: string, row: Row) => boolean
      }
    | { readonly stage: 'option'; readonly truthy: Truthy; readonly falsy?: Truthy }
    | { readonly stage: 'raw' }
  )

/** `from` and `to` on a date column, only together (spec § Common rules 4). */
export interface Period {
  readonly column: string
  /** Whether a `date` parameter (one whole day) exists. */
  readonly date: boolean
}

export interface SortKey {
  readonly column: string
  readonly dir: 'asc' | 'desc'
}

/**
 * What the store keeps for an endpoint: one row per source object with the columns its
 * filters and sort need and the short (and, for documents, the full) form as ready JSON,
 * rebuilt at import whenever the object or anything it prints changes.
 */
export interface ReadModel {
  readonly table: string
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
  readonly indexes?: readonly (readonly string[])[]
  /**
   * Folded columns that substring filters look in, each with a trigram index (store/trigram.ts).
   * The columns of the endpoint's `contains` parameters are added by the registry
   * (endpoints/index.ts); name here only those other filters search (custom conditions).
   */
  readonly search?: readonly string[]
  /** Searched columns of short identifiers, each also with a suffix index (set by the registry from `identifier` parameters). */
  readonly suffixed?: readonly string[]
  /** Select list and FROM clause over the source aliased `s` (joins allowed). */
  readonly select: string
  readonly build: (row: Row) => { readonly values: Readonly<Record<string, SqlValue>>; readonly short: unknown }
  /** The full form kept ready beside the short one (set by the registry from the endpoint, endpoints/index.ts). */
  readonly full?: StoredFull
  /** The list's short forms kept joined by bucket (set by the registry for list endpoints, shared/ready-pages.ts). */
  readonly pages?: PagedList
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
  /** Part of the model's signature, so a changed builder rebuilds stored forms (store/migrate.ts). */
  readonly signature: string
}

/** What a custom condition may consult: the other parameters, the options and the SQL dialect. */
export interface ParamContext {
  /** For engine-specific fragments such as `dialect.contains(column)` inside an EXISTS. */
  readonly dialect: Dialect
  readonly options: Readonly<Record<string, boolean>>
  readonly values: ReadonlyMap<string, string>
  readonly issues: string[]
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

/** Cross-parameter rules, each with its `errors` message (spec wording where it gives one). */
export interface Rule {
  readonly when: string
  readonly needsAnyOf: readonly string[]
  readonly message: string
  /** What happens to the `when` option if the rule is broken. */
  readonly then: 'drop-option' | 'keep'
}

export interface ListEndpoint {
  readonly kind: 'list'
  readonly service: string
  readonly operationId: string
  /** The printed shape of a `data` item, short and `full` (responses.ts). */
  readonly response: ResponseShapes
  readonly readModel: ReadModel
  readonly period?: Period
  readonly params: readonly Param[]
  readonly rules?: readonly Rule[]
  readonly sort: readonly SortKey[]
  /**
   * The full forms of a page of rows: reads what the page needs with a few queries whatever
   * its size (shared/by-owner.ts) and returns the builder of one row's form from that data,
   * which runs no queries of its own. The import runs it over each batch of rebuilt rows and
   * stores the forms (import/read-models.ts); a request runs it only when `fullStored` says
   * the form depends on its parameters. A row whose builder throws leaves `data` with an
   * `errors` entry.
   */
  readonly fullPage?: (ctx: RequestContext, rows: readonly Row[]) => Promise<(row: Row) => FullResult>
  /** Whether the `full` form applies for this request (default: the `full` option). */
  readonly fullWhen?: (ctx: RequestContext) => boolean
  /** Extra columns the full builder needs from the read model row. */
  readonly fullColumns?: readonly string[]
  /**
   * Whether this request's full form is the one kept ready in the store (default: always).
   * A form that depends on request parameters (specifications' rows filtered by `material`)
   * is built per request by `fullPage`.
   */
  readonly fullStored?: (ctx: RequestContext) => boolean
  /** Dependencies of the full form beyond the source's own columns and tabular parts (import/read-models.ts). */
  readonly fullTraces?: readonly FullTrace[]
}

/** A `data` array printed by its endpoint: the JSON text of the array, and how many items it holds. */
export interface PrintedData {
  readonly json: Buffer
  readonly count: number
}

/** An endpoint whose `data` is computed as a whole (materials tree, cash statement). */
export interface ComputedEndpoint {
  readonly kind: 'computed'
  readonly service: string
  readonly operationId: string
  /** The printed shape of a `data` item, short and `full` (responses.ts). */
  readonly response: ResponseShapes
  readonly readModel?: ReadModel
  readonly params: readonly Param[]
  /**
   * The `data` array; or its JSON text as bytes (e.g. a tree of ready read-model JSON), whole
   * or in chunks; or printed whole with the number of its items (`json`, `count`).
   */
  readonly compute: (ctx: RequestContext, issues: string[]) => Promise<readonly unknown[] | Buffer | AsyncIterable<Buffer> | PrintedData>
  /**
   * Whether a request with these parameters costs so little — a ready answer (import/ready.ts),
   * a bounded number of indexed reads — that it runs on the event loop, not in a worker.
   */
  readonly loopWhen?: (values: ReadonlyMap<string, string>, sql: SqlPort) => boolean | Promise<boolean>
}

export type Endpoint = ListEndpoint | ComputedEndpoint
