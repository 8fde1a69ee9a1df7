// What the pipeline hands to a store: plain data, compared directly in tests.
import type { SqlValue } from './sql.js'

export type Condition =
  /** `indexed`: the column has a trigram index (store/trigram.ts), used when the value is long enough. */
  /** `suffixed`: it has a suffix index too (store/suffix.ts), which bounds a lookup more cheaply. */
  | { readonly kind: 'contains'; readonly column: string; readonly value: string; readonly indexed: boolean; readonly suffixed?: boolean }
  | { readonly kind: 'equals'; readonly column: string; readonly value: SqlValue }
  | { readonly kind: 'range'; readonly column: string; readonly from: string; readonly toExclusive: string }
  /** SQL text from an endpoint declaration (never from the request); values only as `?` parameters. */
  | { readonly kind: 'sql'; readonly text: string; readonly params: readonly SqlValue[] }

export interface QueryPlan {
  readonly source: string
  readonly columns: readonly string[]
  readonly where: readonly Condition[]
  /** Ends with a unique key, so pages can continue after the last row seen. */
  readonly orderBy: readonly { readonly column: string; readonly dir: 'asc' | 'desc' }[]
}
