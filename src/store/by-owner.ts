// Reads for the full forms of a whole page: one query per read for up to 500 documents
// (`… IN (?, ?, …)`), grouped by owner in JS, instead of one query per document. A batch
// that fails is read again document by document, so only the documents whose own read
// fails get their endpoint's fallback and `errors` entry (spec § Errors: a problem with a
// single document goes to `errors`; the other documents stay in `data`).
import type { ColumnKind, Row, SqlPort, SqlValue } from './sql.js'

/** At most this many owners per query (a page is 500 rows). */
export const OWNERS_PER_QUERY = 500

/**
 * A query for the owners spelled by `list` (`?, ?, …`, to be used as `… IN (${list})`).
 * It selects each row's owner as `owner` and orders each owner's rows as they are printed.
 */
export type OwnersQuery = (list: string) => string

/** The rows of one owner ([] when it has none); throws the failure of that owner's own read. */
export type ByOwner<T> = (owner: string) => T[]

/** The refs of a page of read-model rows. */
export const refsOf = (rows: readonly Row[]): string[] => rows.map((r) => String(r.ref))

/**
 * Lists padded to a power of two (by repeating an owner, which `IN` ignores): a handful of
 * statement texts per query, each prepared once per connection, rather than one per page size.
 */
function placeholders(owners: readonly string[]): { list: string; padded: string[] } {
  let size = 1
  while (size < owners.length) size *= 2
  size = Math.min(size, OWNERS_PER_QUERY)
  const padded = [...owners]
  while (padded.length < size) padded.push(owners[owners.length - 1]!)
  return { list: padded.map(() => '?').join(', '), padded }
}

/**
 * Runs `query` for `owners` (distinct; `params` follow the owners in the statement) and groups
 * the rows by owner. With `bytes` (the statement's columns, SqlPort.readBytes) it is a read of
 * stored bytes, for owners and parameters that are stored keys, never request text.
 */
export async function readByOwner<T extends { readonly owner: string }>(
  sql: SqlPort,
  query: OwnersQuery,
  owners: readonly string[],
  params: readonly SqlValue[] = [],
  bytes?: Readonly<Record<string, ColumnKind>>,
): Promise<ByOwner<T>> {
  const rows = new Map<string, T[]>()
  const failed = new Map<string, unknown>()
  const read = async (chunk: readonly string[]) => {
    const { list, padded } = placeholders(chunk)
    const text = query(list)
    const values = [...padded, ...params]
    for (const row of await (bytes ? sql.readBytes<T>(text, values, bytes) : sql.all<T>(text, values))) {
      const group = rows.get(row.owner)
      if (group) group.push(row)
      else rows.set(row.owner, [row])
    }
  }
  for (let i = 0; i < owners.length; i += OWNERS_PER_QUERY) {
    const chunk = owners.slice(i, i + OWNERS_PER_QUERY)
    try {
      await read(chunk)
    } catch (batchError) {
      if (chunk.length === 1) failed.set(chunk[0]!, batchError)
      else
        for (const owner of chunk) {
          try {
            await read([owner])
          } catch (err) {
            failed.set(owner, err)
          }
        }
    }
  }
  return (owner) => {
    if (failed.has(owner)) throw failed.get(owner)
    return rows.get(owner) ?? []
  }
}
