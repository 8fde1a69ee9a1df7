// One line of an import file → a write operation, or the reasons it is invalid.
import { objectType, registerType } from '../model/objects.js'
import type { Attr, ObjectType, RegisterType, TabularPart } from '../model/define.js'
import type { SqlValue } from '../store/sql.js'
import { attrColumns, commonColumns } from '../store/schema.js'
import { ValueError, isUuid, normalizeDate, storeValue } from './values.js'

interface TabularRows {
  readonly table: string
  readonly columns: readonly string[]
  readonly rows: readonly SqlValue[][]
}

export type Operation =
  | {
      readonly op: 'upsert'
      readonly decl: ObjectType
      readonly type: string
      readonly ref: string
      readonly columns: readonly string[]
      readonly values: readonly SqlValue[]
      readonly presentation: string
      readonly date: string
      readonly tabular: readonly TabularRows[]
      /** Binary attribute values by column, stored in chunks (store/blobs.ts). */
      readonly blobs: ReadonlyMap<string, Buffer>
      /** References held by this object, for the dangling-reference warning. */
      readonly refs: readonly string[]
    }
  | { readonly op: 'delete'; readonly type: string; readonly ref: string }
  | {
      readonly op: 'records'
      readonly decl: RegisterType
      readonly recorder: string
      readonly recorderType: string
      readonly columns: readonly string[]
      readonly rows: readonly SqlValue[][]
      readonly refs: readonly string[]
    }

export type Validated =
  | { readonly ok: true; readonly operation: Operation; readonly unknownKeys: readonly string[] }
  | { readonly ok: false; readonly type: string; readonly ref: string; readonly reasons: readonly string[] }

/** The attributes of a type in store-column order, common keys first; computed once per type. */
interface Layout {
  readonly attrs: readonly Attr[]
  readonly columns: readonly string[]
  readonly known: ReadonlySet<string>
  readonly parts: readonly { readonly part: TabularPart; readonly columns: readonly string[] }[]
}

/**
 * Codes, numbers and names are sort keys of the read models. A PostgreSQL B-tree entry
 * holds at most 2,704 bytes, and (name, code, ref) must fit with every character at three
 * bytes; both engines refuse the same lines, as with NUL. The accounting system's own
 * limits are far lower.
 */
const MAX_CODE = 100
const MAX_NAME = 500

const layouts = new Map<ObjectType, Layout>()
const registerLayouts = new Map<RegisterType, { columns: readonly string[] }>()
const columnNames = (attrs: readonly Attr[]) => attrs.flatMap(attrColumns).map((c) => c.name)

export function layoutOf(decl: ObjectType, type: string): Layout {
  let layout = layouts.get(decl)
  if (!layout) {
    const common: Attr[] = [{ name: 'ПометкаУдаления', col: 'deletion_mark', kind: 'boolean' }]
    if (decl.class === 'catalog') {
      common.push(
        { name: 'Код', col: 'code', kind: 'string', maxLength: MAX_CODE },
        { name: 'Наименование', col: 'name', kind: 'string', maxLength: MAX_NAME },
      )
    } else {
      common.push(
        { name: 'Номер', col: 'number', kind: 'string', maxLength: MAX_CODE },
        { name: 'Дата', col: 'date', kind: 'date' },
        { name: 'Проведен', col: 'posted', kind: 'boolean' },
      )
    }
    if (decl.hierarchical) {
      common.push({ name: 'ЭтоГруппа', col: 'is_group', kind: 'boolean' }, { name: 'Родитель', col: 'parent', kind: 'ref', target: type })
    }
    const attrs = [...common, ...decl.attrs]
    layout = {
      attrs,
      columns: [...commonColumns(decl), ...decl.attrs.flatMap(attrColumns)].map((c) => c.name),
      known: new Set(['type', 'ref', 'deleted', ...attrs.map((a) => a.name), ...(decl.tabular ?? []).map((p) => p.name)]),
      parts: (decl.tabular ?? []).map((part) => ({ part, columns: ['owner', 'line', 'row_number', ...columnNames(part.attrs)] })),
    }
    layouts.set(decl, layout)
  }
  return layout
}

/** Reads `attrs` of `source` into `out`; each invalid one adds a reason (prefixed). */
function readAttrs(
  attrs: readonly Attr[],
  source: Record<string, unknown>,
  out: SqlValue[],
  refs: string[],
  reasons: string[],
  prefix: string,
  blobs?: Map<string, Buffer>,
): void {
  for (const attr of attrs) {
    try {
      storeValue(attr, source[attr.name], out, refs, blobs)
    } catch (err) {
      if (!(err instanceof ValueError)) throw err
      reasons.push(`${prefix}${attr.name}: ${err.message}`)
    }
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * What an operation adds to a write buffer: rows (the object or record set itself and its
 * tabular or register rows) and attachment bytes. The writer fills its buffer by it and the
 * checking thread its batches.
 */
export function weightOf(op: Operation): { readonly rows: number; readonly bytes: number } {
  if (op.op === 'records') return { rows: op.rows.length + 1, bytes: 0 }
  if (op.op === 'delete') return { rows: 1, bytes: 0 }
  let rows = 1
  let bytes = 0
  for (const part of op.tabular) rows += part.rows.length
  for (const data of op.blobs.values()) bytes += data.length
  return { rows, bytes }
}

export function registerLayoutOf(reg: RegisterType): { readonly columns: readonly string[] } {
  let layout = registerLayouts.get(reg)
  if (!layout) registerLayouts.set(reg, (layout = { columns: ['recorder', 'recorder_type', 'line', ...columnNames(reg.attrs)] }))
  return layout
}

export function validate(value: unknown): Validated {
  if (!isRecord(value)) return { ok: false, type: '', ref: '', reasons: ['not a JSON object'] }
  const type = typeof value.type === 'string' ? value.type : ''
  const rawRef = typeof value.ref === 'string' ? value.ref : ''
  if (type === '') return { ok: false, type, ref: rawRef, reasons: ['missing "type"'] }
  const reg = registerType(type)
  if (reg) return validateRecords(reg, value)
  const decl = objectType(type)
  if (!decl) return { ok: false, type, ref: rawRef, reasons: [`unknown type ${type}`] }
  if (value.ref === undefined || value.ref === null || value.ref === '') return { ok: false, type, ref: '', reasons: ['missing "ref"'] }
  if (!isUuid(value.ref)) return { ok: false, type, ref: rawRef, reasons: [`"ref" is not a UUID: ${JSON.stringify(value.ref)}`] }
  const ref = value.ref.toLowerCase()
  if (value.deleted !== undefined && typeof value.deleted !== 'boolean') {
    return { ok: false, type, ref, reasons: ['"deleted" must be a boolean'] }
  }
  if (value.deleted === true) return { ok: true, operation: { op: 'delete', type, ref }, unknownKeys: [] }
  return validateObject(decl, type, ref, value)
}

function validateObject(decl: ObjectType, type: string, ref: string, obj: Record<string, unknown>): Validated {
  const layout = layoutOf(decl, type)
  const reasons: string[] = []
  const refs: string[] = []
  const values: SqlValue[] = [ref]
  const blobs = new Map<string, Buffer>()
  readAttrs(layout.attrs, obj, values, refs, reasons, '', blobs)
  // Other documents have only the common keys; their type is the last column.
  if (decl.table === 'doc_other') values.push(type)
  const tabular: TabularRows[] = []
  for (const { part, columns } of layout.parts) {
    const raw = obj[part.name] ?? []
    if (!Array.isArray(raw)) {
      reasons.push(`${part.name}: expected an array of rows`)
      continue
    }
    const rows: SqlValue[][] = []
    for (let i = 0; i < raw.length; i++) {
      const row: unknown = raw[i]
      if (!isRecord(row)) {
        reasons.push(`${part.name}[${i + 1}]: expected a row object`)
        continue
      }
      const own = row.НомерСтроки
      const out: SqlValue[] = [ref, i + 1, typeof own === 'string' || typeof own === 'number' ? String(own) : String(i + 1)]
      readAttrs(part.attrs, row, out, refs, reasons, `${part.name}[${i + 1}].`)
      rows.push(out)
    }
    tabular.push({ table: part.table, columns, rows })
  }
  if (reasons.length > 0) return { ok: false, type, ref, reasons }
  const presentation = String((decl.class === 'catalog' ? obj.Наименование : obj.Номер) ?? '')
  const date = decl.class === 'document' ? normalizeDate(obj.Дата ?? null) : ''
  return {
    ok: true,
    operation: { op: 'upsert', decl, type, ref, columns: layout.columns, values, presentation, date, tabular, blobs, refs },
    unknownKeys: Object.keys(obj).filter((k) => !layout.known.has(k)),
  }
}

function validateRecords(reg: RegisterType, obj: Record<string, unknown>): Validated {
  const type = reg.type
  const recorder = obj.Регистратор
  const reasons: string[] = []
  let recorderRef = ''
  let recorderType = ''
  if (!isRecord(recorder)) {
    reasons.push('Регистратор: required composite reference {"type": …, "ref": …}')
  } else {
    const { type: rt, ref: rr } = recorder
    if (typeof rt !== 'string' || !rt.startsWith('Документ.')) reasons.push('Регистратор: composite reference without a document "type"')
    else recorderType = rt
    if (!isUuid(rr)) reasons.push('Регистратор: "ref" is not a UUID')
    else recorderRef = rr.toLowerCase()
  }
  const moves = obj.Движения
  const rows: SqlValue[][] = []
  const refs: string[] = []
  if (!Array.isArray(moves)) reasons.push('Движения: expected an array of records')
  else {
    moves.forEach((m: unknown, i) => {
      if (!isRecord(m)) {
        reasons.push(`Движения[${i + 1}]: expected a record object`)
        return
      }
      const out: SqlValue[] = [recorderRef, recorderType, i + 1]
      readAttrs(reg.attrs, m, out, refs, reasons, `Движения[${i + 1}].`)
      rows.push(out)
    })
  }
  if (reasons.length > 0) return { ok: false, type, ref: recorderRef, reasons }
  const layout = registerLayoutOf(reg)
  const known = new Set(['type', 'Регистратор', 'Движения'])
  return {
    ok: true,
    operation: { op: 'records', decl: reg, recorder: recorderRef, recorderType, columns: layout.columns, rows, refs },
    unknownKeys: Object.keys(obj).filter((k) => !known.has(k)),
  }
}
