// Applies validated operations to the store inside the caller's transaction, and keeps
// the set of references whose printed form may have changed (for the read models).
import { OWNER_LINKS, objectType } from '../model/objects.js'
import type { Operation } from './validate.js'
import { chunkRows, chunkTable } from '../store/blobs.js'
import type { SqlPort, SqlValue } from '../store/sql.js'

const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ')

export class Writer {
  readonly touched = new Set<string>()
  /** Types of the objects stored or removed, so only the read models that can see them are traced. */
  readonly touchedTypes = new Set<string>()
  readonly refsSeen = new Set<string>()
  #sql: SqlPort
  #upserts = new Map<string, string>()

  constructor(sql: SqlPort) {
    this.#sql = sql
  }

  async apply(op: Operation): Promise<void> {
    if (op.op === 'records') return this.#records(op)
    const stored = await this.#sql.all<{ type: string }>('SELECT type FROM objects WHERE ref = ?', [op.ref])
    const oldType = stored[0]?.type
    if (oldType !== undefined) this.touchedTypes.add(oldType)
    this.touchedTypes.add(op.type)
    if (op.op === 'delete') {
      if (oldType !== undefined) await this.#remove(op.ref, oldType)
      this.touched.add(op.ref)
      return
    }
    const oldDecl = oldType === undefined ? undefined : objectType(oldType)
    if (oldType !== undefined && oldDecl?.table !== op.decl.table) await this.#remove(op.ref, oldType)
    else if (oldType !== undefined) await this.#touchOwners(op.decl.table, 'ref', op.ref)
    await this.#sql.run(this.#upsertSql(op.decl.table, op.columns, ['ref']), op.values)
    await this.#sql.run(
      'INSERT INTO objects (ref, type, presentation, date) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (ref) DO UPDATE SET type = excluded.type, presentation = excluded.presentation, date = excluded.date',
      [op.ref, op.type, op.presentation, op.date],
    )
    for (const [col, data] of op.blobs) {
      const table = chunkTable(op.decl.table, col)
      if (oldType !== undefined) await this.#sql.run(`DELETE FROM ${table} WHERE owner = ?`, [op.ref])
      // One chunk per statement: a multi-row insert would bind tens of megabytes at once.
      for (const row of chunkRows(op.ref, data)) await this.#sql.run(`INSERT INTO ${table} (owner, seq, chunk) VALUES (?, ?, ?)`, row)
    }
    for (const part of op.tabular) {
      // A new object has no rows to replace (the common case of a first import).
      if (oldType !== undefined) await this.#sql.run(`DELETE FROM ${part.table} WHERE owner = ?`, [op.ref])
      if (part.rows.length > 0) await this.#sql.insertRows(part.table, part.columns, part.rows)
    }
    this.touched.add(op.ref)
    this.#touchOwnerValues(op.decl.table, op.columns, op.values)
    for (const r of op.refs) this.refsSeen.add(r)
  }

  async #records(op: Extract<Operation, { op: 'records' }>): Promise<void> {
    const table = op.decl.table
    await this.#touchOwners(table, 'recorder', op.recorder)
    await this.#sql.run(`DELETE FROM ${table} WHERE recorder = ?`, [op.recorder])
    if (op.rows.length > 0) {
      await this.#sql.insertRows(table, op.columns, op.rows)
      for (const row of op.rows) this.#touchOwnerValues(table, op.columns, row)
    }
    for (const r of op.refs) this.refsSeen.add(r)
  }

  async #remove(ref: string, type: string): Promise<void> {
    const decl = objectType(type)
    if (!decl) return
    await this.#touchOwners(decl.table, 'ref', ref)
    await this.#sql.run(`DELETE FROM ${decl.table} WHERE ref = ?`, [ref])
    for (const part of decl.tabular ?? []) await this.#sql.run(`DELETE FROM ${part.table} WHERE owner = ?`, [ref])
    for (const a of decl.attrs) if (a.kind === 'base64') await this.#sql.run(`DELETE FROM ${chunkTable(decl.table, a.col)} WHERE owner = ?`, [ref])
    await this.#sql.run('DELETE FROM objects WHERE ref = ?', [ref])
  }

  /** The owners an object pointed to before it changes (an attachment moved or deleted). */
  async #touchOwners(table: string, key: string, ref: string): Promise<void> {
    const links = OWNER_LINKS[table]
    if (!links) return
    const rows = await this.#sql.all<Record<string, string>>(`SELECT ${links.join(', ')} FROM ${table} WHERE ${key} = ?`, [ref])
    for (const row of rows) for (const col of links) if (row[col]) this.touched.add(row[col])
  }

  #touchOwnerValues(table: string, columns: readonly string[], values: readonly SqlValue[]): void {
    for (const col of OWNER_LINKS[table] ?? []) {
      const v = values[columns.indexOf(col)]
      if (typeof v === 'string' && v !== '') this.touched.add(v)
    }
  }

  #upsertSql(table: string, columns: readonly string[], key: readonly string[]): string {
    const id = `${table}:${columns.length}`
    let sql = this.#upserts.get(id)
    if (!sql) {
      const set = columns.filter((c) => !key.includes(c)).map((c) => `${c} = excluded.${c}`)
      sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders(columns.length)}) ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${set.join(', ')}`
      this.#upserts.set(id, sql)
    }
    return sql
  }
}
