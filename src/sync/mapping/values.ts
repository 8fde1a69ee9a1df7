// R3 and R6 of sync.md §4.1: a source value → the import form's value, or a mapping error.
// Each reader is built once per attribute at resolution time and called per entity.

export class MapError extends Error {}

type Warn = (attribute: string, reason: string) => void

export interface ReadContext {
  readonly today: string
  readonly warn: Warn
}

export type Reader = (entity: Record<string, unknown>, ctx: ReadContext) => unknown

const ZERO_GUID = '00000000-0000-0000-0000-000000000000'
const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/
const EMPTY_DATE = '0001-01-01T00:00:00'

const describe = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v) : (JSON.stringify(v) ?? String(v))

export function stringValue(v: unknown, edit?: (s: string) => string): string {
  if (v === null || v === undefined) return ''
  if (typeof v !== 'string') throw new MapError(`expected a string, got ${describe(v)}`)
  return edit ? edit(v) : v
}

export function numberValue(v: unknown): number {
  if (v === null || v === undefined) return 0
  if (typeof v === 'number' && Number.isFinite(v)) return v
  if (typeof v === 'string' && DECIMAL.test(v.trim())) return Number(v)
  throw new MapError(`expected a number, got ${describe(v)}`)
}

export function booleanValue(v: unknown): boolean {
  if (v === null || v === undefined) return false
  if (typeof v !== 'boolean') throw new MapError(`expected true or false, got ${describe(v)}`)
  return v
}

export function dateValue(v: unknown): string {
  if (v === null || v === undefined) return ''
  if (typeof v !== 'string') throw new MapError(`expected a date, got ${describe(v)}`)
  return v === EMPTY_DATE ? EMPTY_DATE : v
}

export function guid(v: unknown): string {
  if (v === null || v === undefined || v === '') return ''
  if (typeof v !== 'string') throw new MapError(`expected a GUID, got ${describe(v)}`)
  const g = v.toLowerCase()
  return g === ZERO_GUID ? '' : g
}

/** Code and Number arrive padded to their fixed length: only trailing U+0020 go. */
export const trimPadding = (s: string): string => s.replace(/ +$/, '')

/** A composite pair's `_Type`: the entity set it names, or undefined when it is no catalogue or document. */
export function pairSet(type: unknown): string | undefined {
  if (typeof type !== 'string') return undefined
  const m = /^StandardODATA\.((?:Catalog|Document)_.+)$/.exec(type)
  return m ? m[1] : undefined
}
