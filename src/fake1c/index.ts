// `docgate fake-1c`: docgate objects served as a 1C 8.3 infobase of УПП 1.3 serves them
// through its standard OData interface (sync.md §3) — JSON only with `$format=json`, EDMX
// `$metadata`, `$filter`/`$orderby`/`$select`/`$top`/`$skip`, odata.error bodies, УПП's
// names and shapes — with faults to inject. Tests, benchmarks and the README's walk-through
// sync from it.
import { createServer } from 'node:http'
import type { IncomingMessage } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { gzipSync } from 'node:zlib'
import { edmx } from './edmx.js'
import type { EntityDecl } from './edmx.js'
import { QueryError, compileFilter, parseOrderBy } from './query.js'
import { EMPTY_DATE, REGISTERS, date, otherDocument, setOf, shapes } from './upp.js'
import type { Obj, RegisterShape, Shape } from './upp.js'

export interface FakeFaults {
  /** The first request is answered after this delay (1C opening a session). */
  coldStartMs?: number
  /** The next `times` requests touching `set` answer `status` (times -1: always). */
  failSet?: { set: string; status: number; times: number }
  /** The next `times` requests touching `set`: the socket is destroyed before any byte. */
  dropSet?: { set: string; times: number }
  /** A collection answer with more entries answers 500 (1C's "too heavy page"). */
  maxPageEntries?: number
  /** After this many more requests every socket is destroyed (the source goes down). */
  failAfter?: number
  /** Entity sets left out of `$metadata` and refused (a base whose composition lacks them). */
  hiddenSets?: string[]
}

export interface FakeOptions {
  readonly objects: Iterable<Record<string, unknown>>
  readonly user?: string
  readonly password?: string
  readonly custom?: boolean
  readonly faults?: FakeFaults
  readonly host?: string
  readonly port?: number
  readonly today?: string
}

export interface RequestLog {
  readonly method: string
  readonly url: string
  readonly set: string
  status: number
  bytes: number
  readonly start: number
  end: number
}

export interface Fake1C {
  readonly url: string
  put(object: Record<string, unknown>): void
  remove(ref: string): void
  readonly requests: RequestLog[]
  readonly maxInFlight: number
  faults: FakeFaults
  close(): Promise<void>
}

interface Entry {
  readonly ref: string
  readonly entity: Obj
  readonly cache: Map<string, string>
  /** 1C's own order for `$orderby=Ref_Key`: name then code, or date then number. */
  readonly order: string
}

interface EntitySet {
  readonly name: string
  readonly kind: 'catalog' | 'document' | 'records' | 'rows'
  readonly props: Set<string>
  readonly entries: () => Entry[]
  readonly byKey: (key: string) => Entry | undefined
  /** The entries whose key (Ref_Key or Recorder) is `key`: what `Key eq guid'…' or …` selects. */
  readonly ofKey: (key: string) => Entry[]
}

const ROOT_PATH = '/base/odata/standard.odata'

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
    const order = shape.kind === 'catalog' ? `${String(fields.Description ?? '')}\u0000${String(fields.Code ?? '')}` : `${String(fields.Date)}\u0000${String(fields.Number)}`
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
      return { name, kind: shape.kind === 'catalog' ? 'catalog' : 'document', props, entries: () => [...map.values()], byKey, ofKey: (k) => [byKey(k)].filter((e) => e !== undefined) }
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
    const rowsOf = (ref: string, s: { recorderSet: string; rows: Obj[] }) => s.rows.map((row) => entry(ref, { Recorder: ref, Recorder_Type: recorderType(s), ...row }, ref))
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

const json = (status: number, body: string) => ({ status, type: 'application/json;charset=utf-8', body })
type Answer = { status: number; type: string; body: string }

const odataError = (status: number, code: string, message: string): Answer =>
  json(status, JSON.stringify({ 'odata.error': { code, message: { lang: 'ru', value: message } } }))

function project(e: Entry, select: string[] | undefined, key: string): string {
  let s = e.cache.get(key)
  if (s === undefined) {
    s = JSON.stringify(select ? Object.fromEntries(select.map((p) => [p, e.entity[p]])) : e.entity)
    e.cache.set(key, s)
  }
  return s
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  const x = String(a ?? '')
  const y = String(b ?? '')
  return x < y ? -1 : x > y ? 1 : 0
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

/** A date window over the property the list is ordered by: a slice of it, found by bisection. */
const DATE_RANGE = /^(Date|Period) ge datetime'([0-9T:-]{19})'(?: and \1 lt datetime'([0-9T:-]{19})')?$/

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
  if (orderby) {
    const keys = parseOrderBy(orderby, (n) => set.props.has(n))
    list.sort((a, b) => {
      for (const k of keys) {
        const c = k.name === 'Ref_Key' && (set.kind === 'catalog' || set.kind === 'document') ? compare(a.order, b.order) : k.name === 'LineNumber' ? Number(a.entity.LineNumber) - Number(b.entity.LineNumber) : compare(a.entity[k.name], b.entity[k.name])
        if (c !== 0) return k.desc ? -c : c
      }
      return 0
    })
  }
  return list
}

// A filter that is a disjunction of keys (`Ref_Key eq guid'…' or …`, or the recorder groups
// `(Recorder eq '…' and Recorder_Type eq '…') or …` that sync reads) is answered from the key
// index, as 1C answers it from its own: a scan per group would make the fake, not the
// connector, the bottleneck of a large base. The whole filter still runs on what the index gives.
const KEY_TERM = /^\s*(\()?\s*(Ref_Key|Recorder) eq (?:guid)?'([0-9a-fA-F-]{36})'(?:\s+and\s+Recorder_Type eq '[^']*')?\s*(\))?\s*/
function keysOnly(filter: string): { prop: string; keys: string[] } | undefined {
  const keys: string[] = []
  let prop: string | undefined
  let rest = filter
  for (;;) {
    const m = KEY_TERM.exec(rest)
    if (!m || Boolean(m[1]) !== Boolean(m[4]) || (prop !== undefined && m[2] !== prop)) return undefined
    prop = m[2]!
    keys.push(m[3]!.toLowerCase())
    rest = rest.slice(m[0].length)
    if (rest === '') return { prop, keys }
    if (!rest.startsWith('or ')) return undefined
    rest = rest.slice(3)
  }
}

function atom(root: string, set: string, count: number): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" xml:base="${root}/"><id>${root}/${set}</id><title type="text"/><updated>${new Date().toISOString()}</updated><!-- ${count} entries --></feed>`
}

export async function startFake1C(options: FakeOptions): Promise<Fake1C> {
  const ib = new Infobase(options.custom === true, options.today ?? new Date().toISOString().slice(0, 10))
  const all = [...options.objects]
  for (const o of all) if (!String(o.type).startsWith('РегистрНакопления.')) ib.put(o)
  for (const o of all) if (String(o.type).startsWith('РегистрНакопления.')) ib.put(o)
  const requests: RequestLog[] = []
  let inFlight = 0
  let maxInFlight = 0
  let first = true
  const state = { faults: { ...(options.faults ?? {}) } as FakeFaults }
  const expected = options.user === undefined ? undefined : `Basic ${Buffer.from(`${options.user}:${options.password ?? ''}`, 'utf8').toString('base64')}`
  const sockets = new Set<Socket>()
  let root = ''

  const answer = (req: IncomingMessage, path: string, q: URLSearchParams): Answer => {
    if (req.method !== 'GET') return odataError(405, '0', 'Метод не поддерживается')
    if (expected !== undefined && req.headers.authorization !== expected) return { status: 401, type: 'text/plain', body: 'Unauthorized' }
    const hidden = new Set(state.faults.hiddenSets ?? [])
    if (path === '' || path === '/') {
      const names = ib.decls(hidden).map((d) => d.set)
      return json(200, JSON.stringify({ 'odata.metadata': `${root}/$metadata`, value: names.map((n) => ({ name: n, url: n })) }))
    }
    if (path === '/$metadata') return { status: 200, type: 'application/xml;charset=utf-8', body: ib.metadata(hidden) }
    const m = /^\/([^/(]+)(?:\((.*)\))?$/.exec(path)
    if (!m) return odataError(400, '8', `Неизвестный ресурс: ${path}`)
    const set = hidden.has(m[1]!) ? undefined : ib.entitySet(m[1]!)
    if (!set) return odataError(400, '8', `Неизвестный набор сущностей: ${m[1]}`)
    const wantsJson = q.get('$format') === 'json'
    const selectText = q.get('$select') ?? undefined
    const select = selectText?.split(',').map((s) => s.trim())
    for (const p of select ?? []) if (!set.props.has(p)) return odataError(400, '6', `Неизвестное свойство: ${p}`)
    if (m[2] !== undefined) {
      const key = m[2]
      const guidKey = /^guid'([0-9a-fA-F-]{36})'$/.exec(key)
      const recKey = /^Recorder='([0-9a-fA-F-]{36})',Recorder_Type='StandardODATA\.([^']+)'$/.exec(key)
      const k = guidKey?.[1] ?? recKey?.[1]
      if (!k) return odataError(400, '14', `Неверный ключ: ${key}`)
      const e = set.byKey(k.toLowerCase())
      if (!e) return odataError(404, '9', 'Объект не найден')
      const body = project(e, select, selectText ?? '*')
      const meta = JSON.stringify(`${root}/$metadata#${set.name}/@Element`)
      return json(200, `{"odata.metadata":${meta},${body.slice(1)}`)
    }
    const filterText = q.get('$filter')
    const byKeys = filterText ? keysOnly(filterText) : undefined
    const keyProp = set.kind === 'catalog' || set.kind === 'document' ? 'Ref_Key' : 'Recorder'
    let list: Entry[]
    if (byKeys && byKeys.prop === keyProp) {
      list = sortEntries(set, [...new Set(byKeys.keys)].flatMap((k) => set.ofKey(k)), q.get('$orderby') ?? undefined)
      if (filterText) {
        const f = compileFilter(filterText, (n) => set.props.has(n))
        list = list.filter((e) => f.test(e.entity))
      }
    } else list = filtered(ib, set, q.get('$orderby') ?? undefined, filterText ?? undefined)
    const skip = Number(q.get('$skip') ?? 0)
    const top = q.has('$top') ? Number(q.get('$top')) : undefined
    list = list.slice(skip, top === undefined ? undefined : skip + top)
    if (state.faults.maxPageEntries !== undefined && list.length > state.faults.maxPageEntries) {
      return odataError(500, '-1', 'Недостаточно памяти для выполнения запроса')
    }
    if (!wantsJson) return { status: 200, type: 'application/atom+xml;type=feed;charset=utf-8', body: atom(root, set.name, list.length) }
    const key = selectText ?? '*'
    const items = list.map((e) => project(e, select, key))
    return json(200, `{"odata.metadata":${JSON.stringify(`${root}/$metadata#${set.name}`)},"value":[${items.join(',')}]}`)
  }

  const server = createServer((req, res) => {
    const start = performance.now()
    const url = new URL(req.url ?? '/', 'http://x')
    let path = ''
    try {
      path = decodeURIComponent(url.pathname)
    } catch {
      path = url.pathname
    }
    const rel = path.startsWith(ROOT_PATH) ? path.slice(ROOT_PATH.length) : undefined
    const setName = rel === undefined ? '' : (/^\/([^/(?]+)/.exec(rel)?.[1] ?? '')
    const log: RequestLog = { method: req.method ?? '', url: decodeURIComponent(req.url ?? ''), set: setName, status: 0, bytes: 0, start, end: 0 }
    requests.push(log)
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    res.on('close', () => {
      inFlight--
      log.end = performance.now()
    })
    const f = state.faults
    if (f.failAfter !== undefined) {
      if (f.failAfter <= 0) return req.socket.destroy()
      f.failAfter--
    }
    if (f.dropSet && f.dropSet.set === setName && f.dropSet.times !== 0) {
      f.dropSet.times--
      return req.socket.destroy()
    }
    const send = () => {
      let a: Answer
      if (rel === undefined) a = odataError(404, '8', 'Not found')
      else if (f.failSet && f.failSet.set === setName && f.failSet.times !== 0) {
        f.failSet.times--
        a = odataError(f.failSet.status, '-1', `Ошибка на стороне сервера 1С (${f.failSet.status})`)
      } else {
        try {
          a = answer(req, rel, url.searchParams)
        } catch (err) {
          if (!(err instanceof QueryError)) throw err
          a = odataError(err.status, err.code, err.message)
        }
      }
      let body: Buffer = Buffer.from(a.body)
      const headers: Record<string, string> = { 'content-type': a.type }
      if (a.status === 401) headers['www-authenticate'] = 'Basic realm="1C:Enterprise"'
      if (body.length > 1024 && String(req.headers['accept-encoding'] ?? '').includes('gzip')) {
        body = gzipSync(body, { level: 1 })
        headers['content-encoding'] = 'gzip'
      }
      headers['content-length'] = String(body.length)
      log.status = a.status
      log.bytes = body.length
      res.writeHead(a.status, headers)
      res.end(body)
    }
    if (first && f.coldStartMs) {
      first = false
      setTimeout(send, f.coldStartMs)
    } else {
      first = false
      send()
    }
  })
  server.on('connection', (s: Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port ?? 0, options.host ?? '127.0.0.1', () => (server.off('error', reject), resolve())))
  const addr = server.address() as AddressInfo
  root = `http://${options.host ?? '127.0.0.1'}:${addr.port}${ROOT_PATH}`
  return {
    url: root,
    put: (o) => ib.put(o),
    remove: (ref) => ib.remove(ref),
    requests,
    get maxInFlight() {
      return maxInFlight
    },
    get faults() {
      return state.faults
    },
    set faults(f: FakeFaults) {
      state.faults = f
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
