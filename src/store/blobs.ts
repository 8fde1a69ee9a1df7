// Binary attribute values (attachment content) are stored in fixed-size chunks in a table
// of their own, so a reader fetches one chunk at a time: SQLite's substr() and
// PostgreSQL's detoasting would otherwise load the whole value for every slice.
import type { TableDef } from './table.js'

/** A multiple of 3 bytes, so that each chunk encodes to Base64 on its own. */
export const BLOB_CHUNK = 3 * 256 * 1024

export const chunkTable = (table: string, col: string): string => `${table}_${col}`

export function chunkTableDef(table: string, col: string): TableDef {
  return {
    name: chunkTable(table, col),
    columns: [
      { name: 'owner', type: 'text' },
      { name: 'seq', type: 'int' },
      { name: 'chunk', type: 'blob' },
    ],
    primaryKey: ['owner', 'seq'],
  }
}

/** Rows `[owner, seq, chunk]` of one value. */
export function chunkRows(owner: string, data: Buffer): [string, number, Buffer][] {
  const rows: [string, number, Buffer][] = []
  for (let seq = 0; seq * BLOB_CHUNK < data.length; seq++) rows.push([owner, seq, data.subarray(seq * BLOB_CHUNK, (seq + 1) * BLOB_CHUNK)])
  return rows
}
