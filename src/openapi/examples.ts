// Each endpoint's response examples: real answers of the demo data set, trimmed, written
// by `npm run examples:generate` (scripts/examples.ts) into examples.json.
import stored from './examples.json' with { type: 'json' }

export interface ExampleEntry {
  /** The query string that was asked (empty: no parameters). */
  readonly query: string
  /** How many items the real answer had before it was trimmed. */
  readonly total: number
  readonly value: { readonly data: readonly unknown[]; readonly errors: readonly string[] }
}

export interface Examples {
  /** The demo data set the answers come from (`docgate demo --scale S --seed N`, dated up to `today`). */
  readonly demo: { readonly scale: number; readonly seed: number; readonly today: string }
  readonly endpoints: Readonly<Record<string, { readonly short: ExampleEntry; readonly full?: ExampleEntry }>>
}

export const EXAMPLES: Examples = stored as Examples
