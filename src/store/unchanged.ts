// Store reads a connection keeps while it has seen no commit (SqlPort.commitsSeen): the value
// a read gave is still what the store holds, so it is given again without a statement. Where
// the engine has no such count, callers that ask while a read is under way share the next
// one, which starts after they asked: a value is never older than the call that gets it.
import type { SqlPort } from './sql.js'

interface Kept {
  readonly seen: number
  readonly value: unknown
}

const kept = new WeakMap<SqlPort, Map<string, Kept>>()

/** The connection's map in `maps`, made on first use. */
function mapOf<V>(maps: WeakMap<SqlPort, Map<string, V>>, sql: SqlPort): Map<string, V> {
  let map = maps.get(sql)
  if (!map) maps.set(sql, (map = new Map()))
  return map
}

/**
 * `read()`'s value under `key`, read again only when the connection has seen a commit since.
 * A commit during the read keeps nothing (which state the value is of is not known): the
 * next call reads again. `read` gives the same value for the same state of the store, and
 * its keys are few and fixed (a list's, a ready row's), so nothing kept is ever dropped.
 * Calls that find nothing kept share their reads (sharedRead).
 */
export function whileUnchanged<T>(sql: SqlPort, key: string, read: () => Promise<T>): Promise<T> {
  if (sql.commitsSeen === undefined) return sharedRead(sql, key, read)
  const values = mapOf(kept, sql)
  const hit = values.get(key)
  if (hit?.seen === sql.commitsSeen()) return Promise.resolve(hit.value as T)
  return sharedRead(sql, key, async () => {
    // A read shared by calls that waited for another may find that one's value kept.
    const seen = sql.commitsSeen!()
    const now = values.get(key)
    if (now?.seen === seen) return now.value as T
    const value = await read()
    if (sql.commitsSeen!() === seen) values.set(key, { seen, value })
    else values.delete(key)
    return value
  })
}

interface Flight {
  readonly value: Promise<unknown>
  /** The read that starts when this one ends, shared by every call made meanwhile. */
  next?: Promise<unknown>
}

const flights = new WeakMap<SqlPort, Map<string, Flight>>()
const ignore = (): void => {}

/**
 * `read()`'s value under `key`: a call while no read of the key is under way starts one; a
 * call while one is under way waits for it to end and shares the read that starts then with
 * every other call made meanwhile (a read already under way may have begun before the call
 * and missed a commit it should see). Under load a key costs a statement per round trip,
 * not per call; alone, a call waits for nothing.
 */
export function sharedRead<T>(sql: SqlPort, key: string, read: () => Promise<T>): Promise<T> {
  const byKey = mapOf(flights, sql)
  const under = byKey.get(key)
  if (under) return (under.next ??= under.value.then(ignore, ignore).then(start)) as Promise<T>
  return start()

  function start(): Promise<T> {
    const flight: Flight = { value: read() }
    byKey.set(key, flight)
    const end = () => {
      if (byKey.get(key) === flight && flight.next === undefined) byKey.delete(key)
    }
    flight.value.then(end, end)
    return flight.value as Promise<T>
  }
}
