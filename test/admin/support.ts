// Operations test plumbing: an app with the operations layer, its admin listener on a
// free port, scrapes parsed by a Prometheus text parser, and an access log kept in memory.
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { Writable } from 'node:stream'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { pino } from 'pino'
import type { Logger } from 'pino'
import { adminServer } from '../../src/admin/listener.js'
import { Metrics } from '../../src/admin/metrics.js'
import { requestObserver } from '../../src/admin/observe.js'
import { checkReadiness } from '../../src/admin/readiness.js'
import { timedSql } from '../../src/store/timed.js'
import type { SqlPort } from '../../src/store/sql.js'
import { startApp } from '../support/app.js'
import type { Backend, TestApp, TestUser } from '../support/app.js'

/** Access-log lines, parsed, in the order written. */
export function memoryLog(): { log: Logger; lines: Record<string, unknown>[]; raw: string[] } {
  const lines: Record<string, unknown>[] = []
  const raw: string[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue
        raw.push(line)
        lines.push(JSON.parse(line) as Record<string, unknown>)
      }
      done()
    },
  })
  return { log: pino({ base: undefined }, sink), lines, raw }
}

export interface OpsApp {
  readonly app: TestApp
  readonly metrics: Metrics
  readonly access: ReturnType<typeof memoryLog>
  /** Base URL of the admin listener. */
  readonly admin: string
  /** While true, every read of the served store fails as if the store were away. */
  away: boolean
  close(): Promise<void>
}

export async function startOps(
  fixture: readonly unknown[],
  options: { backend: Backend; users?: readonly TestUser[]; maxLagMs?: number; logQueryValues?: boolean },
): Promise<OpsApp> {
  const access = memoryLog()
  const state = { away: false }
  let served: SqlPort | undefined
  let app: TestApp | undefined
  // The metrics exist before the app; they read the store and the authenticator it builds.
  const later = <T extends object>(get: () => T): T =>
    new Proxy({} as T, {
      get(_t, key) {
        const target = get()
        const value: unknown = Reflect.get(target, key, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  const metrics = new Metrics({ kdf: later(() => app!.auth), sql: later(() => served!) })
  const wrapSql = (sql: SqlPort): SqlPort => {
    // The store "goes away": every read fails as a lost PostgreSQL connection does.
    served = new Proxy(sql, {
      get(target, key) {
        if (key === 'all')
          return (text: string, params?: never) =>
            state.away ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) : target.all(text, params)
        if (key === 'readBytes')
          return (text: string, params: never, columns: never) =>
            state.away ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) : target.readBytes(text, params, columns)
        const value: unknown = Reflect.get(target, key, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    return timedSql(served, (s) => metrics.queryTime(s))
  }
  const observer = requestObserver({ metrics, accessLog: access.log, logQueryValues: options.logQueryValues })
  app = await startApp(fixture, { backend: options.backend, users: options.users, wrapSql, observer })
  const started = app
  const server: Server = adminServer({
    metrics,
    readiness: () => checkReadiness({ sql: served!, draining: () => started.server.draining, maxLagMs: options.maxLagMs ?? 15 * 60_000 }),
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const ops: OpsApp = {
    app: started,
    metrics,
    access,
    admin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get away() {
      return state.away
    },
    set away(v: boolean) {
      state.away = v
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
      await started.close()
    },
  }
  return ops
}

export interface Scrape {
  /** The value of the sample of `name` with exactly these labels (undefined when absent). */
  value(name: string, labels?: Record<string, string>): number | undefined
  /** A histogram sample's count. */
  count(name: string, labels?: Record<string, string>): number | undefined
  readonly types: Map<string, string>
}

const sameLabels = (a: Record<string, string> = {}, b: Record<string, string> = {}) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v)

const number = (text: string): number => (text === '+Inf' ? Infinity : text === '-Inf' ? -Infinity : Number(text))

export async function scrape(admin: string): Promise<Scrape> {
  const res = await fetch(`${admin}/metrics`)
  if (res.status !== 200) throw new Error(`/metrics: ${res.status}`)
  const text = await res.text()
  // The parser throws on a line that is not Prometheus text, and gives each family's type.
  const families = parsePrometheusTextFormat(text)
  // It folds a labelled histogram's series into one (buckets only, labels lost), so samples
  // are read from a second parse in which histograms are untyped: each `_count`, `_sum` and
  // `_bucket` series is then a family of its own, labels kept.
  const samples = parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) (histogram|summary)$/gm, '# TYPE $1 untyped'))
  // (A family name recurs once per label set there: buckets, sum and count alternate.)
  const find = (name: string, labels?: Record<string, string>) =>
    samples.flatMap((f) => (f.name === name ? f.metrics : [])).find((m) => sameLabels(m.labels, labels))
  const value = (name: string, labels?: Record<string, string>) => {
    const v = find(name, labels)?.value
    return v === undefined ? undefined : number(v)
  }
  return {
    value,
    count: (name, labels) => value(`${name}_count`, labels),
    types: new Map(families.map((f) => [f.name, f.type])),
  }
}
