// PostgreSQL adapter. It depends only on a structural `query(sql, params) → { rows }`
// port, which both `pg` (Pool or Client) and PGlite (in-process PostgreSQL) satisfy.
import type { Dialect, Row, SqlPort, SqlValue } from './sql.js'

export interface PgQueryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: Row[]; rowCount?: number | null; affectedRows?: number }>
  /** Multi-statement scripts (PGlite); `pg` runs them through `query` without parameters. */
  exec?(sql: string): Promise<unknown>
}

export const postgresDialect: Dialect = {
  name: 'postgres',
  // "C" collation compares code points, as SQLite does, so both engines sort alike.
  types: { text: 'TEXT COLLATE "C"', real: 'DOUBLE PRECISION', int: 'BIGINT', blob: 'BYTEA' },
  clusteredTable: '',
  contains: (column) => `strpos(${column}, ?) > 0`,
  blobSlice: (column) => `substr(${column}, ?, ?)`,
  concatBytes: (column, orderBy) => `string_agg(${column}, ','::bytea ORDER BY ${orderBy})`,
}

/** `?` placeholders (outside quoted literals) → `$1, $2, …`. */
export function numberPlaceholders(sql: string): string {
  let out = ''
  let n = 0
  let quoted = false
  for (const ch of sql) {
    if (ch === "'") quoted = !quoted
    out += ch === '?' && !quoted ? `$${++n}` : ch
  }
  return out
}

const converted = new Map<string, string>()
function pgText(sql: string): string {
  let text = converted.get(sql)
  if (text === undefined) {
    text = numberPlaceholders(sql)
    if (converted.size < 10_000) converted.set(sql, text)
  }
  return text
}

// PostgreSQL refuses a NUL in text; no stored text can contain one, so such a value
// simply matches nothing (an empty match is the answer, not a 500).
const bind = (params: readonly SqlValue[]): unknown[] =>
  params.map((v) => (v === true ? 1 : v === false ? 0 : typeof v === 'string' && v.includes('\0') ? v.replaceAll('\0', '\uFFFF') : v))

/** PGlite returns bytea as Uint8Array; the rest of docgate expects Buffers. */
function decode(rows: Row[]): Row[] {
  for (const row of rows) {
    for (const key in row) {
      const v = row[key]
      if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[key] = Buffer.from(v.buffer, v.byteOffset, v.byteLength)
    }
  }
  return rows
}

export class PgStore implements SqlPort {
  readonly dialect = postgresDialect
  readonly readonly: boolean
  #db: PgQueryable
  #close: () => Promise<void>

  constructor(db: PgQueryable, options: { readonly?: boolean; close?: () => Promise<void> } = {}) {
    this.#db = db
    this.readonly = options.readonly ?? false
    this.#close = options.close ?? (async () => {})
  }

  async all<T = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    const result = await this.#db.query(pgText(sql), bind(params))
    return decode(result.rows) as T[]
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    const result = await this.#db.query(pgText(sql), bind(params))
    return result.rowCount ?? result.affectedRows ?? 0
  }

  async runMany(sql: string, rows: Iterable<readonly SqlValue[]>): Promise<void> {
    const text = pgText(sql)
    for (const row of rows) await this.#db.query(text, bind(row))
  }

  async insertRows(table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void> {
    const batch = Math.max(1, Math.floor(30_000 / columns.length))
    for (let i = 0; i < rows.length; i += batch) {
      const chunk = rows.slice(i, i + batch)
      const params: SqlValue[] = []
      const tuples = chunk.map((row) => {
        const start = params.length
        params.push(...row)
        return `(${row.map((_, j) => `$${start + j + 1}`).join(', ')})`
      })
      await this.#db.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, bind(params))
    }
  }

  async exec(script: string): Promise<void> {
    if (this.#db.exec) await this.#db.exec(script)
    else await this.#db.query(script)
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.exec('BEGIN')
    try {
      const result = await work()
      await this.exec('COMMIT')
      return result
    } catch (err) {
      await this.exec('ROLLBACK').catch(() => {})
      throw err
    }
  }

  async close(): Promise<void> {
    await this.#close()
  }
}
