// Answers kept ready as bytes in the store (the unfiltered materials tree), in chunks like
// attachment content (store/blobs.ts), so a request streams them without holding the whole.
// Each rebuild writes a new generation and keeps the one before it: a request reads one
// chunk per statement, outside any transaction, and one that started on the previous
// generation can still finish while an import commits the next.
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

/** Replaces the ready bytes of `name` (inside the import's transaction). */
export async function writeReady(sql: SqlPort, name: string, bytes: Buffer): Promise<void> {
  const [last] = await sql.all<{ gen: number | null }>(`SELECT MAX(gen) AS gen FROM ${READY_TABLE} WHERE name = ?`, [name])
  const gen = Number(last?.gen ?? 0) + 1
  await sql.run(`DELETE FROM ${READY_TABLE} WHERE name = ? AND gen < ?`, [name, gen - 1])
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
  return (async function* () {
    for (let seq = 0; seq < count; seq += READ_CHUNKS) {
      const want = Math.min(READ_CHUNKS, count - seq)
      const rows = await sql.readBytes<{ chunk: Buffer }>(
        `SELECT chunk FROM ${READY_TABLE} WHERE name = ? AND gen = ? AND seq >= ? AND seq < ? ORDER BY seq`,
        [name, gen, seq, seq + want],
        { chunk: 'bytes' },
      )
      // Two imports committed while this answer was being sent: its generation is gone.
      if (rows.length < want) throw new Error(`the ready ${name} answer was replaced while it was being sent; ask again`)
      for (const row of rows) yield row.chunk
    }
  })()
}
