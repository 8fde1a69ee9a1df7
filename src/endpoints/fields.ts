// Chosen fields, CSV and Excel (decision "Fields, CSV and Excel"): what a request may ask of
// an answer's shape besides its selection. `fields` keeps only the named fields (dotted
// paths into nested objects and into the rows of tabular parts), `format` (or the request's
// `Accept`) gives the answer as CSV or an Excel workbook, and `rows` gives one CSV/Excel line
// per row of a tabular part. The names a request may use come from the declared response
// shapes (responses.ts), as the OpenAPI document's do. None of the three is a parameter of
// the contract: a value that cannot be followed is refused (400), never reported in `errors`.
import type { TSchema } from '@sinclair/typebox'
import Negotiator from 'negotiator'
import type { Endpoint } from './define.js'
import { m } from './meanings.js'
import type { Meaning } from './meanings.js'
import { given } from './pages.js'
import { SCHEMAS } from './responses.js'

export type Format = 'json' | 'csv' | 'xlsx'

export const CSV_TYPE = 'text/csv; charset=utf-8'
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
const MEDIA: Readonly<Record<string, Format>> = { 'application/json': 'json', 'text/csv': 'csv', [XLSX_TYPE]: 'xlsx' }

export const OUTPUT_MEANINGS: Readonly<Record<'fields' | 'format' | 'rows', Meaning>> = {
  fields: m(
    'Только эти поля, через запятую: Номер,Дата,Товары.Номенклатура (точка — вложенное поле или поле строки табличной части)',
    'Only these fields, comma-separated: Номер,Дата,Товары.Номенклатура (a dot leads into a nested object or the rows of a tabular part)',
  ),
  format: m(
    'json (по умолчанию), csv (RFC 4180, UTF-8 с BOM) или xlsx (книга Excel); вместо него можно прислать заголовок Accept',
    'json (the default), csv (RFC 4180, UTF-8 with BOM) or xlsx (an Excel workbook); the Accept header may say it instead',
  ),
  rows: m(
    'С format=csv или xlsx: по строке на каждую строку этой табличной части, поля документа повторяются',
    "With format=csv or xlsx: one line per row of this tabular part, the document's fields repeated",
  ),
}

/** A field of a printed shape, as CSV and Excel columns and `fields` paths see it. */
export interface Field {
  readonly name: string
  readonly kind: 'string' | 'day' | 'number' | 'boolean' | 'object' | 'array'
  /** An object's fields, or the fields of an array's rows (a tabular part). */
  readonly fields?: readonly Field[]
}

/** What a request asks of its answer's shape; undefined for the answer as printed. */
export interface OutputRequest {
  readonly format: Format
  /** The chosen fields, in the order asked, each as its path; none: every field. */
  readonly fields?: readonly (readonly string[])[]
  /** The tabular part whose rows are the lines of CSV or Excel. */
  readonly rows?: string
}

/** A request for fields, format or rows that cannot be followed: refused (400) with this message. */
export class BadOutputRequest extends Error {}

const byId = new Map(SCHEMAS.map((s) => [s.$id!, s]))
const resolve = (s: TSchema): TSchema => (s.$ref !== undefined ? byId.get(s.$ref as string)! : s)
const DAY_PATTERN = byId.get('LinkedDocument')!.properties.Дата.pattern as string

/** The fields of a shape in print order; a union's fields merged, a recursive reference left an array. */
function fieldsOf(schema: TSchema, seen: ReadonlySet<string> = new Set()): Field[] {
  const s = resolve(schema)
  const members: TSchema[] = s.anyOf ? (s.anyOf as TSchema[]).map(resolve) : [s]
  const out = new Map<string, Field>()
  for (const member of members) {
    if (member.$id !== undefined && seen.has(member.$id)) continue
    const inner = member.$id !== undefined ? new Set([...seen, member.$id]) : seen
    for (const [name, prop] of Object.entries((member.properties ?? {}) as Record<string, TSchema>)) {
      if (!out.has(name)) out.set(name, fieldOf(name, prop, inner))
    }
  }
  return [...out.values()]
}

function fieldOf(name: string, prop: TSchema, seen: ReadonlySet<string>): Field {
  const s = resolve(prop)
  if (s.type === 'array') {
    const items = resolve(s.items as TSchema)
    const recursive = (s.items as TSchema).anyOf?.some((i: TSchema) => i.$ref !== undefined && seen.has(i.$ref as string))
    return recursive || !(items.properties || items.anyOf)
      ? { name, kind: 'array' }
      : { name, kind: 'array', fields: fieldsOf(items, seen) }
  }
  if (s.type === 'object') return { name, kind: 'object', fields: fieldsOf(s, seen) }
  if (s.type === 'number' || s.type === 'integer') return { name, kind: 'number' }
  if (s.type === 'boolean') return { name, kind: 'boolean' }
  return { name, kind: s.pattern === DAY_PATTERN ? 'day' : 'string' }
}

/** The column of CSV and Excel that keeps a tree's shape: a node's parent group's code (1C's name for the parent). */
export const PARENT = 'Родитель'

/**
 * The fields of an endpoint's `data` items: of its short or full form. A tree's nodes are
 * lines of their own in CSV and Excel: their fields without the children, and the parent's code.
 */
export function itemFields(ep: Endpoint, full: boolean): Field[] {
  const shape = full && ep.response.full ? ep.response.full : ep.response.short
  const fields = fieldsOf(shape)
  if (ep.kind !== 'computed' || !ep.tree) return fields
  return [...fields.filter((f) => f.name !== ep.tree!.children), { name: PARENT, kind: 'string' }]
}

/** Every field of either form, merged in print order (what `fields` may name before the form is known). */
const anyForm = (ep: Endpoint): Field[] => merge(itemFields(ep, false), ep.response.full ? itemFields(ep, true) : [])

function merge(a: readonly Field[], b: readonly Field[]): Field[] {
  const out = new Map(a.map((f) => [f.name, f]))
  for (const f of b) {
    const known = out.get(f.name)
    if (known === undefined) out.set(f.name, f)
    else if (f.fields && known.fields) out.set(f.name, { ...known, fields: merge(known.fields, f.fields) })
    else if (f.fields) out.set(f.name, f)
  }
  return [...out.values()]
}

/** Every path a request may name, dotted, in print order. */
function fieldPaths(fields: readonly Field[], prefix = ''): string[] {
  return fields.flatMap((f) => [`${prefix}${f.name}`, ...(f.fields ? fieldPaths(f.fields, `${prefix}${f.name}.`) : [])])
}

/** The format an `Accept` header prefers among JSON, CSV and XLSX; JSON when it names none of them. */
export function acceptedFormat(accept: string | undefined): Format {
  // What nearly every client sends is answered without parsing it (this runs for every data request).
  if (accept === undefined || accept === '' || accept === '*/*' || accept === 'application/json') return 'json'
  const preferred = new Negotiator({ headers: { accept } }).mediaType(Object.keys(MEDIA))
  return preferred === undefined ? 'json' : MEDIA[preferred]!
}

/**
 * What the request asks of its answer's shape, or undefined for the answer as printed.
 * `accepted` is the format the request's `Accept` prefers; `format` in the query wins over
 * it. Throws BadOutputRequest.
 */
export function outputRequest(ep: Endpoint, pairs: ReadonlyMap<string, string>, accepted: Format = 'json'): OutputRequest | undefined {
  const format = given(pairs, 'format')
  const fields = given(pairs, 'fields')
  const rows = given(pairs, 'rows')
  let chosen = accepted
  if (format !== undefined) {
    const f = format.toLowerCase()
    if (f !== 'json' && f !== 'csv' && f !== 'xlsx') throw new BadOutputRequest(`format must be json, csv or xlsx, got "${format}"`)
    chosen = f
  }
  if (chosen === 'json' && fields === undefined && rows === undefined) return undefined
  const known = anyForm(ep)
  const paths = fieldPaths(known)
  let asked: string[][] | undefined
  if (fields !== undefined) {
    const names = fields.split(',').map((f) => f.trim())
    const unknown = names.filter((n) => !paths.includes(n))
    if (unknown.length > 0)
      throw new BadOutputRequest(
        `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; the fields of ${ep.service} are ${paths.join(', ')}`,
      )
    asked = [...new Set(names)].map((n) => n.split('.'))
  }
  if (rows !== undefined) {
    if (chosen === 'json') throw new BadOutputRequest('rows applies to format=csv or xlsx')
    const parts = known.filter((f) => f.kind === 'array' && f.fields).map((f) => f.name)
    if (!parts.includes(rows))
      throw new BadOutputRequest(
        parts.length === 0
          ? `rows: ${ep.service} has no tabular parts`
          : `rows must name a tabular part of ${ep.service} (${parts.join(', ')}), got "${rows}"`,
      )
  }
  return { format: chosen, ...(asked ? { fields: asked } : {}), ...(rows !== undefined ? { rows } : {}) }
}

/** A CSV or Excel column: a path into a line's document (or, under `rows`, into its part's row). */
export interface Column {
  readonly path: readonly string[]
  readonly title: string
  readonly kind: Field['kind']
}

/**
 * The columns of CSV or Excel: the chosen fields in the order asked (all fields in print
 * order without `fields`), an object spread into its fields, the `rows` part into the
 * fields of its rows; any other array is one column (its JSON text).
 */
export function columnsOf(fields: readonly Field[], out: OutputRequest): Column[] {
  const columns: Column[] = []
  const add = (f: Field, path: readonly string[], depth: number) => {
    const spread = f.kind === 'object' || (f.kind === 'array' && depth === 0 && f.name === out.rows)
    if (spread && f.fields) for (const inner of f.fields) add(inner, [...path, inner.name], depth + 1)
    else columns.push({ path, title: path.join('.'), kind: f.kind })
  }
  const find = (list: readonly Field[] | undefined, path: readonly string[]): Field | undefined => {
    let field: Field | undefined
    for (const name of path) {
      field = list?.find((f) => f.name === name)
      list = field?.fields
    }
    return field
  }
  if (!out.fields) for (const f of fields) add(f, [f.name], 0)
  else
    for (const path of out.fields) {
      // A field of the other form than the answer's: still a column, empty on every line.
      const f = find(fields, path) ?? { name: path.at(-1)!, kind: 'string' as const }
      add(f, path, path.length - 1)
    }
  return columns
}
