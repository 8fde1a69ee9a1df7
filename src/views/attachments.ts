// Attachment contents inside stored full forms. A document's small contents are kept in its
// form as ready Base64; a larger content prints a mark where it goes, so the store keeps the
// form without its bytes and the server splices them in from their chunks while it streams
// (full-forms.ts).
import { randomUUID } from 'node:crypto'
import { BLOB_CHUNK, chunkTable } from '../store/blobs.js'
import { readByOwner } from '../store/by-owner.js'
import type { SqlPort } from '../store/sql.js'
import { Base64Blob } from './json-stream.js'

/**
 * A document whose attachment contents weigh this many bytes or less in all keeps them in
 * its stored form as Base64 (decision "Small attachment contents kept ready"): spliced in,
 * each costs a read and an encoding per request, far more than its bytes. The bound keeps a
 * page of forms within PAGE_ROWS times its Base64; a heavier document's contents stay in their chunks.
 */
export const READY_CONTENTS = 16 * 1024

/** The first chunks of contents (`owner` is the attachment), all of them one chunk long, as stored now. */
export const FIRST_CHUNKS = (list: string): string =>
  `SELECT owner, chunk FROM ${chunkTable('cat_attachments', 'data')} WHERE owner IN (${list}) AND seq = 0`

/** The error of a content whose stored length is not the size its attachment was read with. */
export const changedContent = (ref: string): Error => new Error(`attachment ${ref} changed while it was being read`)

/**
 * The Base64 of `refs`' contents, each of one chunk or less, read many per statement. The
 * returned function throws for a content whose stored length is not `size`.
 */
export async function readyContents(sql: SqlPort, refs: readonly string[]): Promise<(ref: string, size: number) => string> {
  const chunks = await readByOwner<{ owner: string; chunk: Buffer }>(sql, FIRST_CHUNKS, refs, [], { owner: 'text', chunk: 'bytes' })
  return (ref, size) => {
    const chunk = chunks(ref)[0]?.chunk
    if (!chunk || chunk.length !== size) throw changedContent(ref)
    return chunk.toString('base64')
  }
}

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
    if (!chunk || chunk.length !== length) throw changedContent(ref)
    return chunk
  })
}
