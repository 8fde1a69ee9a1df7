// The infobase read from a docgate store, page by page as requests ask, so that a base of
// millions of objects is served in bounded memory (`docgate fake-1c --db`). What stays in
// memory per entity set is its order: the keys in 1C's order for `$orderby=Ref_Key` (16
// bytes a GUID) and, for documents and register rows, the date each is windowed by (8
// bytes), built by one ordered read at the set's first request. A page is the keys it
// spans, read by primary key with their tabular rows and published through the same shapes
// (upp.ts) as the in-memory infobase, so both answer alike. DataVersion is a digest of the
// stored rows: stable across restarts, new when an import changes the object.
import { createHash } from 'node:crypto'
import { objectFromRow, value } from '../export/objects.js'
import type { ObjectType, RegisterType } from '../model/define.js'
import { OBJECT_TYPES, OTHER_DOCUMENT, REGISTER_TYPES } from '../model/objects.js'
import { answersGen } from '../views/generation.js'
import type { SqlPort, SqlValue } from '../store/sql.js'
import { DATE_RANGE, compare, keyProp, keysOnly, orderKey, sortBy } from './backend.js'
import type { Backend, Item, PageQuery, SetKind, SetView } from './backend.js'
import { edmx } from './edmx.js'
import type { EntityDecl } from './edmx.js'
import { compileFilter, parseOrderBy } from './query.js'
import { EMPTY_DATE, REGISTERS, date, otherDocument, setOf, shapes } from './upp.js'
import type { Obj, RegisterShape, Shape } from './upp.js'

type Row = Record<string, unknown>

/** Entities read per statement group when a filter must be tested on each (no index answers it). */
const SCAN_CHUNK = 200

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Keys in order: packed 16 bytes each while all are lower-case GUIDs, else as strings. */
class Keys {
  #chunks: Buffer[] = []
  #packed: Buffer | undefined
  #plain: string[] | undefined
  length = 0

  add(keys: readonly string[]): void {
    if (!this.#plain && !keys.every((k) => GUID.test(k))) this.#plain = this.#all()
    if (this.#plain) this.#plain.push(...keys)
    else {
      const b = Buffer.alloc(keys.length * 16)
      keys.forEach((k, i) => b.write(k.replace(/-/g, ''), i * 16, 'hex'))
      this.#chunks.push(b)
      this.#packed = undefined
    }
    this.length += keys.length
  }

  #all(): string[] {
    const out: string[] = []
    for (let i = 0; i < this.length; i++) out.push(this.at(i))
    return out
  }

  at(i: number): string {
    if (this.#plain) return this.#plain[i]!
    if (!this.#packed) {
      this.#packed = Buffer.concat(this.#chunks)
      this.#chunks = [this.#packed]
    }
    const h = this.#packed.toString('hex', i * 16, i * 16 + 16)
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  }
}

/** Rows read for an order at a time: what a set's first request holds besides the order itself. */
const ORDER_CHUNK = 50_000

/**
 * The rows of `select` (a SELECT … FROM … with `where`, no ORDER BY) in the order of `columns`
 * (a total order), a chunk at a time: each chunk starts after the last row of the one before.
 */
async function* ordered<T extends Row>(
  sql: SqlPort,
  select: string,
  where: string,
  params: readonly SqlValue[],
  columns: readonly string[],
): AsyncGenerator<T[]> {
  let after: SqlValue[] | undefined
  for (;;) {
    const cond = [where, after ? `(${columns.join(', ')}) > (${columns.map(() => '?').join(', ')})` : '']
      .filter((c) => c !== '')
      .join(' AND ')
    const rows = await sql.all<T>(`${select}${cond ? ` WHERE ${cond}` : ''} ORDER BY ${columns.join(', ')} LIMIT ${ORDER_CHUNK}`, [
      ...params,
      ...(after ?? []),
    ])
    yield rows
    if (rows.length < ORDER_CHUNK) return
    const last = rows[rows.length - 1]!
    after = columns.map((c) => last[c] as SqlValue)
  }
}

/** `YYYY-MM-DDTHH:MM:SS` as the number YYYYMMDDHHMMSS (same order), '' as the empty date. */
function dateNumber(v: unknown): number {
  const s = date(v)
  const n = Number(s.slice(0, 4) + s.slice(5, 7) + s.slice(8, 10) + s.slice(11, 13) + s.slice(14, 16) + s.slice(17, 19))
  return Number.isFinite(n) ? n : 0
}

interface Order {
  readonly keys: Keys
  /** Documents: Date; register rows: Period (dateNumber). */
  readonly dates?: Float64Array
  /** Register rows: the stored line (0: the set 1C records itself, see selfRecorded). */
  readonly lines?: Int32Array
}

function firstAtLeast(dates: Float64Array, value: number): number {
  let lo = 0
  let hi = dates.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (dates[mid]! < value) lo = mid + 1
    else hi = mid
  }
  return lo
}

const digest = (rows: unknown): string => createHash('sha1').update(JSON.stringify(rows)).digest().subarray(0, 8).toString('base64')

const entityItem = (entity: Obj): Item => ({
  json: (select) => JSON.stringify(select ? Object.fromEntries(select.map((p) => [p, entity[p]])) : entity),
})

function groupBy(rows: readonly Row[], column: string): Map<string, Row[]> {
  const out = new Map<string, Row[]>()
  for (const r of rows) {
    const k = String(r[column])
    const list = out.get(k)
    if (list) list.push(r)
    else out.set(k, [r])
  }
  for (const list of out.values()) list.sort((a, b) => Number(a.line) - Number(b.line))
  return out
}

/** An entity set and where its objects are stored. */
interface ObjectSource {
  readonly name: string
  readonly kind: 'catalog' | 'document'
  readonly shape: Shape
  /** Absent: published but never stored by docgate (always empty). */
  readonly decl?: ObjectType
  /** doc_other: the type its rows are of. */
  readonly type?: string
}

interface RegisterSource {
  readonly name: string
  readonly kind: 'records' | 'rows'
  readonly reg: RegisterShape
  readonly decl: RegisterType
}

type Source = ObjectSource | RegisterSource

// УПП: a posted expense request records its own Receipt set in ЗаявкиНаРасходованиеСредств
// (memory.ts selfRecord); a set stored for the same recorder takes its place.
const SELF_RECORDING = 'AccumulationRegister_ЗаявкиНаРасходованиеСредств'
const EXPENSE_REQUESTS = 'doc_expense_requests'

class StoreInfobase {
  readonly shapes = new Map<string, Shape>()
  readonly orders = new Map<string, Promise<Order>>()
  #others: Promise<string[]> | undefined
  #sources: Promise<Source[]> | undefined
  #metadata: Promise<string> | undefined
  #gen: string | undefined
  #checked = 0

  constructor(
    readonly sql: SqlPort,
    readonly custom: boolean,
    readonly today: string,
  ) {
    for (const s of shapes(custom, today)) this.shapes.set(s.set, s)
  }

  /** Drops what was read of the store when an import has changed it since (checked at most once a second). */
  async fresh(): Promise<void> {
    const now = Date.now()
    if (now - this.#checked < 1000) return
    this.#checked = now
    const gen = await answersGen(this.sql)
    if (this.#gen !== undefined && gen !== this.#gen) {
      this.orders.clear()
      this.#others = undefined
      this.#sources = undefined
      this.#metadata = undefined
    }
    this.#gen = gen
  }

  /** The other document types the store holds (doc_other), by name. */
  others(): Promise<string[]> {
    // In the order the in-memory infobase meets them (by ref): each type's least ref.
    this.#others ??= this.sql
      .all<{ type: string }>('SELECT type, MIN(ref) AS first FROM doc_other GROUP BY type ORDER BY 2')
      .then((rows) => rows.map((r) => r.type))
    return this.#others
  }

  sources(): Promise<Source[]> {
    this.#sources ??= this.listSources()
    return this.#sources
  }

  async listSources(): Promise<Source[]> {
    const out: Source[] = []
    const published = new Set<string>()
    for (const shape of this.shapes.values()) {
      const decl = OBJECT_TYPES.find((d) => setOf(d.type) === shape.set)
      const type = shape.set.startsWith('Document_') ? `Документ.${shape.set.slice('Document_'.length)}` : undefined
      out.push({
        name: shape.set,
        kind: shape.kind === 'catalog' ? 'catalog' : 'document',
        shape,
        decl: decl ?? (type ? OTHER_DOCUMENT : undefined),
        type: decl ? undefined : type,
      })
      published.add(shape.set)
    }
    for (const type of await this.others()) {
      const set = setOf(type)
      if (published.has(set) || !set.startsWith('Document_')) continue
      out.push({ name: set, kind: 'document', shape: otherDocument(set.slice('Document_'.length)), decl: OTHER_DOCUMENT, type })
    }
    for (const reg of REGISTERS) {
      const decl = REGISTER_TYPES.find((r) => r.type === reg.type)!
      out.push({ name: reg.set, kind: 'records', reg, decl }, { name: `${reg.set}_RecordType`, kind: 'rows', reg, decl })
    }
    return out
  }

  async decls(hidden: ReadonlySet<string>): Promise<EntityDecl[]> {
    const out: EntityDecl[] = []
    for (const s of await this.sources()) {
      // A hidden register hides its row set too (as memory.ts decls).
      if (hidden.has('reg' in s ? s.reg.set : s.name)) continue
      if (!('reg' in s)) {
        out.push({
          set: s.name,
          keys: ['Ref_Key'],
          props: [{ name: 'Ref_Key', type: 'Edm.Guid' }, { name: 'DataVersion', type: 'Edm.String' }, ...s.shape.props],
          collections: s.shape.parts.map((p) => ({ name: p.name, rowType: `${s.name}_${p.name}_RowType`, props: p.props })),
        })
      } else if (s.kind === 'records') {
        const rowProps = s.reg.props.filter((p) => p.name !== 'Recorder' && p.name !== 'Recorder_Type')
        out.push({
          set: s.name,
          keys: ['Recorder', 'Recorder_Type'],
          props: s.reg.props.slice(0, 2),
          collections: [{ name: 'RecordSet', rowType: `${s.name}_RowType`, props: rowProps }],
        })
      } else if (s.kind === 'rows')
        out.push({ set: s.name, keys: ['Recorder', 'Recorder_Type', 'LineNumber'], props: s.reg.props, collections: [] })
    }
    return out
  }

  metadata(hidden: ReadonlySet<string>): Promise<string> {
    if (hidden.size > 0) return this.decls(hidden).then(edmx)
    this.#metadata ??= this.decls(hidden).then(edmx)
    return this.#metadata
  }

  async view(name: string): Promise<SetView | undefined> {
    const s = (await this.sources()).find((x) => x.name === name)
    if (!s) return undefined
    return 'reg' in s ? new RegisterView(this, s) : new ObjectView(this, s)
  }

  order(s: Source, build: () => Promise<Order>): Promise<Order> {
    let o = this.orders.get(s.name)
    if (!o) {
      o = build()
      this.orders.set(s.name, o)
      o.catch(() => this.orders.delete(s.name))
    }
    return o
  }
}

/** What every set answers the same way: the key filter, date windows, other filters and orders. */
abstract class View<S extends Source> implements SetView {
  abstract readonly props: ReadonlySet<string>

  constructor(
    readonly ib: StoreInfobase,
    readonly s: S,
  ) {}

  get name(): string {
    return this.s.name
  }
  get kind(): SetKind {
    return this.s.kind
  }

  /** The set's keys (and dates) in its default order. */
  abstract order(): Promise<Order>
  /** The entities at these positions of the order, in that order (`versions`: Ref_Key and DataVersion are enough). */
  abstract at(order: Order, positions: readonly number[], versions: boolean, content: boolean): Promise<Obj[]>
  /** The entities keyed so (Ref_Key or Recorder), in the order of the keys. */
  abstract keyed(keys: readonly string[], content: boolean): Promise<Obj[]>
  /** The property dated windows filter on, when the default order begins with it. */
  abstract readonly dated: string | undefined
  /** The default order's properties, after which an `$orderby` is answered from the stored order. */
  abstract readonly defaultOrder: readonly string[]

  async byKey(key: string, select: readonly string[] | undefined): Promise<Item | undefined> {
    const [e] = await this.keyed([key], wantsContent(select))
    return e && entityItem(e)
  }

  async page(q: PageQuery): Promise<Item[]> {
    const content = wantsContent(q.select)
    const end = (from: number) => (q.top === undefined ? Infinity : from + q.top)
    const byKeys = q.filter ? keysOnly(q.filter) : undefined
    if (byKeys && byKeys.prop === keyProp(this.kind)) {
      let list = await this.keyed([...new Set(byKeys.keys)], content)
      const f = compileFilter(q.filter!, (n) => this.props.has(n))
      list = sortBy(
        this.kind,
        this.props,
        list.filter((e) => f.test(e)),
        q.orderby,
        (e) => e,
        (e) => orderKey(this.kind, e),
      )
      return list.slice(q.skip, end(q.skip)).map(entityItem)
    }
    const compiled = q.filter === undefined ? undefined : compileFilter(q.filter, (n) => this.props.has(n))
    const sorted = this.defaultOrdered(q.orderby)
    const order = await this.order()
    const versions = q.select !== undefined && q.select.every((p) => p === 'Ref_Key' || p === 'DataVersion')
    if (sorted) {
      let lo = 0
      let hi = order.keys.length
      const range = q.filter === undefined ? undefined : DATE_RANGE.exec(q.filter)
      if (q.filter === undefined || (range && range[1] === this.dated && order.dates)) {
        if (range) {
          lo = firstAtLeast(order.dates!, dateNumber(range[2]))
          if (range[3] !== undefined) hi = firstAtLeast(order.dates!, dateNumber(range[3]))
        }
        const from = lo + q.skip
        const to = Math.min(hi, end(from))
        return (await this.at(order, positions(from, to), versions, content)).map(entityItem)
      }
      // Another filter over the stored order: tested entity by entity, a chunk at a time,
      // until the page is full.
      const out: Obj[] = []
      let matched = 0
      const want = end(q.skip)
      for (let i = 0; i < order.keys.length && matched < want; i += SCAN_CHUNK) {
        for (const e of await this.at(order, positions(i, Math.min(order.keys.length, i + SCAN_CHUNK)), false, content)) {
          if (!compiled!.test(e)) continue
          if (matched >= q.skip && matched < want) out.push(e)
          matched++
        }
      }
      return out.map(entityItem)
    }
    // Any other order: the sort keys of every entity the filter keeps (not the entities),
    // then the page read again by position.
    const keys = parseOrderBy(q.orderby!, (n) => this.props.has(n))
    // Equal entries keep the in-memory infobase's order: objects by ref, register rows as stored.
    const found: { pos: number; vals: unknown[]; tie: string }[] = []
    for (let i = 0; i < order.keys.length; i += SCAN_CHUNK) {
      const at = positions(i, Math.min(order.keys.length, i + SCAN_CHUNK))
      const list = await this.at(order, at, false, false)
      list.forEach((e, j) => {
        if (!compiled || compiled.test(e)) {
          const vals = keys.map((k) => (k.name === 'Ref_Key' ? at[j] : k.name === 'LineNumber' ? Number(e.LineNumber) : e[k.name]))
          found.push({ pos: at[j]!, vals, tie: String(e.Ref_Key ?? '') })
        }
      })
    }
    found.sort((a, b) => {
      for (let k = 0; k < keys.length; k++) {
        const c = compare(a.vals[k], b.vals[k])
        if (c !== 0) return keys[k]!.desc ? -c : c
      }
      return compare(a.tie, b.tie) || a.pos - b.pos
    })
    const page = found.slice(q.skip, end(q.skip)).map((f) => f.pos)
    return (await this.at(order, page, versions, content)).map(entityItem)
  }

  /** Whether `$orderby` is (a prefix of) the stored order, ascending. */
  defaultOrdered(orderby: string | undefined): boolean {
    if (orderby === undefined) return true
    const keys = parseOrderBy(orderby, (n) => this.props.has(n))
    const names = keys.map((k) => k.name)
    if (keys.some((k) => k.desc)) return false
    // Ref_Key is 1C's own order of the whole object: nothing can follow it.
    if (names.includes('Ref_Key') && names.indexOf('Ref_Key') !== names.length - 1) return false
    return names.every((n, i) => n === this.defaultOrder[i] || (n === 'Ref_Key' && this.defaultOrder.includes('Ref_Key')))
  }
}

const positions = (from: number, to: number): number[] => {
  const out: number[] = []
  for (let i = from; i < to; i++) out.push(i)
  return out
}

/** Whether an answer shows stored bytes (attachments' content): only then are they read. */
const wantsContent = (select: readonly string[] | undefined): boolean =>
  select === undefined || select.some((p) => p.endsWith('_Base64Data'))

class ObjectView extends View<ObjectSource> {
  readonly props: ReadonlySet<string>
  readonly dated: string | undefined
  readonly defaultOrder: readonly string[]

  constructor(ib: StoreInfobase, s: ObjectSource) {
    super(ib, s)
    this.props = new Set(['Ref_Key', 'DataVersion', ...s.shape.props.map((p) => p.name), ...s.shape.parts.map((p) => p.name)])
    this.dated = s.kind === 'document' ? 'Date' : undefined
    this.defaultOrder = s.kind === 'document' ? ['Date', 'Ref_Key'] : ['Ref_Key']
  }

  order(): Promise<Order> {
    return this.ib.order(this.s, async () => {
      const { decl, type } = this.s
      const keys = new Keys()
      if (!decl) return { keys }
      const where = type ? 'type = ?' : ''
      const params = type ? [type] : []
      if (this.s.kind === 'catalog') {
        const columns = this.s.shape.props.some((p) => p.name === 'Code') ? ['name', 'code', 'ref'] : ['name', 'ref']
        for await (const rows of ordered<{ ref: string }>(
          this.ib.sql,
          `SELECT ${columns.join(', ')} FROM ${decl.table}`,
          where,
          params,
          columns,
        ))
          keys.add(rows.map((r) => r.ref))
        return { keys }
      }
      const dates: number[] = []
      for await (const rows of ordered<{ ref: string; date: string }>(
        this.ib.sql,
        `SELECT ref, date, number FROM ${decl.table}`,
        where,
        params,
        ['date', 'number', 'ref'],
      )) {
        keys.add(rows.map((r) => r.ref))
        for (const r of rows) dates.push(dateNumber(r.date))
      }
      return { keys, dates: Float64Array.from(dates) }
    })
  }

  at(order: Order, at: readonly number[], versions: boolean, content: boolean): Promise<Obj[]> {
    return this.read(
      at.map((i) => order.keys.at(i)),
      versions,
      content,
    )
  }

  keyed(keys: readonly string[], content: boolean): Promise<Obj[]> {
    return this.read(keys, false, content)
  }

  async read(refs: readonly string[], versions: boolean, content: boolean): Promise<Obj[]> {
    const { decl, shape, type } = this.s
    if (!decl || refs.length === 0) return []
    const sql = this.ib.sql
    const mains = new Map((await sql.selectIn<Row>(decl.table, ['*'], 'ref', refs)).map((r) => [String(r.ref), r]))
    const parts = new Map<string, Map<string, Row[]>>()
    for (const p of decl.tabular ?? []) parts.set(p.name, groupBy(await sql.selectIn<Row>(p.table, ['*'], 'owner', refs), 'owner'))
    const out: Obj[] = []
    for (const ref of refs) {
      const row = mains.get(ref)
      if (!row || (type !== undefined && row.type !== type)) continue
      const rows = (name: string) => parts.get(name)?.get(ref) ?? []
      const version = digest([row, ...(decl.tabular ?? []).map((p) => rows(p.name))])
      if (versions) {
        out.push({ Ref_Key: ref, DataVersion: version })
        continue
      }
      const o = await objectFromRow(sql, decl, row, (p) => rows(p.name), content)
      const entity: Obj = { Ref_Key: ref, DataVersion: version, ...shape.fields(o) }
      for (const p of shape.parts) entity[p.name] = p.rows(o)
      out.push(entity)
    }
    return out
  }
}

interface RecordSet {
  readonly recorderSet: string
  readonly rows: Obj[]
  /** Stored line → index in rows. */
  readonly lines: Map<number, number>
}

class RegisterView extends View<RegisterSource> {
  readonly props: ReadonlySet<string>
  readonly dated: string | undefined
  readonly defaultOrder: readonly string[]

  constructor(ib: StoreInfobase, s: RegisterSource) {
    super(ib, s)
    const rows = s.kind === 'rows'
    this.props = rows ? new Set(s.reg.props.map((p) => p.name)) : new Set(['Recorder', 'Recorder_Type', 'RecordSet'])
    this.dated = rows ? 'Period' : undefined
    this.defaultOrder = rows ? ['Period', 'Recorder', 'Recorder_Type', 'LineNumber'] : ['Recorder', 'Recorder_Type']
  }

  get self(): boolean {
    return this.s.reg.set === SELF_RECORDING
  }

  order(): Promise<Order> {
    return this.ib.order(this.s, async () => {
      const t = this.s.decl.table
      const sql = this.ib.sql
      const keys = new Keys()
      if (this.s.kind === 'records') {
        const all = this.self
          ? `SELECT recorder AS ref FROM ${t} UNION SELECT ref FROM ${EXPENSE_REQUESTS} WHERE posted = 1`
          : `SELECT DISTINCT recorder AS ref FROM ${t}`
        for await (const rows of ordered<{ ref: string }>(sql, `SELECT ref FROM (${all}) k`, '', [], ['ref']))
          keys.add(rows.map((r) => r.ref))
        return { keys }
      }
      // Register rows in Period order; the rows of ЗаявкиНаРасходованиеСредств are dated by their recorder.
      const all = this.self
        ? `SELECT r.recorder AS recorder, r.line AS line, COALESCE(o.date, '') AS period FROM ${t} r LEFT JOIN objects o ON o.ref = r.recorder ` +
          `UNION ALL SELECT d.ref, 0, d.date FROM ${EXPENSE_REQUESTS} d WHERE d.posted = 1 AND NOT EXISTS (SELECT 1 FROM ${t} x WHERE x.recorder = d.ref)`
        : `SELECT recorder, line, period FROM ${t}`
      const dates: number[] = []
      const lines: number[] = []
      for await (const rows of ordered<{ recorder: string; line: number; period: string }>(
        sql,
        `SELECT recorder, line, period FROM (${all}) k`,
        '',
        [],
        ['period', 'recorder', 'line'],
      )) {
        keys.add(rows.map((r) => r.recorder))
        for (const r of rows) {
          dates.push(dateNumber(r.period))
          lines.push(Number(r.line))
        }
      }
      return { keys, dates: Float64Array.from(dates), lines: Int32Array.from(lines) }
    })
  }

  /** The record sets of these recorders, as 1C publishes them (upp.ts REGISTERS). */
  async sets(recorders: readonly string[]): Promise<Map<string, RecordSet>> {
    const { reg, decl } = this.s
    const sql = this.ib.sql
    const out = new Map<string, RecordSet>()
    if (recorders.length === 0) return out
    const stored = groupBy(await sql.selectIn<Row>(decl.table, ['*'], 'recorder', recorders), 'recorder')
    const dates = new Map<string, string>()
    if (this.self)
      for (const r of await sql.selectIn<Row>('objects', ['ref', 'date'], 'ref', recorders)) dates.set(String(r.ref), String(r.date ?? ''))
    for (const [recorder, rows] of stored) {
      const moves = rows.map((r) => {
        const m: Row = {}
        for (const a of decl.attrs) m[a.name] = value(a, r)
        return m
      })
      const o: Obj = { type: reg.type, Регистратор: { type: rows[0]!.recorder_type, ref: recorder }, Движения: moves }
      const when = this.self ? date(dates.get(recorder) || undefined) : date(moves[0]?.['Период'] ?? EMPTY_DATE)
      out.set(recorder, {
        recorderSet: setOf(String(rows[0]!.recorder_type)),
        rows: reg.rows(o, when),
        lines: new Map(rows.map((r, i) => [Number(r.line), i])),
      })
    }
    if (this.self) {
      const missing = recorders.filter((r) => !stored.has(r))
      for (const d of await sql.selectIn<Row>(EXPENSE_REQUESTS, ['ref', 'date', 'posted', 'amount'], 'ref', missing)) {
        if (Number(d.posted) !== 1) continue
        const ref = String(d.ref)
        const o: Obj = {
          type: reg.type,
          Регистратор: { type: 'Документ.ЗаявкаНаРасходованиеСредств', ref },
          Движения: [{ ЗаявкаНаРасходование: ref, Сумма: Number(d.amount), ВидДвижения: 'Receipt' }],
        }
        out.set(ref, { recorderSet: 'Document_ЗаявкаНаРасходованиеСредств', rows: reg.rows(o, date(d.date)), lines: new Map([[0, 0]]) })
      }
    }
    return out
  }

  entities(recorder: string, set: RecordSet): Obj[] {
    const type = `StandardODATA.${set.recorderSet}`
    if (this.s.kind === 'records') return [{ Recorder: recorder, Recorder_Type: type, RecordSet: set.rows }]
    return set.rows.map((row) => ({ Recorder: recorder, Recorder_Type: type, ...row }))
  }

  async at(order: Order, at: readonly number[], _versions: boolean, _content: boolean): Promise<Obj[]> {
    const recorders = [...new Set(at.map((i) => order.keys.at(i)))]
    const sets = await this.sets(recorders)
    const out: Obj[] = []
    for (const i of at) {
      const recorder = order.keys.at(i)
      const set = sets.get(recorder)
      if (!set) continue
      const type = `StandardODATA.${set.recorderSet}`
      if (this.s.kind === 'records') out.push({ Recorder: recorder, Recorder_Type: type, RecordSet: set.rows })
      else {
        const row = set.rows[set.lines.get(order.lines![i]!) ?? -1]
        if (row) out.push({ Recorder: recorder, Recorder_Type: type, ...row })
      }
    }
    return out
  }

  async keyed(keys: readonly string[]): Promise<Obj[]> {
    const sets = await this.sets(keys)
    return keys.flatMap((k) => {
      const set = sets.get(k)
      return set ? this.entities(k, set) : []
    })
  }

  override async byKey(key: string): Promise<Item | undefined> {
    if (this.s.kind === 'rows') return undefined
    return super.byKey(key, undefined)
  }
}

const SQLITE_CACHE_KIB = 8192

export async function storeBackend(sql: SqlPort, custom: boolean, today: string): Promise<Backend> {
  // Pages are read by key and each set's order once: the page cache a serving gateway keeps
  // (64 MiB) buys the fake nothing but resident memory; the system's file cache serves rereads.
  if (sql.dialect.name === 'sqlite') await sql.exec(`PRAGMA cache_size = -${SQLITE_CACHE_KIB}`)
  const ib = new StoreInfobase(sql, custom, today)
  await ib.fresh()
  const readOnly = () => {
    throw new Error('fake 1C: an infobase read from a store is changed through the store (docgate import)')
  }
  return {
    decls: async (hidden) => (await ib.fresh(), ib.decls(hidden)),
    metadata: async (hidden) => (await ib.fresh(), ib.metadata(hidden)),
    entitySet: async (name) => (await ib.fresh(), ib.view(name)),
    put: readOnly,
    remove: readOnly,
    close: () => sql.close(),
  }
}
