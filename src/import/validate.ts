// One line of an import file → a write operation, or the reasons it is invalid.
import { objectType, registerType } from '../model/objects.js'
import type { Attr, ObjectType, RegisterType } from '../model/define.js'
import type { SqlValue } from '../store/sql.js'
import { attrColumns, commonColumns } from '../store/schema.js'
import { ValueError, attrValues, isUuid, normalizeDate } from './values.js'

export interface TabularRows {
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

const COMMON_KEYS = new Set(['type', 'ref', 'deleted', 'ПометкаУдаления'])
const CATALOG_KEYS = ['Код', 'Наименование']
const HIERARCHY_KEYS = ['ЭтоГруппа', 'Родитель']
const DOCUMENT_KEYS = ['Номер', 'Дата', 'Проведен']

export function validate(value: unknown): Validated {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, type: '', ref: '', reasons: ['not a JSON object'] }
  }
  const obj = value as Record<string, unknown>
  const type = typeof obj.type === 'string' ? obj.type : ''
  const rawRef = typeof obj.ref === 'string' ? obj.ref : ''
  if (type === '') return { ok: false, type, ref: rawRef, reasons: ['missing "type"'] }
  const reg = registerType(type)
  if (reg) return validateRecords(reg, obj)
  const decl = objectType(type)
  if (!decl) return { ok: false, type, ref: rawRef, reasons: [`unknown type ${type}`] }
  if (obj.ref === undefined || obj.ref === null || obj.ref === '') return { ok: false, type, ref: '', reasons: ['missing "ref"'] }
  if (!isUuid(obj.ref)) return { ok: false, type, ref: rawRef, reasons: [`"ref" is not a UUID: ${JSON.stringify(obj.ref)}`] }
  const ref = obj.ref.toLowerCase()
  if (obj.deleted !== undefined && typeof obj.deleted !== 'boolean') {
    return { ok: false, type, ref, reasons: ['"deleted" must be a boolean'] }
  }
  if (obj.deleted === true) return { ok: true, operation: { op: 'delete', type, ref }, unknownKeys: [] }
  return validateObject(decl, type, ref, obj)
}

function validateObject(decl: ObjectType, type: string, ref: string, obj: Record<string, unknown>): Validated {
  const reasons: string[] = []
  const refs: string[] = []
  const known = new Set(COMMON_KEYS)
  const values: SqlValue[] = [ref]
  const put = (attr: Attr, v: unknown): void => {
    known.add(attr.name)
    try {
      if (attr.required && (v === undefined || v === null || v === '')) throw new ValueError('is required')
      const stored = attrValues(attr, v)
      if ((attr.kind === 'ref' || attr.kind === 'composite') && stored[0] !== '') refs.push(stored[0] as string)
      values.push(...stored)
    } catch (err) {
      reasons.push(`${attr.name}: ${(err as Error).message}`)
    }
  }
  put({ name: 'ПометкаУдаления', col: 'deletion_mark', kind: 'boolean' }, obj.ПометкаУдаления)
  let presentation = ''
  let date = ''
  if (decl.class === 'catalog') {
    put({ name: 'Код', col: 'code', kind: 'string' }, obj.Код)
    put({ name: 'Наименование', col: 'name', kind: 'string' }, obj.Наименование)
    presentation = typeof obj.Наименование === 'string' ? obj.Наименование : ''
  } else {
    put({ name: 'Номер', col: 'number', kind: 'string' }, obj.Номер)
    put({ name: 'Дата', col: 'date', kind: 'date' }, obj.Дата)
    put({ name: 'Проведен', col: 'posted', kind: 'boolean' }, obj.Проведен)
    presentation = typeof obj.Номер === 'string' ? obj.Номер : ''
    try {
      date = normalizeDate(obj.Дата ?? null)
    } catch {
      date = ''
    }
  }
  if (decl.hierarchical) {
    put({ name: 'ЭтоГруппа', col: 'is_group', kind: 'boolean' }, obj.ЭтоГруппа)
    put({ name: 'Родитель', col: 'parent', kind: 'ref', target: type }, obj.Родитель)
  }
  if (decl.table === 'doc_other') values.push(type)
  for (const attr of decl.attrs) put(attr, obj[attr.name])
  const tabular: TabularRows[] = []
  for (const part of decl.tabular ?? []) {
    known.add(part.name)
    const raw = obj[part.name]
    if (raw === undefined || raw === null) {
      tabular.push({ table: part.table, columns: [], rows: [] })
      continue
    }
    if (!Array.isArray(raw)) {
      reasons.push(`${part.name}: expected an array of rows`)
      continue
    }
    const rows: SqlValue[][] = []
    raw.forEach((row: unknown, i) => {
      if (typeof row !== 'object' || row === null || Array.isArray(row)) {
        reasons.push(`${part.name}[${i + 1}]: expected a row object`)
        return
      }
      const r = row as Record<string, unknown>
      const own = r.НомерСтроки
      const out: SqlValue[] = [ref, i + 1, typeof own === 'string' || typeof own === 'number' ? String(own) : String(i + 1)]
      for (const attr of part.attrs) {
        try {
          const stored = attrValues(attr, r[attr.name])
          if ((attr.kind === 'ref' || attr.kind === 'composite') && stored[0] !== '') refs.push(stored[0] as string)
          out.push(...stored)
        } catch (err) {
          reasons.push(`${part.name}[${i + 1}].${attr.name}: ${(err as Error).message}`)
        }
      }
      rows.push(out)
    })
    const columns = ['owner', 'line', 'row_number', ...part.attrs.flatMap(attrColumns).map((c) => c.name)]
    tabular.push({ table: part.table, columns, rows })
  }
  if (decl.class === 'catalog') CATALOG_KEYS.forEach((k) => known.add(k))
  else DOCUMENT_KEYS.forEach((k) => known.add(k))
  if (decl.hierarchical) HIERARCHY_KEYS.forEach((k) => known.add(k))
  if (reasons.length > 0) return { ok: false, type, ref, reasons }
  const columns = [...commonColumns(decl), ...decl.attrs.flatMap(attrColumns)].map((c) => c.name)
  return {
    ok: true,
    operation: { op: 'upsert', decl, type, ref, columns, values, presentation, date, tabular, refs },
    unknownKeys: Object.keys(obj).filter((k) => !known.has(k)),
  }
}

function validateRecords(reg: RegisterType, obj: Record<string, unknown>): Validated {
  const type = reg.type
  const recorder = obj.Регистратор
  const reasons: string[] = []
  let recorderRef = ''
  let recorderType = ''
  if (typeof recorder !== 'object' || recorder === null || Array.isArray(recorder)) {
    reasons.push('Регистратор: required composite reference {"type": …, "ref": …}')
  } else {
    const { type: rt, ref: rr } = recorder as { type?: unknown; ref?: unknown }
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
      if (typeof m !== 'object' || m === null || Array.isArray(m)) {
        reasons.push(`Движения[${i + 1}]: expected a record object`)
        return
      }
      const rec = m as Record<string, unknown>
      const out: SqlValue[] = [recorderRef, recorderType, i + 1]
      for (const attr of reg.attrs) {
        try {
          const v = rec[attr.name]
          if (attr.required && (v === undefined || v === null || v === '')) throw new ValueError('is required')
          const stored = attrValues(attr, v)
          if ((attr.kind === 'ref' || attr.kind === 'composite') && stored[0] !== '') refs.push(stored[0] as string)
          out.push(...stored)
        } catch (err) {
          reasons.push(`Движения[${i + 1}].${attr.name}: ${(err as Error).message}`)
        }
      }
      rows.push(out)
    })
  }
  if (reasons.length > 0) return { ok: false, type, ref: recorderRef, reasons }
  const columns = ['recorder', 'recorder_type', 'line', ...reg.attrs.flatMap(attrColumns).map((c) => c.name)]
  const known = new Set(['type', 'Регистратор', 'Движения'])
  return {
    ok: true,
    operation: { op: 'records', decl: reg, recorder: recorderRef, recorderType, columns, rows, refs },
    unknownKeys: Object.keys(obj).filter((k) => !known.has(k)),
  }
}
