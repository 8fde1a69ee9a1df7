// Answers kept ready as bytes in the store (the unfiltered materials tree), in chunks like
// attachment content (store/blobs.ts), so a request streams them without holding the whole.
// Each rebuild writes a new generation and keeps the one before it: a request reads one
// chunk per statement, outside any transaction, and one that started on the previous
// generation can still finish while an import commits the next.
import { randomInt } from 'node:crypto'
import { BLOB_CHUNK } from '../store/blobs.js'
import type { TableDef } from '../store/table.js'
import type { SqlPort } from '../store/sql.js'

const READY_TABLE = 'ready_answers'

export const readyTable: TableDef = {
  name: READY_TABLE,
  columns: [
    { name: 'name', type: 'text' },
    { name: 'gen', type: 'int' },
    { name: 'seq', type: 'int' },
    { name: 'chunk', type: 'blob', whole: true },
  ],
  primaryKey: ['name', 'gen', 'seq'],
}

// A generation is a count of rebuilds above random low bits: the newest is the largest, and a
// store rebuilt from scratch does not meet, at its first rebuilds, the generation a serving
// connection kept the bytes of from the store it replaced (readReady).
const GEN_RANDOM = 2 ** 21

/** Replaces the ready bytes of `name` (inside the import's transaction). */
export async function writeReady(sql: SqlPort, name: string, bytes: Buffer): Promise<void> {
  const [row] = await sql.all<{ gen: number | null }>(`SELECT MAX(gen) AS gen FROM ${READY_TABLE} WHERE name = ?`, [name])
  const last = Number(row?.gen ?? 0)
  const gen = (Math.floor(last / GEN_RANDOM) + 1) * GEN_RANDOM + randomInt(GEN_RANDOM)
  await sql.run(`DELETE FROM ${READY_TABLE} WHERE name = ? AND gen < ?`, [name, last])
  // One chunk per statement: a multi-row insert would bind the whole answer at once.
  for (let seq = 0; seq === 0 || seq * BLOB_CHUNK < bytes.length; seq++) {
    await sql.run(`INSERT INTO ${READY_TABLE} (name, gen, seq, chunk) VALUES (?, ?, ?, ?)`, [
      name,
      gen,
      seq,
      bytes.subarray(seq * BLOB_CHUNK, (seq + 1) * BLOB_CHUNK),
    ])
  }
}

/** Drops every generation of `name`: requests take the per-request path until it is written again. */
export async function dropReady(sql: SqlPort, name: string): Promise<void> {
  await sql.run(`DELETE FROM ${READY_TABLE} WHERE name = ?`, [name])
}

/** Whether ready bytes of `name` are stored (a dropped answer has none until it is built again). */
export async function hasReady(sql: SqlPort, name: string): Promise<boolean> {
  return (await sql.all(`SELECT 1 AS one FROM ${READY_TABLE} WHERE name = ? LIMIT 1`, [name])).length > 0
}

// Chunks read per statement: on PostgreSQL each statement (a binary COPY) costs a round trip
// and a plan of its own, while four chunks hold only 3 MiB (docs/perf/history.md).
const READ_CHUNKS = 4

// The newest bytes of each ready answer a connection has read whole, with their generation:
// a request that finds that generation still the newest sends them without reading them again
// (on PostgreSQL every kilobyte out of the server costs; the whole tree is 19 MB at scale 100).
// One set per store connection, like the ready pages' (views/pages.ts), within its `bytes`.
const kept = new WeakMap<SqlPort, Map<string, { readonly gen: number; readonly chunks: readonly Buffer[] }>>()

/** The bytes alone: a view into a larger buffer (a PostgreSQL COPY's) would keep all of it alive. */
const own = (b: Buffer): Buffer => (b.byteLength === b.buffer.byteLength ? b : Buffer.from(b))

/** The newest ready bytes of `name` as chunks, or undefined when there are none. */
export async function readReady(sql: SqlPort, name: string): Promise<AsyncIterable<Buffer> | undefined> {
  // One statement, so the generation and its chunk count come from one snapshot.
  const [head] = await sql.all<{ gen: number; n: number }>(
    `SELECT gen, COUNT(*) AS n FROM ${READY_TABLE} WHERE name = ? AND gen = (SELECT MAX(gen) FROM ${READY_TABLE} WHERE name = ?) GROUP BY gen`,
    [name, name],
  )
  if (!head) return undefined
  const gen = Number(head.gen)
  const count = Number(head.n)
  let ours = kept.get(sql)
  if (ours === undefined) kept.set(sql, (ours = new Map()))
  const hit = ours.get(name)
  if (hit?.gen === gen) {
    const { chunks } = hit
    return (async function* () {
      yield* chunks
    })()
  }
  const room = sql.dialect.pageCache.bytes
  return (async function* () {
    let read: Buffer[] | undefined = count * BLOB_CHUNK <= room ? [] : undefined
    for (let seq = 0; seq < count; seq += READ_CHUNKS) {
      const want = Math.min(READ_CHUNKS, count - seq)
      const rows = await sql.readBytes<{ chunk: Buffer }>(
        `SELECT chunk FROM ${READY_TABLE} WHERE name = ? AND gen = ? AND seq >= ? AND seq < ? ORDER BY seq`,
        [name, gen, seq, seq + want],
        { chunk: 'bytes' },
      )
      // Two imports committed while this answer was being sent: its generation is gone.
      if (rows.length < want) throw new Error(`the ready ${name} answer was replaced while it was being sent; ask again`)
      for (const row of rows) {
        const chunk = read === undefined ? row.chunk : own(row.chunk)
        read?.push(chunk)
        yield chunk
      }
    }
    if (read !== undefined) ours.set(name, { gen, chunks: read })
    read = undefined
  })()
}
