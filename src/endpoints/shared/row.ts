// Typed reads of read-model source rows (`Row` values arrive as `unknown`): what a build
// prints is checked against the endpoint's response shape (define.ts `printing`), so each
// column is read as the type its select guarantees, and a value of another type is a bug
// in that select, not something to print.
const kind = (v: unknown): string => (v === null ? 'null' : Buffer.isBuffer(v) ? 'bytes' : typeof v)

/** A text column (stored NOT NULL DEFAULT '', or a COALESCEd presentation): its string. */
export function text(v: unknown): string {
  if (typeof v === 'string') return v
  throw new Error(`expected a text column, got ${kind(v)}`)
}

/** A number column (real or int, stored NOT NULL DEFAULT 0): its number. */
export function num(v: unknown): number {
  if (typeof v === 'number') return v
  throw new Error(`expected a number column, got ${kind(v)}`)
}

/** A value that may be NULL (a presentation through a LEFT JOIN, MIN over no rows): '' then, else its text. */
export const orEmpty = (v: unknown): string => (v === null || v === undefined ? '' : String(v))
