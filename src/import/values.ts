// Value rules of data-format.md § Values: each JSON value is checked against its
// attribute's kind and turned into the stored form, or into a reason it is invalid.
import { allowsType } from '../model/define.js'
import type { Attr } from '../model/define.js'
import type { SqlValue } from '../store/sql.js'
import { validDay } from '../values/dates.js'

const EMPTY_REF = '00000000-0000-0000-0000-000000000000'
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2}))?$/

/**
 * Padded Base64 (`[A-Za-z0-9+/]*={0,2}`, a multiple of 4 long) decoded, or undefined when
 * `text` is not that. Buffer.from skips what is not Base64 and reads the URL alphabet too,
 * so the text is Base64 exactly when it holds neither `-` nor `_` and decodes to as many
 * bytes as its length says. Cheaper than a regular expression over the text (25 MB of
 * attachments: ~100 ms), and the bytes are needed anyway.
 */
function fromBase64(text: string): Buffer | undefined {
  if (text.length % 4 !== 0 || text.includes('-') || text.includes('_')) return undefined
  const data = Buffer.from(text, 'base64')
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0
  return data.length === (text.length / 4) * 3 - padding ? data : undefined
}

export class ValueError extends Error {}

/** The largest magnitude of an imported number: its kopecks are exact (< 2^53). */
const MAX_NUMBER = 90_000_000_000_000

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

/**
 * Appends the stored column values of one attribute (attrColumns() order) to `out`, and a
 * non-empty reference to `refs`. Throws ValueError with the reason when the value is invalid.
 */
export function storeValue(attr: Attr, value: unknown, out: SqlValue[], refs: string[], blobs?: Map<string, Buffer>): void {
  if (value === undefined || value === null || (value === '' && attr.required)) {
    if (attr.required) throw new ValueError('is required')
    out.push(...EMPTY[attr.kind])
    return
  }
  switch (attr.kind) {
    case 'string':
      if (typeof value !== 'string') throw new ValueError(`expected a string, got ${describe(value)}`)
      // PostgreSQL cannot store U+0000 in text; refusing it keeps both engines alike.
      if (value.includes('\0')) throw new ValueError('text contains a NUL character (U+0000)')
      if (attr.maxLength !== undefined && value.length > attr.maxLength) {
        throw new ValueError(`longer than ${attr.maxLength} characters (${value.length})`)
      }
      out.push(value)
      return
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new ValueError(`expected a number, got ${describe(value)}`)
      // Amounts are compared in kopecks, which must stay exact integers (2^53).
      if (Math.abs(value) > MAX_NUMBER) throw new ValueError(`number out of range (±${MAX_NUMBER}): ${value}`)
      out.push(value)
      return
    case 'boolean':
      if (typeof value !== 'boolean') throw new ValueError(`expected a boolean, got ${describe(value)}`)
      out.push(value ? 1 : 0)
      return
    case 'date': {
      const d = normalizeDate(value)
      if (d === '' && attr.required) throw new ValueError('is required')
      out.push(d)
      return
    }
    case 'ref': {
      const r = normalizeRef(value)
      if (r === '' && attr.required) throw new ValueError('is required')
      if (r !== '') refs.push(r)
      out.push(r)
      return
    }
    case 'choice':
      if (typeof value !== 'string' || !attr.values.includes(value)) {
        throw new ValueError(`expected one of ${attr.values.map((v) => JSON.stringify(v)).join(', ')}, got ${describe(value)}`)
      }
      out.push(value)
      return
    case 'base64': {
      const data = typeof value === 'string' ? fromBase64(value) : undefined
      if (!data) throw new ValueError('expected Base64 text')
      if (!blobs) throw new ValueError('binary values are allowed in object attributes only')
      blobs.set(attr.col, data)
      out.push(data.length)
      return
    }
    case 'composite': {
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw new ValueError(`expected a composite reference {"type": …, "ref": …}, got ${describe(value)}`)
      }
      const { type, ref } = value as { type?: unknown; ref?: unknown }
      if (typeof type !== 'string' || type === '') throw new ValueError('composite reference without "type"')
      if (!allowsType(attr.targets, type)) {
        throw new ValueError(`type ${type} is not allowed here (allowed: ${attr.targets.join(', ')})`)
      }
      const r = normalizeRef(ref ?? null)
      if (r === '' && attr.required) throw new ValueError('is required')
      if (r !== '') refs.push(r)
      out.push(r, r === '' ? '' : type)
      return
    }
  }
}

const EMPTY: Record<Attr['kind'], readonly SqlValue[]> = {
  string: [''],
  number: [0],
  boolean: [0],
  date: [''],
  ref: [''],
  choice: [''],
  base64: [0],
  composite: ['', ''],
}
