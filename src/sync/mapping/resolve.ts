// Resolution of the effective map against `$metadata` (sync.md §6.3): for every synced
// type, each attribute's source property is found (R6, R7), its kind checked, and a reader
// compiled once; what cannot be found is reported in the words of §6.4.
import type { Attr } from '../../model/define.js'
import { OBJECT_TYPES } from '../../model/objects.js'
import type { Metadata, StructuredType } from '../metadata/model.js'
import { propertyOf, rowTypeOf } from '../metadata/model.js'
import { CATALOGUE_ORDER, COMMON, DOCUMENT_ORDER, REGISTER_ORDER, TYPE_DEFAULTS, VAT } from './defaults.js'
import type { AttrDefault } from './defaults.js'
import type { MapFile, SourceForm, TypeOverride } from './mapfile.js'
import { commonAttributes, entitySetOf, registerDecl, typeOfSet } from './model.js'
import { MapError, booleanValue, dateValue, guid, numberValue, pairSet, stringValue, trimPadding } from './values.js'
import type { Reader } from './values.js'

type SetKind = 'catalog' | 'document' | 'other-document' | 'attachments' | 'register'

export interface CompiledAttr {
  readonly name: string
  readonly read: Reader
  /** Empty values of required register attributes drop the row (§4.4). */
  readonly requiredInRow?: boolean
}

interface CompiledPart {
  readonly name: string
  /** undefined: always `[]`. */
  readonly from?: string
  readonly rows: readonly CompiledAttr[]
}

export interface SetPlan {
  readonly type: string
  readonly entitySet: string
  readonly kind: SetKind
  readonly select: string
  readonly dated: boolean
  readonly attrs: readonly CompiledAttr[]
  readonly parts: readonly CompiledPart[]
  /** Entries with IsFolder = true are not synced (R4: every catalogue but the three hierarchical ones). */
  readonly skipFolders: boolean
  readonly rowSet?: string
  readonly rowSelect?: string
  readonly recorderKeys?: readonly string[]
  /** For a `Recorder_Key` register: the recorder's entity set. */
  readonly recorderSet?: string
  readonly skipRecorderTypes?: readonly string[]
  readonly recordTypes?: readonly string[]
}

export interface Resolution {
  readonly plans: readonly SetPlan[]
  readonly lines: readonly string[]
  readonly missingLines: readonly string[]
  readonly missing: number
}

const NUMERIC = new Set(['Edm.Double', 'Edm.Decimal', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64', 'Edm.Single', 'Edm.Byte', 'Edm.SByte'])

function compatible(kind: Attr['kind'], edm: string): boolean {
  switch (kind) {
    case 'number':
      return NUMERIC.has(edm)
    case 'boolean':
      return edm === 'Edm.Boolean'
    case 'date':
      return edm === 'Edm.DateTime'
    default:
      return edm === 'Edm.String'
  }
}

const expectedEdm = (kind: Attr['kind']) =>
  kind === 'number' ? 'a number' : kind === 'boolean' ? 'Edm.Boolean' : kind === 'date' ? 'Edm.DateTime' : 'Edm.String'

/** Target entity sets of a reference attribute: the docgate targets, or the map's keepTypes. */
function targetSets(a: Attr, keep: readonly string[] | undefined): (set: string) => boolean {
  if (keep) return (s) => keep.includes(s)
  const targets = a.kind === 'ref' ? [a.target] : a.kind === 'composite' ? a.targets : []
  const sets = targets.filter((t) => !t.endsWith('.*')).map(entitySetOf)
  const anyDocument = targets.includes('Документ.*')
  return (s) => sets.includes(s) || (anyDocument && s.startsWith('Document_'))
}

class TypeReport {
  found = 0
  readonly renamed: string[] = []
  readonly absent: string[] = []
  readonly unpublished: string[] = []
  readonly missing: string[] = []
}

interface Resolved {
  readonly attr?: CompiledAttr
  readonly select: readonly string[]
}

/** One attribute: its reader and the properties it needs, or a report entry. */
function resolveAttr(
  meta: Metadata,
  owner: StructuredType,
  a: Attr,
  form: SourceForm,
  d: AttrDefault,
  report: TypeReport,
  common: boolean,
  label = a.name,
  /** A tabular row's: 1C declares its navigation properties on the `<Set>_<Part>` entity type, if on any. */
  row?: { readonly navigation: StructuredType['navigation'] | undefined },
): Resolved {
  if ('none' in form) return { select: [] }
  if ('value' in form) {
    const value = form.value
    report.found++
    return { attr: { name: a.name, read: () => value }, select: [] }
  }
  if ('sliceLast' in form) {
    // Off by default; a map that asks for it gets the empty value until it is supported.
    report.absent.push(`${label} (sliceLast not applied)`)
    return { attr: { name: a.name, read: () => '' }, select: [] }
  }
  if ('closedFromDate' in form) {
    const p = propertyOf(owner, form.closedFromDate)
    if (!p || p.type !== 'Edm.DateTime') return absentOrMissing(a, d, report, label, `no ${form.closedFromDate} date`)
    report.found++
    if (form.closedFromDate !== a.name) report.renamed.push(`${label} ← ${form.closedFromDate}`)
    const name = form.closedFromDate
    return {
      attr: {
        name: a.name,
        read: (e, ctx) => {
          const v = e[name]
          return typeof v === 'string' && !v.startsWith('0001-01-01') && v.slice(0, 10) <= ctx.today
        },
      },
      select: [name],
    }
  }
  const P = form.from
  if (!common && P !== a.name) report.renamed.push(`${label} ← ${P}`)
  if (a.kind === 'ref' || a.kind === 'composite') {
    const keep = targetSets(a, form.keepTypes)
    const composite = a.kind === 'composite'
    const key = propertyOf(owner, `${P}_Key`)
    if (key) {
      report.found++
      const nav = (row ? row.navigation : owner.navigation)?.[P]
      const targets = a.kind === 'ref' ? [a.target] : a.targets
      for (const t of targets) {
        if (t.endsWith('.*')) continue
        const set = entitySetOf(t)
        // A row's reference counts as published when its target set is (§6).
        if (!meta.entitySets[set] || (!composite && !nav && !row)) report.unpublished.push(`${label} → ${set}`)
      }
      const name = `${P}_Key`
      const typed = nav !== undefined && keep(nav) ? typeOfSet(nav) : undefined
      return {
        attr: {
          name: a.name,
          read: composite
            ? (e) => {
                const g = guid(e[name])
                return g && typed ? { type: typed, ref: g } : null
              }
            : (e) => guid(e[name]),
        },
        select: [name],
      }
    }
    if (propertyOf(owner, P) && propertyOf(owner, `${P}_Type`)) {
      report.found++
      const typeName = `${P}_Type`
      return {
        attr: {
          name: a.name,
          read: (e, ctx) => {
            const t = e[typeName]
            const g = guid(e[P])
            const set = pairSet(t)
            if (set !== undefined && keep(set) && g) return composite ? { type: typeOfSet(set), ref: g } : g
            if (t === 'StandardODATA.Undefined' || (set !== undefined && !g)) return composite ? null : ''
            ctx.warn(label, `${String(t)} is not kept; empty reference`)
            return composite ? null : ''
          },
        },
        select: [P, typeName],
      }
    }
    return absentOrMissing(a, d, report, label, `no ${P}_Key, no ${P} + ${P}_Type`)
  }
  const p = propertyOf(owner, P)
  if (!p) return absentOrMissing(a, d, report, label, `no ${P}`)
  if (!compatible(a.kind, p.type)) {
    report.missing.push(`${label} (${P} is ${p.type}, expected ${expectedEdm(a.kind)})`)
    return { select: [] }
  }
  report.found++
  return { attr: { name: a.name, read: scalarReader(a, P, form, d) }, select: [P] }
}

function absentOrMissing(a: Attr, d: AttrDefault, report: TypeReport, label: string, why: string): Resolved {
  if (d.quiet) return { attr: { name: a.name, read: () => '' }, select: [] }
  if (d.opt) {
    report.absent.push(label)
    return { select: [] }
  }
  report.missing.push(`${label} (${why})`)
  return { select: [] }
}

function scalarReader(a: Attr, P: string, form: Extract<SourceForm, { from: string }>, d: AttrDefault): Reader {
  switch (a.kind) {
    case 'number':
      return (e) => numberValue(e[P])
    case 'boolean':
      return (e) => booleanValue(e[P])
    case 'date':
      return (e) => dateValue(e[P])
    case 'choice':
      // ВидДвижения ← RecordType (§4.4).
      return (e) => {
        const v = e[P]
        if (v === 'Receipt') return 'Приход'
        if (v === 'Expense') return 'Расход'
        if (v === null || v === undefined || v === '') return ''
        throw new MapError(`unknown RecordType ${JSON.stringify(v)}`)
      }
    default: {
      const table = form.enum ?? (d.vat ? VAT : undefined)
      const padded = P === 'Code' || P === 'Number'
      const edit = (s: string): string => {
        let out = padded ? trimPadding(s) : s
        if (form.trim) out = out.replace(/^ +| +$/g, '')
        if (table && Object.hasOwn(table, out)) out = table[out]!
        return out
      }
      return (e) => stringValue(e[P], edit)
    }
  }
}

const formOf = (over: SourceForm | undefined, d: AttrDefault | undefined, name: string): SourceForm => over ?? d?.from ?? { from: name }

function line(type: string, set: string, r: TypeReport): string {
  const parts = [`found ${r.found}`]
  if (r.renamed.length) parts.push(`renamed: ${r.renamed.join(', ')}`)
  if (r.absent.length) parts.push(`not in this infobase: ${r.absent.join(', ')}`)
  if (r.unpublished.length) parts.push(`targets not published: ${r.unpublished.join(', ')}`)
  if (r.missing.length) parts.push(`MISSING: ${r.missing.join(', ')}`)
  return `${type} ← ${set}: ${parts.join('; ')}`
}

const OBJECT_DECLS = new Map(OBJECT_TYPES.map((t) => [t.type, t]))

function objectPlan(meta: Metadata, type: string, over: TypeOverride | undefined, report: TypeReport): { plan?: SetPlan; set: string } {
  const decl = OBJECT_DECLS.get(type)!
  const set = over?.entitySet ?? entitySetOf(type)
  const owner = meta.entitySets[set]
  if (!owner) {
    report.missing.push(`entity set ${set} (not in $metadata)`)
    return { set }
  }
  const defaults = TYPE_DEFAULTS[type] ?? {}
  const hierarchical = decl.hierarchical === true
  const attachments = type === 'Справочник.ХранилищеДополнительнойИнформации'
  const select = new Set(['Ref_Key', 'DataVersion'])
  const attrs: CompiledAttr[] = []
  for (const a of commonAttributes(decl.class, hierarchical, type)) {
    const r = resolveAttr(meta, owner, a, formOf(over?.attributes?.[a.name], COMMON[a.name], a.name), COMMON[a.name] ?? {}, report, true)
    if (r.attr) attrs.push(r.attr)
    for (const p of r.select) select.add(p)
  }
  for (const a of decl.attrs) {
    const d = defaults.attributes?.[a.name] ?? {}
    if (a.kind === 'base64') {
      // The content is read per entry (§7.1), never in list pages.
      const ok = propertyOf(owner, 'Хранилище_Type') && propertyOf(owner, 'Хранилище_Base64Data')
      if (ok) report.found++
      else report.missing.push(`${a.name} (no Хранилище_Type + Хранилище_Base64Data)`)
      if (a.name !== 'Хранилище') report.renamed.push(`${a.name} ← Хранилище`)
      continue
    }
    const r = resolveAttr(meta, owner, a, formOf(over?.attributes?.[a.name], d, a.name), d, report, false)
    if (r.attr) attrs.push(r.attr)
    for (const p of r.select) select.add(p)
  }
  const parts: CompiledPart[] = []
  for (const part of decl.tabular ?? []) {
    const pd = defaults.parts?.[part.name] ?? {}
    const po = over?.tabularParts?.[part.name]
    if (po === null) {
      parts.push({ name: part.name, rows: [] })
      continue
    }
    const from = po?.from ?? part.name
    const prop = propertyOf(owner, from)
    const rowType = prop ? rowTypeOf(meta, prop) : undefined
    if (!prop || !rowType) {
      if (pd.opt) {
        report.absent.push(part.name)
        parts.push({ name: part.name, rows: [] })
      } else report.missing.push(`${part.name} (no ${from} collection)`)
      continue
    }
    report.found++
    if (from !== part.name) report.renamed.push(`${part.name} ← ${from}`)
    select.add(from)
    const rows: CompiledAttr[] = []
    for (const a of part.attrs) {
      const d = pd.rows?.[a.name] ?? {}
      const r = resolveAttr(meta, rowType, a, formOf(po?.attributes?.[a.name], d, a.name), d, report, false, `${part.name}.${a.name}`, {
        navigation: meta.entitySets[`${set}_${from}`]?.navigation,
      })
      if (r.attr) rows.push(r.attr)
    }
    parts.push({ name: part.name, from, rows })
  }
  if (!hierarchical && propertyOf(owner, 'IsFolder')) select.add('IsFolder')
  return {
    set,
    plan: {
      type,
      entitySet: set,
      kind: attachments ? 'attachments' : decl.class === 'catalog' ? 'catalog' : 'document',
      select: [...select].join(','),
      dated: decl.class === 'document',
      attrs,
      parts,
      skipFolders: !hierarchical,
    },
  }
}

function otherPlan(type: string, set: string): SetPlan {
  const attrs: CompiledAttr[] = [
    { name: 'ПометкаУдаления', read: (e) => booleanValue(e.DeletionMark) },
    { name: 'Номер', read: (e) => stringValue(e.Number, trimPadding) },
    { name: 'Дата', read: (e) => dateValue(e.Date) },
    { name: 'Проведен', read: (e) => booleanValue(e.Posted) },
  ]
  return {
    type,
    entitySet: set,
    kind: 'other-document',
    select: 'Ref_Key,DataVersion,Number,Date,Posted,DeletionMark',
    dated: true,
    attrs,
    parts: [],
    skipFolders: false,
  }
}

function registerPlan(meta: Metadata, type: string, over: TypeOverride | undefined, report: TypeReport): { plan?: SetPlan; set: string } {
  const decl = registerDecl(type)!
  const set = over?.entitySet ?? entitySetOf(type)
  const rowSet = `${set}_RecordType`
  const records = meta.entitySets[set]
  const rowType = meta.entitySets[rowSet]
  if (!records || !rowType) {
    report.missing.push(`entity set ${!records ? set : rowSet} (not in $metadata)`)
    return { set }
  }
  const defaults = TYPE_DEFAULTS[type] ?? {}
  let recorderKeys: string[] = []
  let recorderSet: string | undefined
  if (propertyOf(records, 'Recorder') && propertyOf(records, 'Recorder_Type')) recorderKeys = ['Recorder', 'Recorder_Type']
  else if (propertyOf(records, 'Recorder_Key')) {
    recorderKeys = ['Recorder_Key']
    recorderSet = over?.recorderType ?? records.navigation.Recorder
    if (!recorderSet) report.missing.push('Регистратор (Recorder_Key without a Recorder navigation property or a recorderType)')
  } else report.missing.push('Регистратор (no Recorder + Recorder_Type, no Recorder_Key)')
  if (recorderKeys.length) report.found++
  const recordTypes = over?.recordTypes ?? defaults.recordTypes
  const select = new Set([...recorderKeys, 'Period', 'LineNumber'])
  if (!propertyOf(rowType, 'Period')) report.missing.push('Period (no Period)')
  if (propertyOf(rowType, 'Active')) select.add('Active')
  if (recordTypes) {
    if (propertyOf(rowType, 'RecordType')) select.add('RecordType')
    else report.missing.push('RecordType (no RecordType)')
  }
  const attrs: CompiledAttr[] = []
  for (const a of decl.attrs) {
    const d = defaults.attributes?.[a.name] ?? {}
    const r = resolveAttr(meta, rowType, a, formOf(over?.attributes?.[a.name], d, a.name), d, report, false)
    if (r.attr) attrs.push({ ...r.attr, requiredInRow: a.required === true })
    for (const p of r.select) select.add(p)
  }
  return {
    set,
    plan: {
      type,
      entitySet: set,
      kind: 'register',
      select: '',
      dated: false,
      attrs,
      parts: [],
      skipFolders: false,
      rowSet,
      rowSelect: [...select].join(','),
      recorderKeys,
      recorderSet,
      skipRecorderTypes: over?.skipRecorderTypes ?? defaults.skipRecorderTypes ?? [],
      recordTypes,
    },
  }
}

export function resolveMap(meta: Metadata, map: MapFile, otherDocumentSets: readonly string[]): Resolution {
  const lines: string[] = []
  const missingLines: string[] = []
  let missing = 0
  const catalogues: SetPlan[] = []
  const documents: SetPlan[] = []
  const others: SetPlan[] = []
  const registers: SetPlan[] = []
  const attachments: SetPlan[] = []
  const take = (type: string, build: (report: TypeReport) => { plan?: SetPlan; set: string }, into: SetPlan[]) => {
    if (map.types[type] === null) {
      lines.push(`${type}: not synced (map)`)
      return
    }
    const report = new TypeReport()
    const { plan, set } = build(report)
    const text = line(type, set, report)
    lines.push(text)
    if (report.missing.length > 0) {
      missing += report.missing.length
      missingLines.push(text)
    } else if (plan) into.push(plan)
  }
  for (const type of CATALOGUE_ORDER) {
    take(
      type,
      (r) => objectPlan(meta, type, map.types[type] ?? undefined, r),
      type === 'Справочник.ХранилищеДополнительнойИнформации' ? attachments : catalogues,
    )
  }
  for (const type of DOCUMENT_ORDER) take(type, (r) => objectPlan(meta, type, map.types[type] ?? undefined, r), documents)
  const otherTypes = new Map<string, string>()
  for (const set of otherDocumentSets) otherTypes.set(typeOfSet(set)!, set)
  for (const [type, over] of Object.entries(map.types)) {
    if (type.startsWith('Документ.') && !DOCUMENT_ORDER.includes(type) && over !== null)
      otherTypes.set(type, over.entitySet ?? entitySetOf(type))
  }
  for (const [type, set] of otherTypes) {
    if (map.types[type] === null) continue
    if (!meta.entitySets[set]) {
      lines.push(`${type} ← ${set}: not in $metadata, not synced`)
      continue
    }
    lines.push(`${type} ← ${set}: found 4`)
    others.push(otherPlan(type, set))
  }
  for (const type of REGISTER_ORDER) take(type, (r) => registerPlan(meta, type, map.types[type] ?? undefined, r), registers)
  lines.push(missing === 0 ? 'result: OK' : `result: ${missing} missing-required — the map does not resolve`)
  return { plans: [...catalogues, ...documents, ...others, ...registers, ...attachments], lines, missingLines, missing }
}
