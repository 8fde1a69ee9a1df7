// Binary COPY with PostgreSQL. Out: large stored bytes through `COPY (query) TO STDOUT`.
// node-pg's protocol reader turns every field of a result row into a JS string before any
// type parser sees it, so a 700 KB page cost 5–7 ms of client CPU as Base64 text (plus the
// server's encoding). A COPY's data messages reach the query as bytes: a bytea field is its
// bytes, sliced out of the answer without a decode. In: the import's plain inserts as one
// `COPY table FROM STDIN` stream, which the server stores without parsing a statement that
// lists every value.
//
// The queries are node-pg Submittables driven like its own queries (pg-copy-streams instead
// takes the socket over, which node-pg's read timeout, firing on a COPY cut off mid-stream,
// turned into an exception outside any request): the client's `query_timeout`, errors and
// the pool's release apply to them as to any statement.
import pg from 'pg'
import type { ColumnKind, Row, SqlValue } from './sql.js'

/** COPY on one connection (or a pool's): `out` resolves with everything a COPY … TO STDOUT sent, `in` when a COPY … FROM STDIN has stored `data`. */
export interface Copy {
  out(statement: string): Promise<Buffer>
  in(statement: string, data: Buffer): Promise<void>
}

type Done = (err: Error | null, out?: Buffer) => void

class CopyOutQuery implements pg.Submittable {
  readonly text: string
  /** Set by the caller or by node-pg's pool; node-pg wraps it with the read timeout. */
  callback: Done | undefined
  #chunks: Buffer[] | undefined = []

  constructor(text: string, callback?: Done) {
    this.text = text
    this.callback = callback
  }

  submit(connection: pg.Connection): void {
    ;(connection as unknown as { query(text: string): void }).query(this.text)
  }

  handleCopyData(msg: { chunk: Buffer }): void {
    // The parser's buffer is compacted in place as more arrives: the chunk is copied out.
    this.#chunks?.push(Buffer.from(msg.chunk))
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}

  handleReadyForQuery(): void {
    const chunks = this.#chunks
    this.#chunks = undefined
    if (chunks) this.callback?.(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
  }

  handleError(err: Error): void {
    // After a read timeout node-pg has answered the caller; what still arrives is dropped.
    this.#chunks = undefined
    this.callback?.(err)
  }
}

/** Data messages of at most this many bytes: the server reads each whole before storing it. */
const MESSAGE = 1 << 20

class CopyInQuery implements pg.Submittable {
  readonly text: string
  callback: Done | undefined
  readonly #data: Buffer

  constructor(text: string, data: Buffer, callback?: Done) {
    this.text = text
    this.#data = data
    this.callback = callback
  }

  submit(connection: pg.Connection): void {
    ;(connection as unknown as { query(text: string): void }).query(this.text)
  }

  handleCopyInResponse(connection: pg.Connection): void {
    const c = connection as unknown as { sendCopyFromChunk(chunk: Buffer): void; endCopyFrom(): void }
    for (let at = 0; at < this.#data.length; at += MESSAGE) c.sendCopyFromChunk(this.#data.subarray(at, at + MESSAGE))
    c.endCopyFrom()
  }

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {
    this.callback?.(null)
  }

  handleError(err: Error): void {
    this.callback?.(err)
  }
}

/** COPY through a pool (which lends a client for each statement) or a client of its own. */
export function pgCopy(db: pg.Pool | pg.Client): Copy {
  if (db instanceof pg.Pool) {
    return {
      out: (statement) => db.query(new CopyOutQuery(statement)) as unknown as Promise<Buffer>,
      in: async (statement, data) => void (await (db.query(new CopyInQuery(statement, data)) as unknown as Promise<unknown>)),
    }
  }
  return {
    out: (statement) =>
      new Promise((resolve, reject) => void db.query(new CopyOutQuery(statement, (err, out) => (err ? reject(err) : resolve(out!))))),
    in: (statement, data) =>
      new Promise((resolve, reject) => void db.query(new CopyInQuery(statement, data, (err) => (err ? reject(err) : resolve())))),
  }
}

/** A string written into a statement as it is: keys docgate forms. */
const KEY = /^[A-Za-z0-9_:.-]*$/

/**
 * `sql` with each `?` (outside quoted literals) replaced by its value as a literal: COPY runs
 * over the simple query protocol, which takes no parameters. A key (KEY) is written quoted
 * by escapeLiteral; any other string (a cursor's keys, which docgate signed) only as the hex
 * of its UTF-8 bytes, decoded by the server, so no character of it reaches the statement's
 * text. Request text itself stays in bound parameters (reliability battery F3).
 */
export function inlineParams(sql: string, params: readonly SqlValue[]): string {
  let out = ''
  let n = 0
  let quoted = false
  for (const ch of sql) {
    if (ch === "'") quoted = !quoted
    out += ch === '?' && !quoted ? literal(params[n++]) : ch
  }
  if (n !== params.length) throw new Error(`statement has ${n} placeholders for ${params.length} parameters`)
  return out
}

function literal(v: SqlValue | undefined): string {
  if (v === null || v === undefined) return 'NULL'
  if (v === true || v === false) return v ? '1' : '0'
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`cannot inline ${v}`)
    return `(${v})`
  }
  if (Buffer.isBuffer(v)) throw new Error('cannot inline bytes')
  if (!KEY.test(v)) return textFromHex(`'${Buffer.from(v).toString('hex')}'`)
  return pg.escapeLiteral(v)
}

/** The text whose UTF-8 bytes `expr` spells in hex (the PostgreSQL dialect's textFromHex). */
export const textFromHex = (expr: string): string => `convert_from(decode(${expr}, 'hex'), 'UTF8')`

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')

/**
 * The rows of a binary COPY answer, named and read as `columns` says (in the statement's
 * column order). Bytes are views into `data`.
 */
export function copyRows<T = Row>(data: Buffer, columns: Readonly<Record<string, ColumnKind>>): T[] {
  if (data.length < 19 || !data.subarray(0, 11).equals(SIGNATURE)) throw new Error('not a binary COPY answer')
  const names = Object.keys(columns)
  const kinds = Object.values(columns)
  let at = 15
  at += 4 + data.readInt32BE(at)
  const rows: T[] = []
  for (;;) {
    const fields = data.readInt16BE(at)
    at += 2
    if (fields === -1) return rows
    if (fields !== names.length) throw new Error(`COPY row of ${fields} columns, expected ${names.length}`)
    const row: Row = {}
    for (let i = 0; i < fields; i++) {
      const length = data.readInt32BE(at)
      at += 4
      if (length === -1) {
        row[names[i]!] = null
        continue
      }
      const kind = kinds[i]
      row[names[i]!] =
        kind === 'bytes'
          ? data.subarray(at, at + length)
          : kind === 'text'
            ? data.toString('utf8', at, at + length)
            : length === 8
              ? Number(data.readBigInt64BE(at))
              : data.readIntBE(at, length)
      at += length
    }
    rows.push(row as T)
  }
}

/**
 * `rows` as a binary COPY stream for columns of PostgreSQL `types` (format_type names), or
 * undefined when a value is not exactly what its column holds (the caller inserts those
 * rows as a statement, which converts or refuses them as the server does). Booleans are
 * stored as 1 and 0, as bound parameters are.
 */
export function copyStream(rows: readonly (readonly SqlValue[])[], types: readonly string[]): Buffer | undefined {
  let buf = Buffer.allocUnsafe(1 << 16)
  let at = 0
  const room = (n: number) => {
    if (at + n <= buf.length) return
    let size = buf.length * 2
    while (at + n > size) size *= 2
    const bigger = Buffer.allocUnsafe(size)
    buf.copy(bigger, 0, 0, at)
    buf = bigger
  }
  room(19)
  at += SIGNATURE.copy(buf, 0)
  buf.writeInt32BE(0, at) // flags
  buf.writeInt32BE(0, at + 4) // header extension length
  at += 8
  for (const row of rows) {
    room(2)
    buf.writeInt16BE(types.length, at)
    at += 2
    for (let i = 0; i < types.length; i++) {
      const v = row[i]
      const type = types[i]
      if (v === null || v === undefined) {
        room(4)
        buf.writeInt32BE(-1, at)
        at += 4
      } else if (type === 'text') {
        if (typeof v !== 'string') return undefined
        // UTF-8 takes at most 3 bytes per UTF-16 unit.
        room(4 + v.length * 3)
        const n = buf.write(v, at + 4)
        buf.writeInt32BE(n, at)
        at += 4 + n
      } else if (type === 'bigint') {
        const n = v === true ? 1 : v === false ? 0 : v
        if (typeof n !== 'number' || !Number.isSafeInteger(n)) return undefined
        room(12)
        buf.writeInt32BE(8, at)
        // Two 32-bit halves: a BigInt per value was a tenth of this function's time.
        const high = Math.floor(n / 0x1_0000_0000)
        buf.writeInt32BE(high, at + 4)
        buf.writeUInt32BE(n - high * 0x1_0000_0000, at + 8)
        at += 12
      } else if (type === 'double precision') {
        if (typeof v !== 'number') return undefined
        room(12)
        buf.writeInt32BE(8, at)
        buf.writeDoubleBE(v, at + 4)
        at += 12
      } else if (type === 'bytea') {
        if (!Buffer.isBuffer(v)) return undefined
        room(4 + v.length)
        buf.writeInt32BE(v.length, at)
        at += 4 + v.copy(buf, at + 4)
      } else return undefined
    }
  }
  room(2)
  buf.writeInt16BE(-1, at)
  return buf.subarray(0, at + 2)
}
