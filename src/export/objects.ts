// The store's objects back in import form (data-format.md), generic over the model
// declarations: what `docgate fake-1c --db` serves, and a way to move a store's content.
import { ALL_TABLE_TYPES, REGISTER_TYPES } from '../model/objects.js'
import type { Attr, ObjectType, TabularPart } from '../model/define.js'
import { chunkTable } from '../store/blobs.js'
import type { SqlPort } from '../store/sql.js'

type Row = Record<string, unknown>

export function value(attr: Attr, row: Row): unknown {
  const v = row[attr.col]
  switch (attr.kind) {
    case 'number':
      return Number(v)
    case 'boolean':
      return Number(v) === 1
    case 'composite':
      return v ? { type: row[`${attr.col}_type`], ref: v } : null
    default:
      return v
  }
}

async function content(sql: SqlPort, table: string, owner: string): Promise<string> {
  const chunks = await sql.all<{ chunk: Buffer | Uint8Array }>(`SELECT chunk FROM ${table} WHERE owner = ? ORDER BY seq`, [owner])
  return Buffer.concat(chunks.map((c) => Buffer.from(c.chunk))).toString('base64')
}

/** One stored tabular row in import form. */
function partRow(part: TabularPart, r: Row): Row {
  const out: Row = { НомерСтроки: Number(r.row_number) || Number(r.line) }
  for (const a of part.attrs) out[a.name] = value(a, r)
  return out
}

/**
 * One stored object (its row of `decl.table`) in import form; `rows` gives each tabular
 * part's stored rows in line order. `withContent` false leaves the stored bytes unread ('').
 */
export async function objectFromRow(
  sql: SqlPort,
  decl: ObjectType,
  r: Row,
  rows: (part: TabularPart) => readonly Row[],
  withContent = true,
): Promise<Row> {
  const ref = r.ref as string
  const o: Row = { type: decl.table === 'doc_other' ? r.type : decl.type, ref, ПометкаУдаления: Number(r.deletion_mark) === 1 }
  if (decl.class === 'catalog') Object.assign(o, { Код: r.code, Наименование: r.name })
  else Object.assign(o, { Номер: r.number, Дата: r.date, Проведен: Number(r.posted) === 1 })
  if (decl.hierarchical) Object.assign(o, { ЭтоГруппа: Number(r.is_group) === 1, Родитель: r.parent })
  for (const a of decl.attrs)
    o[a.name] = a.kind === 'base64' ? (withContent ? await content(sql, chunkTable(decl.table, a.col), ref) : '') : value(a, r)
  for (const part of decl.tabular ?? []) o[part.name] = rows(part).map((row) => partRow(part, row))
  return o
}

async function* objectsOf(sql: SqlPort, decl: ObjectType): AsyncGenerator<Row> {
  const parts = new Map<string, Map<string, Row[]>>()
  for (const part of decl.tabular ?? []) {
    const byOwner = new Map<string, Row[]>()
    for (const r of await sql.all<Row>(`SELECT * FROM ${part.table} ORDER BY owner, line`)) {
      const list = byOwner.get(r.owner as string) ?? []
      list.push(r)
      byOwner.set(r.owner as string, list)
    }
    parts.set(part.name, byOwner)
  }
  for (const r of await sql.all<Row>(`SELECT * FROM ${decl.table} ORDER BY ref`)) {
    yield objectFromRow(sql, decl, r, (part) => parts.get(part.name)!.get(r.ref as string) ?? [])
  }
}

export async function* exportObjects(sql: SqlPort): AsyncGenerator<Row> {
  for (const decl of ALL_TABLE_TYPES) yield* objectsOf(sql, decl)
  for (const reg of REGISTER_TYPES) {
    let current: Row | undefined
    for (const r of await sql.all<Row>(`SELECT * FROM ${reg.table} ORDER BY recorder, line`)) {
      if (current?.ref !== r.recorder) {
        if (current) yield current.set as Row
        current = { ref: r.recorder, set: { type: reg.type, Регистратор: { type: r.recorder_type, ref: r.recorder }, Движения: [] } }
      }
      const move: Row = {}
      for (const a of reg.attrs) move[a.name] = value(a, r)
      ;((current!.set as Row)['Движения'] as Row[]).push(move)
    }
    if (current) yield current.set as Row
  }
}
