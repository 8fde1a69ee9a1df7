// `docgate fake-1c`: docgate objects served as a 1C 8.3 infobase of УПП 1.3 serves them
// through its standard OData interface (sync.md §3) — JSON only with `$format=json`, EDMX
// `$metadata`, `$filter`/`$orderby`/`$select`/`$top`/`$skip`, odata.error bodies, УПП's
// names and shapes — with faults to inject. Tests, benchmarks and the README's walk-through
// sync from it. The infobase is held in memory (memory.ts, `objects`) or read from a docgate
// store page by page (store.ts, `store`); this file is the HTTP side both share.
import { createServer } from 'node:http'
import type { IncomingMessage } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { gzipSync } from 'node:zlib'
import type { Backend } from './backend.js'
import { memoryBackend } from './memory.js'
import { QueryError } from './query.js'
import { storeBackend } from './store.js'
import type { SqlPort } from '../store/sql.js'

interface FakeFaults {
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
  /** The objects of an infobase held in memory (put and remove change it); or */
  readonly objects?: Iterable<Record<string, unknown>>
  /** a docgate store, read page by page as requests ask (read-only; closed with the fake). */
  readonly store?: SqlPort
  /** Keep every request in `requests` (default true); false keeps the counts only. */
  readonly log?: boolean
  readonly user?: string
  readonly password?: string
  readonly custom?: boolean
  readonly faults?: FakeFaults
  readonly host?: string
  readonly port?: number
  readonly today?: string
}

interface RequestLog {
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
  /** Requests served and answer bytes sent, kept also when `log` is false. */
  readonly served: { requests: number; bytes: number }
  readonly maxInFlight: number
  faults: FakeFaults
  close(): Promise<void>
}

const ROOT_PATH = '/base/odata/standard.odata'
/** The fake's counters: `{"requests": n, "bytes": n, "maxInFlight": n}`. */
export const STATS_PATH = '/fake/stats'

const json = (status: number, body: string) => ({ status, type: 'application/json;charset=utf-8', body })
type Answer = { status: number; type: string; body: string }

const odataError = (status: number, code: string, message: string): Answer =>
  json(status, JSON.stringify({ 'odata.error': { code, message: { lang: 'ru', value: message } } }))

function atom(root: string, set: string, count: number): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" xml:base="${root}/"><id>${root}/${set}</id><title type="text"/><updated>${new Date().toISOString()}</updated><!-- ${count} entries --></feed>`
}

export async function startFake1C(options: FakeOptions): Promise<Fake1C> {
  const custom = options.custom === true
  const today = options.today ?? new Date().toISOString().slice(0, 10)
  const ib: Backend = options.store ? await storeBackend(options.store, custom, today) : memoryBackend(options.objects ?? [], custom, today)
  const keepLog = options.log !== false
  const requests: RequestLog[] = []
  const served = { requests: 0, bytes: 0 }
  let inFlight = 0
  let maxInFlight = 0
  let first = true
  const state = { faults: { ...(options.faults ?? {}) } as FakeFaults }
  const expected =
    options.user === undefined ? undefined : `Basic ${Buffer.from(`${options.user}:${options.password ?? ''}`, 'utf8').toString('base64')}`
  const sockets = new Set<Socket>()
  let root = ''

  const answer = async (req: IncomingMessage, path: string, q: URLSearchParams): Promise<Answer> => {
    if (req.method !== 'GET') return odataError(405, '0', 'Метод не поддерживается')
    if (expected !== undefined && req.headers.authorization !== expected) return { status: 401, type: 'text/plain', body: 'Unauthorized' }
    const hidden = new Set(state.faults.hiddenSets ?? [])
    if (path === '' || path === '/') {
      const names = (await ib.decls(hidden)).map((d) => d.set)
      return json(200, JSON.stringify({ 'odata.metadata': `${root}/$metadata`, value: names.map((n) => ({ name: n, url: n })) }))
    }
    if (path === '/$metadata') return { status: 200, type: 'application/xml;charset=utf-8', body: await ib.metadata(hidden) }
    const m = /^\/([^/(]+)(?:\((.*)\))?$/.exec(path)
    if (!m) return odataError(400, '8', `Неизвестный ресурс: ${path}`)
    const set = hidden.has(m[1]!) ? undefined : await ib.entitySet(m[1]!)
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
      const e = await set.byKey(k.toLowerCase(), select)
      if (!e) return odataError(404, '9', 'Объект не найден')
      const body = e.json(select, selectText ?? '*')
      const meta = JSON.stringify(`${root}/$metadata#${set.name}/@Element`)
      return json(200, `{"odata.metadata":${meta},${body.slice(1)}`)
    }
    const skip = Number(q.get('$skip') ?? 0)
    const top = q.has('$top') ? Number(q.get('$top')) : undefined
    const list = await set.page({ filter: q.get('$filter') ?? undefined, orderby: q.get('$orderby') ?? undefined, select, skip, top })
    if (state.faults.maxPageEntries !== undefined && list.length > state.faults.maxPageEntries) {
      return odataError(500, '-1', 'Недостаточно памяти для выполнения запроса')
    }
    if (!wantsJson) return { status: 200, type: 'application/atom+xml;type=feed;charset=utf-8', body: atom(root, set.name, list.length) }
    const key = selectText ?? '*'
    const items = list.map((e) => e.json(select, key))
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
    // The fake's own counters, outside the OData root (bench:sync reads them per cycle).
    if (path === STATS_PATH) {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ ...served, maxInFlight }))
    }
    const rel = path.startsWith(ROOT_PATH) ? path.slice(ROOT_PATH.length) : undefined
    const setName = rel === undefined ? '' : (/^\/([^/(?]+)/.exec(rel)?.[1] ?? '')
    const log: RequestLog = {
      method: req.method ?? '',
      url: keepLog ? decodeURIComponent(req.url ?? '') : '',
      set: setName,
      status: 0,
      bytes: 0,
      start,
      end: 0,
    }
    if (keepLog) requests.push(log)
    served.requests++
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
    const send = async () => {
      let a: Answer
      if (rel === undefined) a = odataError(404, '8', 'Not found')
      else if (f.failSet && f.failSet.set === setName && f.failSet.times !== 0) {
        f.failSet.times--
        a = odataError(f.failSet.status, '-1', `Ошибка на стороне сервера 1С (${f.failSet.status})`)
      } else {
        try {
          a = await answer(req, rel, url.searchParams)
        } catch (err) {
          if (err instanceof QueryError) a = odataError(err.status, err.code, err.message)
          else {
            // 1C's answer to a failure of its own: 500 with code -1 (the fake keeps serving).
            process.stderr.write(`fake 1C: ${req.url}: ${(err as Error).stack ?? String(err)}\n`)
            a = odataError(500, '-1', `Ошибка при выполнении запроса: ${(err as Error).message}`)
          }
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
      served.bytes += body.length
      if (res.destroyed) return
      res.writeHead(a.status, headers)
      res.end(body)
    }
    if (first && f.coldStartMs) {
      first = false
      setTimeout(() => void send(), f.coldStartMs)
    } else {
      first = false
      void send()
    }
  })
  server.on('connection', (s: Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(options.port ?? 0, options.host ?? '127.0.0.1', () => (server.off('error', reject), resolve())),
  )
  const addr = server.address() as AddressInfo
  root = `http://${options.host ?? '127.0.0.1'}:${addr.port}${ROOT_PATH}`
  return {
    url: root,
    put: (o) => ib.put(o),
    remove: (ref) => ib.remove(ref),
    requests,
    served,
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
      }).then(() => ib.close()),
  }
}
