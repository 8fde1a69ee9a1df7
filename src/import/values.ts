// Value rules of data-format.md § Values: each JSON value is checked against its
// attribute's kind and turned into the stored form, or into a reason it is invalid.
import { allowsType } from '../model/define.js'
import type { Attr } from '../model/define.js'
import type { SqlValue } from '../store/sql.js'

export const EMPTY_REF = '00000000-0000-0000-0000-000000000000'
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2}))?$/
// Padded Base64, checked in linear time: a repeated group (`(?:x{4})*`) overflows V8's
// regex stack on attachments of a few MB.
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/
const BASE64 = { test: (text: string): boolean => text.length % 4 === 0 && BASE64_CHARS.test(text) }

export class ValueError extends Error {}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value)
}

/** Stored date form: `YYYY-MM-DDTHH:MM:SS`, or '' for the empty date. */
export function normalizeDate(value: unknown): string {
  if (value === null || value === '' || value === '0001-01-01T00:00:00') return ''
  if (typeof value !== 'string') throw new ValueError(`expected a date "YYYY-MM-DD[THH:MM:SS]", got ${describe(value)}`)
  const m = DATE.exec(value)
  if (!m) throw new ValueError(`not a date: ${JSON.stringify(value)} (expected "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SS")`)
  const [, y, mo, d, h = '00', mi = '00', s = '00'] = m
  if (!validDay(Number(y), Number(mo), Number(d)) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
    throw new ValueError(`not a calendar date: ${JSON.stringify(value)}`)
  }
  if (y === '0001' && mo === '01' && d === '01' && h === '00' && mi === '00' && s === '00') return ''
  return `${y}-${mo}-${d}T${h}:${mi}:${s}`
}

export function validDay(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0
  return day <= days
}

function normalizeRef(value: unknown): string {
  if (value === null || value === '' || value === EMPTY_REF) return ''
  if (!isUuid(value)) throw new ValueError(`expected a reference (UUID), got ${describe(value)}`)
  return value.toLowerCase()
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`
  if (typeof value === 'object') return 'an object'
  return `the ${typeof value} ${String(value)}`
}

/** Stored column values of one attribute, in attrColumns() order. */
export function attrValues(attr: Attr, value: unknown): SqlValue[] {
  if (value === undefined) return emptyValues(attr)
  switch (attr.kind) {
    case 'string':
      if (value === null) return ['']
      if (typeof value !== 'string') throw new ValueError(`expected a string, got ${describe(value)}`)
      return [value]
    case 'number':
      if (value === null) return [0]
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new ValueError(`expected a number, got ${describe(value)}`)
      return [value]
    case 'boolean':
      if (value === null) return [0]
      if (typeof value !== 'boolean') throw new ValueError(`expected a boolean, got ${describe(value)}`)
      return [value ? 1 : 0]
    case 'date':
      return [normalizeDate(value)]
    case 'ref':
      return [normalizeRef(value)]
    case 'choice':
      if (typeof value !== 'string' || !attr.values.includes(value)) {
        throw new ValueError(`expected one of ${attr.values.map((v) => JSON.stringify(v)).join(', ')}, got ${describe(value)}`)
      }
      return [value]
    case 'base64':
      if (value === null || value === '') return [Buffer.alloc(0)]
      if (typeof value !== 'string' || !BASE64.test(value)) throw new ValueError('expected Base64 text')
      return [Buffer.from(value, 'base64')]
    case 'composite': {
      if (value === null) return ['', '']
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw new ValueError(`expected a composite reference {"type": …, "ref": …}, got ${describe(value)}`)
      }
      const { type, ref } = value as { type?: unknown; ref?: unknown }
      if (typeof type !== 'string' || type === '') throw new ValueError('composite reference without "type"')
      if (!allowsType(attr.targets, type)) {
        throw new ValueError(`type ${type} is not allowed here (allowed: ${attr.targets.join(', ')})`)
      }
      const r = normalizeRef(ref ?? null)
      return r === '' ? ['', ''] : [r, type]
    }
  }
}

function emptyValues(attr: Attr): SqlValue[] {
  switch (attr.kind) {
    case 'number':
    case 'boolean':
      return [0]
    case 'base64':
      return [Buffer.alloc(0)]
    case 'composite':
      return ['', '']
    default:
      return ['']
  }
}

export function isEmptyValue(attr: Attr, value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true
  return (attr.kind === 'ref' && value === EMPTY_REF) || (attr.kind === 'date' && value === '0001-01-01T00:00:00')
}
