// Attachment contents inside stored full forms: a form prints a mark where a content goes,
// so the store keeps the form without the bytes and the server splices them in from their
// chunks while it streams (full-forms.ts).
import { randomUUID } from 'node:crypto'
import { BLOB_CHUNK, chunkTable } from '../store/blobs.js'
import type { SqlPort } from '../store/sql.js'
import { Base64Blob } from './json-stream.js'

/**
 * What JSON.stringify prints for a StoredBlob, before its ref and size: NUL and a random
 * UUID of this process, which no stored text can hold (XML, the 1C exchange format, has no NUL).
 */
export const BLOB_MARK = `\u0000${randomUUID()}\u0000`

/** An attachment's content that knows its attachment, so a stored full form can name where it goes (full-forms.ts). */
export class StoredBlob extends Base64Blob {
  constructor(
    readonly ref: string,
    size: number,
    read: (offset: number, length: number) => Promise<Buffer>,
  ) {
    super(size, read)
  }

  /** One JSON.stringify pass prints a whole form; full-forms.ts finds the contents' places by this mark. */
  toJSON(): string {
    return `${BLOB_MARK}${this.ref}\u0000${this.size}`
  }
}

/** The content of one attachment, read chunk by chunk when it is serialized (never as one string). */
export function content(sql: SqlPort, ref: string, size: number): StoredBlob {
  const text = `SELECT chunk FROM ${chunkTable('cat_attachments', 'data')} WHERE owner = ? AND seq = ?`
  return new StoredBlob(ref, size, async (offset, length) => {
    const rows = await sql.readBytes<{ chunk: Buffer | null }>(text, [ref, offset / BLOB_CHUNK], { chunk: 'bytes' })
    const chunk = rows[0]?.chunk
    // The file may have been replaced by an import since its size was read: better a broken
    // response than a silently corrupt file.
    if (!chunk || chunk.length !== length) throw new Error(`attachment ${ref} changed while it was being read`)
    return chunk
  })
}
