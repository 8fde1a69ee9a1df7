// The map file of sync.md §5, parsed and checked: every unknown member, type, attribute or
// form is an error naming its JSON path (exit 2), before anything is attempted.
import { OBJECT_TYPES, REGISTER_TYPES } from '../../model/objects.js'
import { commonAttributes, partsOf, rowAttributesOf } from './model.js'

export interface SyncOptions {
  readonly concurrency: 1 | 2
  readonly maxDeletePercent: number
  readonly registerRescanDays: number
  readonly readTimeoutSeconds: number
  /** Calendar months a recent version scan reads, the current one counted (§7.4). */
  readonly recentMonths: number
  /** A document set whose last full scan began this long ago or more is scanned whole (§7.4); 0: always. */
  readonly fullScanHours: number
}

/** Where a docgate attribute's value comes from. */
export type SourceForm =
  | {
      readonly from: string
      readonly keepTypes?: readonly string[]
      readonly enum?: Readonly<Record<string, string>>
      readonly trim?: boolean
    }
  | { readonly none: true }
  | { readonly value: unknown }
  | { readonly closedFromDate: string }
  | { readonly sliceLast: string }

interface PartOverride {
  readonly from: string
  readonly attributes: Readonly<Record<string, SourceForm>>
}

export interface TypeOverride {
  readonly entitySet?: string
  readonly attributes?: Readonly<Record<string, SourceForm>>
  readonly tabularParts?: Readonly<Record<string, PartOverride | null>>
  readonly skipRecorderTypes?: readonly string[]
  readonly recordTypes?: readonly ('Expense' | 'Receipt')[]
  readonly recorderType?: string
}

export interface MapFile {
  readonly options: SyncOptions
  /** docgate type → override; null = not synced. */
  readonly types: Readonly<Record<string, TypeOverride | null>>
}

export class MapFileError extends Error {}

const DEFAULT_OPTIONS: SyncOptions = {
  concurrency: 1,
  maxDeletePercent: 2,
  registerRescanDays: 45,
  readTimeoutSeconds: 300,
  recentMonths: 3,
  fullScanHours: 24,
}

export const defaultMapFile = (): MapFile => ({ options: DEFAULT_OPTIONS, types: {} })

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const fail = (path: string, what: string): never => {
  throw new MapFileError(`${path}: ${what}`)
}

function members(v: unknown, path: string, allowed: readonly string[]): Record<string, unknown> {
  if (!isObject(v)) fail(path, 'expected an object')
  const o = v as Record<string, unknown>
  for (const k of Object.keys(o)) if (!allowed.includes(k)) fail(`${path}.${k}`, 'unknown member')
  return o
}

const strings = (v: unknown, path: string): string[] => {
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) fail(path, 'expected an array of strings')
  return v as string[]
}

function sourceForm(v: unknown, path: string, allowSliceLast: boolean): SourceForm {
  if (v === null) return { none: true }
  if (typeof v === 'string') return { from: v }
  if (!isObject(v)) return fail(path, 'unknown form')
  if ('value' in v) {
    members(v, path, ['value'])
    return { value: v.value }
  }
  if ('closedFromDate' in v) {
    const o = members(v, path, ['closedFromDate'])
    if (typeof o.closedFromDate !== 'string') fail(`${path}.closedFromDate`, 'expected a property name')
    return { closedFromDate: o.closedFromDate as string }
  }
  if ('sliceLast' in v) {
    const o = members(v, path, ['sliceLast'])
    if (!allowSliceLast) fail(path, 'sliceLast is only for ОсновнаяСпецификация of Справочник.Номенклатура')
    if (typeof o.sliceLast !== 'string') fail(`${path}.sliceLast`, 'expected a register entity set')
    return { sliceLast: o.sliceLast as string }
  }
  if ('from' in v) {
    const o = members(v, path, ['from', 'keepTypes', 'enum', 'trim'])
    if (typeof o.from !== 'string') fail(`${path}.from`, 'expected a property name')
    const form: { from: string; keepTypes?: string[]; enum?: Record<string, string>; trim?: boolean } = { from: o.from as string }
    if (o.keepTypes !== undefined) form.keepTypes = strings(o.keepTypes, `${path}.keepTypes`)
    if (o.enum !== undefined) {
      if (!isObject(o.enum) || Object.values(o.enum).some((x) => typeof x !== 'string'))
        fail(`${path}.enum`, 'expected an object of strings')
      form.enum = o.enum as Record<string, string>
    }
    if (o.trim !== undefined) {
      if (typeof o.trim !== 'boolean') fail(`${path}.trim`, 'expected true or false')
      form.trim = o.trim as boolean
    }
    return form
  }
  return fail(path, 'unknown form')
}

function positive(v: unknown, path: string, min: number, max = Infinity, integer = true): number {
  if (typeof v !== 'number' || !(v >= min && v <= max) || (integer && !Number.isInteger(v)))
    fail(path, `expected a number from ${min}${max < Infinity ? ` to ${max}` : ''}`)
  return v as number
}

const OBJECTS = new Map(OBJECT_TYPES.map((t) => [t.type, t]))
const REGISTERS = new Map(REGISTER_TYPES.map((t) => [t.type, t]))

export function parseMapFile(text: string): MapFile {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new MapFileError(`not JSON: ${(err as Error).message}`)
  }
  const top = members(json, '$', ['options', 'types'])
  const o =
    top.options === undefined
      ? {}
      : members(top.options, 'options', [
          'concurrency',
          'maxDeletePercent',
          'registerRescanDays',
          'readTimeoutSeconds',
          'recentMonths',
          'fullScanHours',
        ])
  const options: SyncOptions = {
    concurrency: o.concurrency === undefined ? 1 : (positive(o.concurrency, 'options.concurrency', 1, 2) as 1 | 2),
    maxDeletePercent: o.maxDeletePercent === undefined ? 2 : positive(o.maxDeletePercent, 'options.maxDeletePercent', 0, 100, false),
    registerRescanDays: o.registerRescanDays === undefined ? 45 : positive(o.registerRescanDays, 'options.registerRescanDays', 0),
    readTimeoutSeconds: o.readTimeoutSeconds === undefined ? 300 : positive(o.readTimeoutSeconds, 'options.readTimeoutSeconds', 1),
    recentMonths: o.recentMonths === undefined ? 3 : positive(o.recentMonths, 'options.recentMonths', 1),
    fullScanHours: o.fullScanHours === undefined ? 24 : positive(o.fullScanHours, 'options.fullScanHours', 0),
  }
  const types: Record<string, TypeOverride | null> = {}
  const t = top.types === undefined ? {} : members(top.types, 'types', Object.keys(top.types as object))
  for (const [type, value] of Object.entries(t)) {
    const path = `types.${type}`
    const decl = OBJECTS.get(type)
    const reg = REGISTERS.get(type)
    const other = !decl && !reg && type.startsWith('Документ.') && type.length > 'Документ.'.length
    if (!decl && !reg && !other) fail(path, 'unknown docgate type')
    if (value === null) {
      types[type] = null
      continue
    }
    const allowed = reg
      ? ['entitySet', 'attributes', 'skipRecorderTypes', 'recordTypes', 'recorderType']
      : other
        ? ['entitySet', 'attributes']
        : ['entitySet', 'attributes', 'tabularParts']
    const v = members(value, path, allowed)
    const out: { -readonly [K in keyof TypeOverride]: TypeOverride[K] } = {}
    if (v.entitySet !== undefined) {
      if (typeof v.entitySet !== 'string') fail(`${path}.entitySet`, 'expected an entity-set name')
      out.entitySet = v.entitySet as string
    }
    if (v.attributes !== undefined) {
      const known = reg
        ? reg.attrs.map((a) => a.name)
        : other
          ? commonAttributes('document', false).map((a) => a.name)
          : [...commonAttributes(decl!.class, decl!.hierarchical === true).map((a) => a.name), ...decl!.attrs.map((a) => a.name)]
      const a = members(v.attributes, `${path}.attributes`, known)
      out.attributes = Object.fromEntries(
        Object.entries(a).map(([name, form]) => [
          name,
          sourceForm(form, `${path}.attributes.${name}`, type === 'Справочник.Номенклатура' && name === 'ОсновнаяСпецификация'),
        ]),
      )
    }
    if (v.tabularParts !== undefined) {
      const parts = partsOf(type)
      const p = members(
        v.tabularParts,
        `${path}.tabularParts`,
        parts.map((x) => x.name),
      )
      const outParts: Record<string, PartOverride | null> = {}
      for (const [name, form] of Object.entries(p)) {
        const pp = `${path}.tabularParts.${name}`
        if (form === null) {
          outParts[name] = null
          continue
        }
        const f = members(form, pp, ['from', 'attributes'])
        if (typeof f.from !== 'string') fail(`${pp}.from`, 'expected a property name')
        const rowNames = rowAttributesOf(type, name).map((x) => x.name)
        const ra = f.attributes === undefined ? {} : members(f.attributes, `${pp}.attributes`, rowNames)
        outParts[name] = {
          from: f.from as string,
          attributes: Object.fromEntries(Object.entries(ra).map(([n, x]) => [n, sourceForm(x, `${pp}.attributes.${n}`, false)])),
        }
      }
      out.tabularParts = outParts
    }
    if (v.skipRecorderTypes !== undefined) out.skipRecorderTypes = strings(v.skipRecorderTypes, `${path}.skipRecorderTypes`)
    if (v.recordTypes !== undefined) {
      const rt = strings(v.recordTypes, `${path}.recordTypes`)
      if (rt.length === 0 || rt.some((x) => x !== 'Expense' && x !== 'Receipt'))
        fail(`${path}.recordTypes`, 'expected ["Expense"], ["Receipt"] or both')
      out.recordTypes = rt as ('Expense' | 'Receipt')[]
    }
    if (v.recorderType !== undefined) {
      if (typeof v.recorderType !== 'string') fail(`${path}.recorderType`, 'expected an entity-set name')
      out.recorderType = v.recorderType as string
    }
    types[type] = out
  }
  return { options, types }
}
