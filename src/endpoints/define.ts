// The vocabulary every endpoint file speaks. An endpoint is data that mirrors its table
// in the spec; the pipeline (pipeline/run.ts) is the only code that interprets it.
import type { Meaning } from './meanings.js'
import type { ResponseShapes } from './responses.js'
import type { Condition } from '../store/plan.js'
import type { PagedList } from '../views/define.js'
import type { FullResult, FullTrace, ReadModel, RequestContext, SortKey } from '../views/define.js'
import type { Dialect, Row, SqlPort } from '../store/sql.js'
import type { Static, TSchema } from '@sinclair/typebox'

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

/** What a custom condition may consult: the other parameters, the options and the SQL dialect. */
export interface ParamContext {
  /** For engine-specific fragments such as `dialect.contains(column)` inside an EXISTS. */
  readonly dialect: Dialect
  readonly options: Readonly<Record<string, boolean>>
  readonly values: ReadonlyMap<string, string>
  readonly issues: string[]
}

/** Cross-parameter rules, each with its `errors` message (spec wording where it gives one). */
export interface Rule {
  readonly when: string
  readonly needsAnyOf: readonly string[]
  readonly message: string
  /** What happens to the `when` option if the rule is broken. */
  readonly then: 'drop-option' | 'keep'
}

/** What every endpoint declares about itself, mirroring its table in the spec. */
interface Declared {
  readonly service: string
  readonly operationId: string
  /** What the service returns, in the words of the spec's services table (§ What the service does). */
  readonly returns: string
  /** The printed shape of a `data` item, short and `full` (responses.ts). */
  readonly response: ResponseShapes
  /** Each parameter's meaning, the period's included (meanings.ts; test/openapi/meanings.test.ts). */
  readonly meanings: Readonly<Record<string, Meaning>>
  readonly params: readonly Param[]
}

export interface ListEndpoint extends Declared {
  readonly kind: 'list'
  readonly readModel: ReadModel
  readonly period?: Period
  readonly rules?: readonly Rule[]
  readonly sort: readonly SortKey[]
  /**
   * The full forms of a page of rows: reads what the page needs with a few queries whatever
   * its size (store/by-owner.ts) and returns the builder of one row's form from that data,
   * which runs no queries of its own. The import runs it over each batch of rebuilt rows and
   * stores the forms (views/rebuild.ts); a request runs it only when `fullStored` says
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
  /**
   * Whether this request reads its rows in one statement rather than a page of 500 at a time:
   * its selection is a lookup that each page would make again (specifications' `material`
   * through the index of its rows), and its forms read best for the whole list at once.
   */
  readonly onePage?: (ctx: RequestContext) => boolean
  /**
   * A read made before the selection when what it reads both selects the rows and is what
   * their built full forms print (specifications' `material`: the matching ready rows first,
   * then the specifications that hold them, by their refs), so nothing is looked up twice.
   * Given the request's conditions, it returns them with its own replaced; what it read
   * stays with `ctx` for `fullPage`. Run only where the full forms are built for the request.
   */
  readonly readFirst?: (ctx: RequestContext, where: readonly Condition[]) => Promise<readonly Condition[]>
  /**
   * The whole `data` array's items for a request whose full forms are built, read ready by
   * one statement (the items joined by commas, and how many); undefined when this request is
   * not read that way. Asked before `readFirst`, for a request without pages or changes.
   */
  readonly readyItems?: (ctx: RequestContext) => Promise<{ readonly items: readonly Buffer[]; readonly n: number } | undefined>
  /** Dependencies of the full form beyond the source's own columns and tabular parts (views/rebuild.ts). */
  readonly fullTraces?: readonly FullTrace[]
}

/** A `data` array printed by its endpoint: the JSON text of the array, and how many items it holds. */
interface PrintedData {
  readonly json: Buffer
  readonly count: number
}

/** An endpoint whose `data` is computed as a whole (materials tree, cash statement). */
export interface ComputedEndpoint extends Declared {
  readonly kind: 'computed'
  readonly readModel?: ReadModel
  /**
   * The `data` array; or its JSON text as bytes (e.g. a tree of ready read-model JSON), whole
   * or in chunks; or printed whole with the number of its items (`json`, `count`).
   */
  readonly compute: (ctx: RequestContext, issues: string[]) => Promise<readonly unknown[] | Buffer | AsyncIterable<Buffer> | PrintedData>
  /**
   * Whether a request with these parameters costs so little — a ready answer (views/ready-answers.ts),
   * a bounded number of indexed reads — that it runs on the event loop, not in a worker.
   */
  readonly loopWhen?: (values: ReadonlyMap<string, string>, sql: SqlPort) => boolean | Promise<boolean>
  /**
   * `data` is a tree: a group holds its children in the array `children` (its only array),
   * and the parameter `open` selects the elements of a group by its name. An agent's tool
   * answers the top of a tree that is over its bound with children cut (pipeline/bound.ts).
   */
  readonly tree?: { readonly children: string; readonly open: string }
}

export type Endpoint = ListEndpoint | ComputedEndpoint

/**
 * An endpoint's read model held to the short shape it declares (`response.short`): its
 * `build` must return a `short` of that shape's type, which the compiler checks.
 */
export const printing = <S extends TSchema>(_shape: S, model: ReadModel<NoInfer<Static<S>>>): ReadModel => model

/** A list's order as the planner uses it: its sort keys, `ref` last in the last key's direction. */
export const listOrder = (ep: ListEndpoint): SortKey[] => [...ep.sort, { column: 'ref', dir: ep.sort.at(-1)?.dir ?? 'asc' }]

export function pagedList(ep: ListEndpoint): PagedList {
  const order = listOrder(ep)
  // Day buckets keep the list's order only when the date is its first key.
  const day = ep.period && order[0]!.column === ep.period.column ? ep.period.column : undefined
  return { model: ep.readModel.table, full: ep.fullPage !== undefined, ...(day ? { day } : {}), dir: order[0]!.dir, order }
}
