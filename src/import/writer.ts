// Applies validated operations to the store inside the caller's transaction, and keeps
// the set of references whose printed form may have changed (for the read models).
import { OWNER_LINKS, objectType } from '../model/objects.js'
import type { Operation } from './validate.js'
import { chunkRows, chunkTable } from '../store/blobs.js'
import type { SqlPort, SqlValue } from '../store/sql.js'
import type { DerivedChanges } from './derived.js'

const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ')

export class Writer {
  readonly touched = new Set<string>()
  /** Types of the objects stored or removed, so only the read models that can see them are traced. */
  readonly touchedTypes = new Set<string>()
  readonly refsSeen = new Set<string>()
  /** Some owner (an attachment's document, a payment record's request) was touched through a link. */
  ownersTouched = false
  #sql: SqlPort
  #upserts = new Map<string, string>()

  #derived: DerivedChanges | undefined

  constructor(sql: SqlPort, derived?: DerivedChanges) {
    this.#sql = sql
    this.#derived = derived
  }

  async apply(op: Operation): Promise<void> {
    if (op.op === 'records') return this.#records(op)
    this.touchedTypes.add(op.type)
    this.touched.add(op.ref)
    if (op.op === 'delete') {
      const oldType = await this.#storedType(op.ref)
      if (oldType !== undefined) await this.#remove(op.ref, oldType)
      return
    }
    // Most imported objects are new: claiming the ref first spares them a lookup.
    const fresh =
      (await this.#sql.run('INSERT INTO objects (ref, type, presentation, date) VALUES (?, ?, ?, ?) ON CONFLICT (ref) DO NOTHING', [
        op.ref,
        op.type,
        op.presentation,
        op.date,
      ])) === 1
    const oldType = fresh ? undefined : await this.#storedType(op.ref)
    if (oldType !== undefined) {
      if (objectType(oldType)?.table !== op.decl.table) await this.#remove(op.ref, oldType, false)
      else await this.#touchOwners(op.decl.table, 'ref', op.ref)
      await this.#sql.run('UPDATE objects SET type = ?, presentation = ?, date = ? WHERE ref = ?', [op.type, op.presentation, op.date, op.ref])
    }
    await this.#sql.run(this.#upsertSql(op.decl.table, op.columns, ['ref']), op.values)
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
    this.#touchOwnerValues(op.decl.table, op.columns, op.values)
    for (const r of op.refs) this.refsSeen.add(r)
  }

  async #storedType(ref: string): Promise<string | undefined> {
    const stored = await this.#sql.all<{ type: string }>('SELECT type FROM objects WHERE ref = ?', [ref])
    const type = stored[0]?.type
    if (type !== undefined) this.touchedTypes.add(type)
    return type
  }

  async #records(op: Extract<Operation, { op: 'records' }>): Promise<void> {
    const table = op.decl.table
    // The replaced rows go in one statement that also reports what they pointed to: the
    // owners to re-print and the derived rows to recompute.
    const links = OWNER_LINKS[table] ?? []
    const report = [...new Set([...links, ...(this.#derived?.columnsOf(table) ?? [])])]
    if (report.length === 0) await this.#sql.run(`DELETE FROM ${table} WHERE recorder = ?`, [op.recorder])
    else {
      const old = await this.#sql.all<Record<string, SqlValue>>(`DELETE FROM ${table} WHERE recorder = ? RETURNING ${report.join(', ')}`, [op.recorder])
      for (const row of old) for (const col of links) if (row[col]) this.#touchOwner(row[col] as string)
      this.#derived?.removed(table, old)
    }
    if (op.rows.length > 0) {
      await this.#sql.insertRows(table, op.columns, op.rows)
      for (const row of op.rows) this.#touchOwnerValues(table, op.columns, row)
      this.#derived?.added(table, op.columns, op.rows)
    }
    for (const r of op.refs) this.refsSeen.add(r)
  }

  async #remove(ref: string, type: string, withObject = true): Promise<void> {
    const decl = objectType(type)
    if (!decl) return
    await this.#touchOwners(decl.table, 'ref', ref)
    await this.#sql.run(`DELETE FROM ${decl.table} WHERE ref = ?`, [ref])
    for (const part of decl.tabular ?? []) await this.#sql.run(`DELETE FROM ${part.table} WHERE owner = ?`, [ref])
    for (const a of decl.attrs) if (a.kind === 'base64') await this.#sql.run(`DELETE FROM ${chunkTable(decl.table, a.col)} WHERE owner = ?`, [ref])
    if (withObject) await this.#sql.run('DELETE FROM objects WHERE ref = ?', [ref])
  }

  /** The owners an object pointed to before it changes (an attachment moved or deleted). */
  async #touchOwners(table: string, key: string, ref: string): Promise<void> {
    const links = OWNER_LINKS[table]
    if (!links) return
    const rows = await this.#sql.all<Record<string, string>>(`SELECT ${links.join(', ')} FROM ${table} WHERE ${key} = ?`, [ref])
    for (const row of rows) for (const col of links) if (row[col]) this.#touchOwner(row[col])
  }

  #touchOwnerValues(table: string, columns: readonly string[], values: readonly SqlValue[]): void {
    for (const col of OWNER_LINKS[table] ?? []) {
      const v = values[columns.indexOf(col)]
      if (typeof v === 'string' && v !== '') this.#touchOwner(v)
    }
  }

  #touchOwner(ref: string): void {
    this.touched.add(ref)
    this.ownersTouched = true
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
