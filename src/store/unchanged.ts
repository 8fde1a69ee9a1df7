// Store reads a connection keeps while it has seen no commit (SqlPort.commitsSeen): the value
// a read gave is still what the store holds, so it is given again without a statement. Where
// the engine has no such count, every call reads.
import type { SqlPort } from './sql.js'

interface Kept {
  readonly seen: number
  readonly value: unknown
}

const kept = new WeakMap<SqlPort, Map<string, Kept>>()

/**
 * `read()`'s value under `key`, read again only when the connection has seen a commit since.
 * A commit during the read keeps nothing (which state the value is of is not known): the
 * next call reads again. `read` gives the same value for the same state of the store, and
 * its keys are few and fixed (a list's, a ready row's), so nothing kept is ever dropped.
 */
export async function whileUnchanged<T>(sql: SqlPort, key: string, read: () => Promise<T>): Promise<T> {
  const seen = sql.commitsSeen?.()
  if (seen === undefined) return read()
  let values = kept.get(sql)
  if (!values) kept.set(sql, (values = new Map()))
  const hit = values.get(key)
  if (hit?.seen === seen) return hit.value as T
  const value = await read()
  if (sql.commitsSeen!() === seen) values.set(key, { seen, value })
  else values.delete(key)
  return value
}
