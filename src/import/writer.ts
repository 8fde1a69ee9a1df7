// Applies validated operations to the store inside the caller's transaction, and keeps
// the set of references whose printed form may have changed (for the read models).
//
// Objects and record sets are buffered and written a batch at a time with one bulk
// statement per table (the store port does each the way its engine is fastest): over a
// network every statement is a round trip. Within one buffer every object ref and every
// (register, recorder) is distinct, so the writes of different entries touch different
// rows and their order does not matter; an entry that repeats one, a delete, and `flush`
// write the buffer first, so later operations always see earlier ones. Where the engine
// runs apart (PostgreSQL), a full buffer is written while the next one fills; the next
// write, and anything that reads, waits for it.
import { OWNER_LINKS, objectType } from '../model/objects.js'
import type { ObjectType } from '../model/define.js'
import { weightOf } from './validate.js'
import type { Operation } from './validate.js'
import { chunkRows, chunkTable } from '../store/blobs.js'
import type { SqlPort, SqlValue } from '../store/sql.js'
import type { DerivedChanges } from '../views/derived.js'

type Upsert = Extract<Operation, { op: 'upsert' }>
type Records = Extract<Operation, { op: 'records' }>
type Rows = SqlValue[][]

/** Buffered attachment bytes that make it full. */
const MAX_BYTES = 32 * 1024 * 1024
/** Attachment chunks sent in one statement: up to 8 MiB of them (one chunk at least). */
const STATEMENT_BYTES = 8 * 1024 * 1024

/** Rows grouped by table and column list, in first-seen order. */
class Groups {
  readonly #groups = new Map<string, { table: string; columns: readonly string[]; rows: Rows }>()

  add(table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): void {
    const id = `${table}(${columns.join(',')})`
    let group = this.#groups.get(id)
    if (!group) this.#groups.set(id, (group = { table, columns, rows: [] }))
    for (const row of rows) group.rows.push(row as SqlValue[])
  }

  [Symbol.iterator]() {
    return this.#groups.values()
  }
}

const group = <K, V>(items: Iterable<V>, key: (v: V) => K): Map<K, V[]> => {
  const out = new Map<K, V[]>()
  for (const item of items) {
    const k = key(item)
    const list = out.get(k)
    if (list) list.push(item)
    else out.set(k, [item])
  }
  return out
}

const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

export class Writer {
  readonly touched = new Set<string>()
  /** Types of the objects stored or removed, so only the read models that can see them are traced. */
  readonly touchedTypes = new Set<string>()
  readonly refsSeen = new Set<string>()
  /** Some owner (an attachment's document, a payment record's request) was touched through a link. */
  ownersTouched = false
  #sql: SqlPort
  #derived: DerivedChanges | undefined

  #upserts = new Map<string, Upsert>()
  #records = new Map<string, Records>()
  #rows = 0
  #bytes = 0
  /** The buffer the store is still writing, if any. */
  #writing: Promise<void> | undefined

  constructor(sql: SqlPort, derived?: DerivedChanges) {
    this.#sql = sql
    this.#derived = derived
  }

  async apply(op: Operation): Promise<void> {
    if (op.op === 'records') {
      const id = `${op.decl.table}\0${op.recorder}`
      if (this.#records.has(id)) await this.flush()
      this.#records.set(id, op)
    } else {
      this.touchedTypes.add(op.type)
      this.touched.add(op.ref)
      if (op.op === 'delete' || this.#upserts.has(op.ref)) await this.flush()
      if (op.op === 'delete') {
        const oldType = (await this.#storedTypes([op.ref])).get(op.ref)
        if (oldType !== undefined) await this.#remove(op.ref, oldType)
        return
      }
      this.#upserts.set(op.ref, op)
    }
    const { rows, bytes } = weightOf(op)
    this.#rows += rows
    this.#bytes += bytes
    if (this.#rows >= this.#sql.dialect.writeBufferRows || this.#bytes >= MAX_BYTES) await this.#handOver()
  }

  /** Writes whatever is buffered and waits for it; due before anything reads what was applied. */
  async flush(): Promise<void> {
    await this.#handOver()
    await this.#caughtUp()
  }

  /** Hands the buffer to the store once the previous one is written; the caller may go on meanwhile. */
  async #handOver(): Promise<void> {
    await this.#caughtUp()
    // In key order, each table's index takes the rows at neighbouring places, not at random
    // ones (PostgreSQL: 20,000 objects COPYed 47 → 32 ms).
    const upserts = [...this.#upserts.values()].sort((a, b) => byKey(a.ref, b.ref))
    const records = [...this.#records.values()].sort((a, b) => byKey(a.recorder, b.recorder))
    this.#upserts.clear()
    this.#records.clear()
    this.#rows = 0
    this.#bytes = 0
    if (upserts.length === 0 && records.length === 0) return
    const { done } = await this.#sql.writeBehind(async () => {
      if (upserts.length > 0) await this.#writeObjects(upserts)
      if (records.length > 0) await this.#writeRecords(records)
    })
    this.#writing = done
  }

  async #caughtUp(): Promise<void> {
    const writing = this.#writing
    this.#writing = undefined
    await writing
  }

  async #writeObjects(ops: readonly Upsert[]): Promise<void> {
    const sql = this.#sql
    // Most imported objects are new: claiming their refs first spares them a lookup.
    const fresh = await sql.insertNew(
      'objects',
      ['ref', 'type', 'presentation', 'date'],
      ops.map((op) => [op.ref, op.type, op.presentation, op.date]),
    )
    const stored = ops.filter((op) => !fresh.has(op.ref))
    if (stored.length > 0) await this.#replacing(stored)

    // A new object's header row is new too: it is inserted (a binary COPY on PostgreSQL), where
    // a stored one's replaces the row its key finds.
    const added = new Groups()
    const replaced = new Groups()
    const parts = new Groups()
    const chunks = new Map<string, Rows>()
    for (const op of ops) {
      ;(fresh.has(op.ref) ? added : replaced).add(op.decl.table, op.columns, [op.values as SqlValue[]])
      for (const part of op.tabular) if (part.rows.length > 0) parts.add(part.table, part.columns, part.rows)
      for (const [col, data] of op.blobs) {
        const table = chunkTable(op.decl.table, col)
        const rows = chunks.get(table) ?? []
        rows.push(...chunkRows(op.ref, data))
        chunks.set(table, rows)
      }
      this.#touchOwnerValues(op.decl.table, op.columns, op.values)
      for (const r of op.refs) this.refsSeen.add(r)
    }
    for (const g of added) await sql.insertRows(g.table, g.columns, g.rows)
    for (const g of replaced) await sql.upsertRows(g.table, g.columns, ['ref'], g.rows)
    for (const g of parts) await sql.insertRows(g.table, g.columns, g.rows)
    // Attachment content goes up to STATEMENT_BYTES per statement: one statement for all of
    // it would bind the whole buffer's megabytes at once. Counted in bytes, not chunks: ten
    // chunks a statement sent the scale-10 demo's 7,328 small files (~2.5 KB) as 733 round
    // trips to PostgreSQL, now 4 (the same time on one machine, where they overlap parsing;
    // each is a network round trip to a server elsewhere).
    for (const [table, rows] of chunks) {
      let start = 0
      let bytes = 0
      for (let i = 0; i < rows.length; i++) {
        const size = (rows[i]![2] as Buffer).length
        if (i > start && bytes + size > STATEMENT_BYTES) {
          await sql.insertRows(table, ['owner', 'seq', 'chunk'], rows.slice(start, i))
          start = i
          bytes = 0
        }
        bytes += size
      }
      await sql.insertRows(table, ['owner', 'seq', 'chunk'], rows.slice(start))
    }
  }

  /** Stored objects being written again: what they were is cleared (or moved) first. */
  async #replacing(ops: readonly Upsert[]): Promise<void> {
    const sql = this.#sql
    const types = await this.#storedTypes(ops.map((op) => op.ref))
    const same: Upsert[] = []
    for (const op of ops) {
      const oldType = types.get(op.ref)!
      if (objectType(oldType)?.table !== op.decl.table) await this.#remove(op.ref, oldType, false)
      else same.push(op)
    }
    for (const [table, list] of group(same, (op) => op.decl.table))
      await this.#touchOwners(
        table,
        list.map((op) => op.ref),
      )
    await sql.upsertRows(
      'objects',
      ['ref', 'type', 'presentation', 'date'],
      ['ref'],
      ops.map((op) => [op.ref, op.type, op.presentation, op.date]),
    )
    // Their content and tabular rows are replaced whole, as the lines give them.
    const owned = ops.flatMap((op) => [
      ...[...op.blobs.keys()].map((col) => ({ table: chunkTable(op.decl.table, col), ref: op.ref })),
      ...op.tabular.map((part) => ({ table: part.table, ref: op.ref })),
    ])
    for (const [table, list] of group(owned, (o) => o.table))
      await sql.deleteIn(
        table,
        'owner',
        list.map((o) => o.ref),
      )
  }

  async #storedTypes(refs: readonly string[]): Promise<Map<string, string>> {
    const stored = await this.#sql.selectIn<{ ref: string; type: string }>('objects', ['ref', 'type'], 'ref', refs)
    const types = new Map<string, string>()
    for (const { ref, type } of stored) {
      types.set(ref, type)
      this.touchedTypes.add(type)
    }
    return types
  }

  async #writeRecords(ops: readonly Records[]): Promise<void> {
    const sql = this.#sql
    for (const [table, list] of group(ops, (op) => op.decl.table)) {
      // The replaced rows go in one statement that also reports what they pointed to: the
      // owners to re-print and the derived rows to recompute.
      const links = OWNER_LINKS[table] ?? []
      const report = [...new Set([...links, ...(this.#derived?.columnsOf(table) ?? [])])]
      const old = await sql.deleteIn(
        table,
        'recorder',
        list.map((op) => op.recorder),
        report,
      )
      if (report.length > 0) {
        for (const row of old) for (const col of links) if (row[col]) this.#touchOwner(row[col] as string)
        this.#derived?.removed(table, old)
      }
      const rows = new Groups()
      for (const op of list) {
        if (op.rows.length > 0) {
          rows.add(table, op.columns, op.rows)
          for (const row of op.rows) this.#touchOwnerValues(table, op.columns, row)
          this.#derived?.added(table, op.columns, op.rows)
        }
        for (const r of op.refs) this.refsSeen.add(r)
      }
      for (const g of rows) await sql.insertRows(g.table, g.columns, g.rows)
    }
  }

  async #remove(ref: string, type: string, withObject = true): Promise<void> {
    const decl: ObjectType | undefined = objectType(type)
    if (!decl) return
    await this.#touchOwners(decl.table, [ref])
    await this.#sql.run(`DELETE FROM ${decl.table} WHERE ref = ?`, [ref])
    for (const part of decl.tabular ?? []) await this.#sql.run(`DELETE FROM ${part.table} WHERE owner = ?`, [ref])
    for (const a of decl.attrs)
      if (a.kind === 'base64') await this.#sql.run(`DELETE FROM ${chunkTable(decl.table, a.col)} WHERE owner = ?`, [ref])
    if (withObject) await this.#sql.run('DELETE FROM objects WHERE ref = ?', [ref])
  }

  /** The owners objects pointed to before they change (an attachment moved or deleted). */
  async #touchOwners(table: string, refs: readonly string[]): Promise<void> {
    const links = OWNER_LINKS[table]
    if (!links) return
    const rows = await this.#sql.selectIn<Record<string, string>>(table, links, 'ref', refs)
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
}
