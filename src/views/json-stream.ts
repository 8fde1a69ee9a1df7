// Streaming JSON writer. Values are plain JSON except Base64Blob, whose content is read
// from the store and encoded in chunks, so an attachment never exists as one string
// (V8 caps a string at ~512 MiB; memory stays bounded by the chunk size).

import { BLOB_CHUNK } from '../store/blobs.js'

export class Base64Blob {
  constructor(
    readonly size: number,
    /** Reads `length` bytes from 0-based `offset`. */
    readonly read: (offset: number, length: number) => Promise<Buffer>,
  ) {}
}

// Reads follow the storage chunks (a multiple of 3 bytes, so their Base64 concatenates).
const CHUNK = BLOB_CHUNK
const FLUSH = 64 * 1024
// Each read is encoded in slices of FLUSH characters (a multiple of 3 bytes each), so a
// reader that does not read holds one slice in the stream, not a whole encoded chunk.
const SLICE = (FLUSH / 4) * 3

export class ChunkWriter {
  #parts: Buffer[] = []
  #size = 0

  push(part: string | Buffer): boolean {
    const buf = typeof part === 'string' ? Buffer.from(part) : part
    this.#parts.push(buf)
    this.#size += buf.length
    return this.#size >= FLUSH
  }

  take(): Buffer | undefined {
    if (this.#size === 0) return undefined
    const out = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts, this.#size)
    this.#parts = []
    this.#size = 0
    return out
  }
}

/** JSON already made, in pieces printed one after another (a form spliced from stored bytes, unjoined). */
export class ReadyJson {
  constructor(readonly parts: readonly Buffer[]) {}
}

/** Pushes JSON already made (a Buffer or a ReadyJson) into `out`; true when `out` is due to be taken. */
export function pushReady(value: Buffer | ReadyJson, out: ChunkWriter): boolean {
  if (Buffer.isBuffer(value)) return out.push(value)
  let due = false
  for (const part of value.parts) due = out.push(part)
  return due
}

/** Pushes the Base64 of `bytes` (a whole number of 3-byte groups unless it ends the content) into `out`. */
export function* base64(bytes: Buffer, out: ChunkWriter): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += SLICE) {
    // Base64 is ASCII: latin1 copies the characters without UTF-8 encoding them.
    if (out.push(Buffer.from(bytes.toString('base64', at, Math.min(bytes.length, at + SLICE)), 'latin1'))) yield out.take()!
  }
}

/** Whether a value holds a Base64Blob anywhere (plain values take the fast JSON.stringify path). */
function hasBlob(value: unknown): boolean {
  if (value instanceof Base64Blob) return true
  if (Array.isArray(value)) return value.some(hasBlob)
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasBlob)
  return false
}

export async function* serialize(value: unknown, out: ChunkWriter): AsyncGenerator<Buffer> {
  // A Buffer is JSON already made (a form joined by the store): printed as it is.
  if (Buffer.isBuffer(value) || value instanceof ReadyJson) {
    if (pushReady(value, out)) yield out.take()!
    return
  }
  if (!hasBlob(value)) {
    if (out.push(JSON.stringify(value))) yield out.take()!
    return
  }
  if (value instanceof Base64Blob) {
    out.push('"')
    for (let offset = 0; offset < value.size; offset += CHUNK)
      yield* base64(await value.read(offset, Math.min(CHUNK, value.size - offset)), out)
    out.push('"')
    return
  }
  if (Array.isArray(value)) {
    out.push('[')
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',')
      yield* serialize(value[i], out)
    }
    out.push(']')
    return
  }
  out.push('{')
  let first = true
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined) continue
    out.push(`${first ? '' : ','}${JSON.stringify(k)}:`)
    first = false
    yield* serialize(v, out)
  }
  out.push('}')
}
