// The answer's envelope, `{"data": [...], "errors": [...]}` (spec § Response format), in
// one place: every surface (HTTP, the worker pool, MCP) sends bytes framed by these parts.

/** Opens an answer whose rows follow, comma-separated (`ROW_SEPARATOR`). */
export const OPEN_ROWS = Buffer.from('{"data":[')
export const ROW_SEPARATOR = Buffer.from(',')
/** Opens an answer whose `data` array follows whole, as JSON text. */
export const OPEN_DATA = Buffer.from('{"data":')

/**
 * Closes the rows opened by OPEN_ROWS: the end of `data`, the `errors`, the end of the answer;
 * with `removed` (JSON texts, a `changed_since` answer's) that member before `errors`, so an
 * answer still ends with its `errors`.
 */
export const closeRows = (issues: readonly string[], removed?: readonly string[]): Buffer =>
  Buffer.from(`]${removed === undefined ? '' : `,"removed":[${removed.join(',')}]`},"errors":${JSON.stringify(issues)}}`)
/** Closes a whole `data` array opened by OPEN_DATA. */
export const closeData = (issues: readonly string[]): Buffer => Buffer.from(`,"errors":${JSON.stringify(issues)}}`)

/** A whole answer of rows already printed as JSON text. */
export const envelope = (rows: readonly (Buffer | string)[], issues: readonly string[], removed?: readonly unknown[]): string =>
  `{"data":[${rows.map((r) => r.toString()).join(',')}]${removed === undefined ? '' : `,"removed":${JSON.stringify(removed)}`},"errors":${JSON.stringify(issues)}}`
