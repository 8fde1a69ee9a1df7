// The infobase held in memory: objects put (and removed) one by one, as tests change what
// 1C holds between sync cycles. Small bases only: every entity is kept, with its answers.
import { DATE_RANGE, keyProp, keysOnly, orderKey, sortBy } from './backend.js'
import type { Backend, Item, PageQuery, SetKind, SetView } from './backend.js'
import { edmx } from './edmx.js'
import type { EntityDecl } from './edmx.js'
import { compileFilter } from './query.js'
import { EMPTY_DATE, REGISTERS, date, otherDocument, setOf, shapes } from './upp.js'
import type { Obj, RegisterShape, Shape } from './upp.js'

interface Entry {
  readonly ref: string
  readonly entity: Obj
  readonly cache: Map<string, string>
  /** 1C's own order for `$orderby=Ref_Key`: name then code, or date then number. */
  readonly order: string
}

interface EntitySet {
  readonly name: string
  readonly kind: SetKind
  readonly props: Set<string>
  readonly entries: () => Entry[]
  readonly byKey: (key: string) => Entry | undefined
  /** The entries whose key (Ref_Key or Recorder) is `key`: what `Key eq guid'…' or …` selects. */
  readonly ofKey: (key: string) => Entry[]
}

class Versions {
  #n = 0
  next(): string {
    const b = Buffer.alloc(8)
    b.writeUInt32BE(++this.#n, 0)
    return b.toString('base64')
  }
}

const entry = (ref: string, entity: Obj, order: string): Entry => ({ ref, entity, cache: new Map(), order })

class Infobase {
  readonly shapes = new Map<string, Shape>()
  readonly objects = new Map<string, Map<string, Entry>>() // set → ref → entry
  readonly where = new Map<string, string>() // ref → set
  readonly docDates = new Map<string, string>() // document ref → Date
  /** register set → recorder ref → { set of the recorder, the docgate record set } */
  readonly records = new Map<string, Map<string, { recorderSet: string; source: Obj; rows: Obj[] }>>()
  readonly versions = new Versions()
  readonly sorted = new Map<string, Entry[]>()
  #metadata: string | undefined

  constructor(
    readonly custom: boolean,
    readonly today: string,
  ) {
    for (const s of shapes(custom, today)) this.shapes.set(s.set, s)
    for (const s of this.shapes.keys()) this.objects.set(s, new Map())
    for (const r of REGISTERS) this.records.set(r.set, new Map())
  }

  changed(set: string): void {
    for (const k of [...this.sorted.keys()]) if (k.startsWith(`${set}\u0000`)) this.sorted.delete(k)
  }

  shapeFor(type: string): Shape | undefined {
    const set = setOf(type)
    let shape = this.shapes.get(set)
    if (!shape && set.startsWith('Document_')) {
      shape = otherDocument(set.slice('Document_'.length))
      this.shapes.set(set, shape)
      this.objects.set(set, new Map())
      this.#metadata = undefined
    }
    return shape
  }

  put(o: Obj): void {
    const type = String(o.type)
    if (type.startsWith('РегистрНакопления.')) return this.putRecords(o)
    const shape = this.shapeFor(type)
    if (!shape) throw new Error(`fake 1C: no entity set for ${type}`)
    const ref = String(o.ref)
    const fields = shape.fields(o)
    const entity: Obj = { Ref_Key: ref, DataVersion: this.versions.next(), ...fields }
    for (const p of shape.parts) entity[p.name] = p.rows(o)
    const order = orderKey(shape.kind === 'catalog' ? 'catalog' : 'document', fields)
    this.objects.get(shape.set)!.set(ref, entry(ref, entity, order))
    this.where.set(ref, shape.set)
    this.changed(shape.set)
    if (shape.kind === 'document') {
      this.docDates.set(ref, String(fields.Date))
      // Unposting clears the document's movements, as 1C does.
      if (o['Проведен'] === false) for (const r of REGISTERS) this.dropSet(r.set, ref)
      else this.refreshRows(ref)
      if (type === 'Документ.ЗаявкаНаРасходованиеСредств') this.selfRecord(o)
    }
  }

  /** УПП: a posted expense request records its own Receipt set in ЗаявкиНаРасходованиеСредств. */
  selfRecord(o: Obj): void {
    const reg = REGISTERS[1]!
    if (o['Проведен'] !== true) return this.dropSet(reg.set, String(o.ref))
    this.putRecords({
      type: reg.type,
      Регистратор: { type: o.type, ref: o.ref },
      Движения: [{ ЗаявкаНаРасходование: o.ref, Сумма: o['СуммаДокумента'], ВидДвижения: 'Receipt' }],
    })
  }

  putRecords(o: Obj): void {
    const reg = REGISTERS.find((r) => r.type === o.type)
    if (!reg) throw new Error(`fake 1C: no register for ${String(o.type)}`)
    const recorder = o['Регистратор'] as { type: string; ref: string }
    const moves = Array.isArray(o['Движения']) ? (o['Движения'] as Obj[]) : []
    if (moves.length === 0) return this.dropSet(reg.set, recorder.ref)
    this.records.get(reg.set)!.set(recorder.ref, { recorderSet: setOf(recorder.type), source: o, rows: this.rowsOf(reg, o, recorder.ref) })
    this.changed(reg.set)
    this.changed(`${reg.set}_RecordType`)
  }

  rowsOf(reg: RegisterShape, o: Obj, recorder: string): Obj[] {
    const moves = o['Движения'] as Obj[]
    const when = this.docDates.get(recorder) ?? date((moves[0] ?? {})['Период'] ?? EMPTY_DATE)
    return reg.rows(o, when)
  }

  /** A document put after its record sets: their Periods follow its date. */
  refreshRows(recorder: string): void {
    for (const reg of REGISTERS) {
      const set = this.records.get(reg.set)!.get(recorder)
      if (set) {
        set.rows = this.rowsOf(reg, set.source, recorder)
        this.changed(reg.set)
        this.changed(`${reg.set}_RecordType`)
      }
    }
  }

  dropSet(register: string, recorder: string): void {
    if (this.records.get(register)!.delete(recorder)) {
      this.changed(register)
      this.changed(`${register}_RecordType`)
    }
  }

  remove(ref: string): void {
    const set = this.where.get(ref)
    if (set) {
      this.objects.get(set)!.delete(ref)
      this.where.delete(ref)
      this.changed(set)
    }
    for (const r of REGISTERS) this.dropSet(r.set, ref)
  }

  decls(hidden: ReadonlySet<string>): EntityDecl[] {
    const out: EntityDecl[] = []
    for (const s of this.shapes.values()) {
      if (hidden.has(s.set)) continue
      out.push({
        set: s.set,
        keys: ['Ref_Key'],
        props: [{ name: 'Ref_Key', type: 'Edm.Guid' }, { name: 'DataVersion', type: 'Edm.String' }, ...s.props],
        collections: s.parts.map((p) => ({ name: p.name, rowType: `${s.set}_${p.name}_RowType`, props: p.props })),
      })
    }
    for (const r of REGISTERS) {
      if (hidden.has(r.set)) continue
      const rowProps = r.props.filter((p) => p.name !== 'Recorder' && p.name !== 'Recorder_Type')
      out.push({
        set: r.set,
        keys: ['Recorder', 'Recorder_Type'],
        props: r.props.slice(0, 2),
        collections: [{ name: 'RecordSet', rowType: `${r.set}_RowType`, props: rowProps }],
      })
      out.push({ set: `${r.set}_RecordType`, keys: ['Recorder', 'Recorder_Type', 'LineNumber'], props: r.props, collections: [] })
    }
    return out
  }

  metadata(hidden: ReadonlySet<string>): string {
    if (hidden.size > 0) return edmx(this.decls(hidden))
    this.#metadata ??= edmx(this.decls(hidden))
    return this.#metadata
  }

  entitySet(name: string): EntitySet | undefined {
    const shape = this.shapes.get(name)
    if (shape) {
      const map = this.objects.get(name)!
      const props = new Set(['Ref_Key', 'DataVersion', ...shape.props.map((p) => p.name), ...shape.parts.map((p) => p.name)])
      const byKey = (k: string) => map.get(k)
      return {
        name,
        kind: shape.kind === 'catalog' ? 'catalog' : 'document',
        props,
        entries: () => [...map.values()],
        byKey,
        ofKey: (k) => [byKey(k)].filter((e) => e !== undefined),
      }
    }
    const reg = REGISTERS.find((r) => r.set === name || `${r.set}_RecordType` === name)
    if (!reg) return undefined
    const sets = this.records.get(reg.set)!
    const recorderType = (s: { recorderSet: string }) => `StandardODATA.${s.recorderSet}`
    const byKey = (k: string) => {
      const s = sets.get(k)
      return s && entry(k, { Recorder: k, Recorder_Type: recorderType(s), RecordSet: s.rows }, k)
    }
    if (name === reg.set) {
      return {
        name,
        kind: 'records',
        props: new Set(['Recorder', 'Recorder_Type', 'RecordSet']),
        entries: () => [...sets].map(([ref, s]) => entry(ref, { Recorder: ref, Recorder_Type: recorderType(s), RecordSet: s.rows }, ref)),
        byKey,
        ofKey: (k) => [byKey(k)].filter((e) => e !== undefined),
      }
    }
    const rowsOf = (ref: string, s: { recorderSet: string; rows: Obj[] }) =>
      s.rows.map((row) => entry(ref, { Recorder: ref, Recorder_Type: recorderType(s), ...row }, ref))
    return {
      name,
      kind: 'rows',
      props: new Set(reg.props.map((p) => p.name)),
      entries: () => [...sets].flatMap(([ref, s]) => rowsOf(ref, s)),
      byKey: () => undefined,
      ofKey: (k) => {
        const s = sets.get(k)
        return s ? rowsOf(k, s) : []
      },
    }
  }
}

function project(e: Entry, select: readonly string[] | undefined, key: string): string {
  let s = e.cache.get(key)
  if (s === undefined) {
    s = JSON.stringify(select ? Object.fromEntries(select.map((p) => [p, e.entity[p]])) : e.entity)
    e.cache.set(key, s)
  }
  return s
}

function ordered(ib: Infobase, set: EntitySet, orderby: string | undefined): Entry[] {
  const cacheKey = `${set.name}\u0000${orderby ?? ''}`
  const hit = ib.sorted.get(cacheKey)
  if (hit) return hit
  const list = sortEntries(set, set.entries(), orderby)
  ib.sorted.set(cacheKey, list)
  return list
}

/**
 * The ordered entries a filter keeps, remembered for the pages that follow: paging through a
 * window asks the same filter again with each `$skip`, and 1C answers it from an index, not
 * by testing every row of the set again (that made the fake, not the connector, the slow
 * side of bench:sync). Cached under the set's prefix, so a change of the set drops it.
 */
function filtered(ib: Infobase, set: EntitySet, orderby: string | undefined, filter: string | undefined): Entry[] {
  if (filter === undefined) return ordered(ib, set, orderby)
  const cacheKey = `${set.name}\u0000${orderby ?? ''}\u0000${filter}`
  const hit = ib.sorted.get(cacheKey)
  if (hit) return hit
  const f = compileFilter(filter, (n) => set.props.has(n))
  const all = ordered(ib, set, orderby)
  const range = DATE_RANGE.exec(filter)
  const list =
    range && orderby?.split(',')[0]?.trim() === range[1]
      ? all.slice(firstAtLeast(all, range[1]!, range[2]!), range[3] === undefined ? all.length : firstAtLeast(all, range[1]!, range[3]))
      : all.filter((e) => f.test(e.entity))
  // Only the windows being paged through are worth keeping.
  for (const k of [...ib.sorted.keys()]) if (k.split('\u0000').length > 2 && ib.sorted.size >= FILTERED_KEPT) ib.sorted.delete(k)
  ib.sorted.set(cacheKey, list)
  return list
}

const FILTERED_KEPT = 64

function firstAtLeast(list: readonly Entry[], prop: string, value: string): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (String(list[mid]!.entity[prop] ?? '') < value) lo = mid + 1
    else hi = mid
  }
  return lo
}

function sortEntries(set: EntitySet, list: Entry[], orderby: string | undefined): Entry[] {
  return sortBy(
    set.kind,
    set.props,
    list,
    orderby,
    (e) => e.entity,
    (e) => e.order,
  )
}

class MemoryView implements SetView {
  constructor(
    readonly ib: Infobase,
    readonly set: EntitySet,
  ) {}

  get name(): string {
    return this.set.name
  }
  get kind(): SetKind {
    return this.set.kind
  }
  get props(): ReadonlySet<string> {
    return this.set.props
  }

  async byKey(key: string): Promise<Item | undefined> {
    const e = this.set.byKey(key)
    return e && item(e)
  }

  async page(q: PageQuery): Promise<Item[]> {
    const set = this.set
    const byKeys = q.filter ? keysOnly(q.filter) : undefined
    let list: Entry[]
    if (byKeys && byKeys.prop === keyProp(set.kind)) {
      list = sortEntries(
        set,
        [...new Set(byKeys.keys)].flatMap((k) => set.ofKey(k)),
        q.orderby,
      )
      if (q.filter) {
        const f = compileFilter(q.filter, (n) => set.props.has(n))
        list = list.filter((e) => f.test(e.entity))
      }
    } else list = filtered(this.ib, set, q.orderby, q.filter)
    return list.slice(q.skip, q.top === undefined ? undefined : q.skip + q.top).map(item)
  }
}

const item = (e: Entry): Item => ({ json: (select, key) => project(e, select, key) })

export function memoryBackend(objects: Iterable<Obj>, custom: boolean, today: string): Backend {
  const ib = new Infobase(custom, today)
  const all = [...objects]
  for (const o of all) if (!String(o.type).startsWith('РегистрНакопления.')) ib.put(o)
  for (const o of all) if (String(o.type).startsWith('РегистрНакопления.')) ib.put(o)
  return {
    decls: async (hidden) => ib.decls(hidden),
    metadata: async (hidden) => ib.metadata(hidden),
    entitySet: async (name) => {
      const set = ib.entitySet(name)
      return set && new MemoryView(ib, set)
    },
    put: (o) => ib.put(o),
    remove: (ref) => ib.remove(ref),
    close: async () => {},
  }
}
