// Prometheus metrics of one server instance. Each instance has its own Registry (never
// prom-client's global one), so tests and embedders can build as many servers as they like.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { AnswerCacheStats } from '../serving/answer-cache.js'
import type { SqlPort } from '../store/sql.js'
import { readSyncState } from './sync-state.js'
import type { SyncState } from './sync-state.js'

export const CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE

/** What the authenticator tells about its KDF work (Authenticator has both). */
export interface KdfSource {
  readonly kdfRuns: number
  readonly kdfQueued: number
}

export type AuthOutcome = 'granted' | 'refused' | 'throttled'

export interface MetricsSources {
  readonly kdf?: KdfSource
  /** The store the sync state is read from at each scrape; absent: no sync metrics. */
  readonly sql?: SqlPort
  readonly now?: () => number
}

/** A counter that follows a total counted elsewhere, read at each scrape. */
function sourcedCounter(name: string, help: string, registers: Registry[], total: () => number): void {
  let seen = 0
  new Counter({
    name,
    help,
    registers,
    collect() {
      const now = total()
      if (now > seen) this.inc(now - seen)
      seen = now
    },
  })
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
const QUERY_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5]

interface ServiceSeries {
  readonly duration: { observe(v: number): void }
  readonly bytes: { inc(v: number): void }
  readonly rows: { inc(v: number): void }
  readonly byStatus: Map<number, { inc(): void }>
}

export class Metrics {
  readonly registry = new Registry()
  readonly #requests: Counter<'service' | 'status'>
  readonly #duration: Histogram<'service'>
  readonly #bytes: Counter<'service'>
  readonly #rows: Counter<'service'>
  readonly #inFlight: Gauge
  readonly #auth: Counter<'outcome'>
  readonly #query: Histogram
  // Label lookups hash their values on every call; a request's series are found once per service.
  readonly #series = new Map<string, ServiceSeries>()

  constructor(sources: MetricsSources = {}) {
    const registers = [this.registry]
    // Process metrics (CPU, memory, handles) and event-loop delay (nodejs_eventloop_lag_*).
    collectDefaultMetrics({ register: this.registry })
    this.#requests = new Counter({
      name: 'docgate_http_requests_total',
      help: 'Requests answered, by service and status.',
      labelNames: ['service', 'status'],
      registers,
    })
    this.#duration = new Histogram({
      name: 'docgate_http_request_duration_seconds',
      help: 'Time from the request to the last byte of its answer, by service.',
      labelNames: ['service'],
      buckets: LATENCY_BUCKETS,
      registers,
    })
    this.#bytes = new Counter({
      name: 'docgate_http_response_bytes_total',
      help: 'Bytes of answer bodies sent, by service.',
      labelNames: ['service'],
      registers,
    })
    this.#rows = new Counter({
      name: 'docgate_http_response_rows_total',
      help: 'Rows (data items) sent, by service.',
      labelNames: ['service'],
      registers,
    })
    this.#inFlight = new Gauge({ name: 'docgate_http_requests_in_flight', help: 'Requests being answered now.', registers })
    this.#auth = new Counter({
      name: 'docgate_auth_outcomes_total',
      help: 'Authentication decisions: granted, refused, throttled (refused with Retry-After).',
      labelNames: ['outcome'],
      registers,
    })
    for (const outcome of ['granted', 'refused', 'throttled'] as const) this.#auth.inc({ outcome }, 0)
    this.#query = new Histogram({
      name: 'docgate_store_query_duration_seconds',
      help: 'Time of each store query.',
      buckets: QUERY_BUCKETS,
      registers,
    })
    if (sources.kdf) this.#kdf(sources.kdf, registers)
    if (sources.sql) this.#sync(sources.sql, sources.now ?? Date.now, registers)
  }

  requestStarted(): void {
    this.#inFlight.inc()
  }

  requestEnded(service: string, status: number, seconds: number, bytes: number, rows: number | undefined): void {
    this.#inFlight.dec()
    let series = this.#series.get(service)
    if (series === undefined) {
      series = {
        duration: this.#duration.labels(service),
        bytes: this.#bytes.labels(service),
        rows: this.#rows.labels(service),
        byStatus: new Map(),
      }
      this.#series.set(service, series)
    }
    let counter = series.byStatus.get(status)
    if (counter === undefined) {
      counter = this.#requests.labels(service, String(status))
      series.byStatus.set(status, counter)
    }
    counter.inc()
    series.duration.observe(seconds)
    series.bytes.inc(bytes)
    if (rows !== undefined) series.rows.inc(rows)
  }

  authOutcome(outcome: AuthOutcome): void {
    this.#auth.inc({ outcome })
  }

  queryTime(seconds: number): void {
    this.#query.observe(seconds)
  }

  /** The answer cache's series (serving/answer-cache.ts), read at each scrape. */
  watchAnswerCache(stats: () => AnswerCacheStats): void {
    const registers = [this.registry]
    sourcedCounter('docgate_answer_cache_hits_total', 'Answers given as the answer cache kept them.', registers, () => stats().hits)
    sourcedCounter(
      'docgate_answer_cache_misses_total',
      'Answers asked again and built all the same (not kept, or the store changed since).',
      registers,
      () => stats().misses,
    )
    new Gauge({
      name: 'docgate_answer_cache_bytes',
      help: 'Bytes of the answers the answer cache keeps now.',
      registers,
      collect() {
        this.set(stats().bytes)
      },
    })
  }

  text(): Promise<string> {
    return this.registry.metrics()
  }

  #kdf(kdf: KdfSource, registers: Registry[]): void {
    sourcedCounter(
      'docgate_auth_kdf_runs_total',
      'Password-hash (scrypt) runs, dummy runs for unknown users included.',
      registers,
      () => kdf.kdfRuns,
    )
    new Gauge({
      name: 'docgate_auth_kdf_queue_length',
      help: 'Password checks waiting for a KDF slot (the worker queue).',
      registers,
      collect() {
        this.set(kdf.kdfQueued)
      },
    })
  }

  #sync(sql: SqlPort, now: () => number, registers: Registry[]): void {
    // One read per scrape, shared by the metrics below (each has its own collect).
    let pending: Promise<SyncState | null> | undefined
    const state = (): Promise<SyncState | null> => {
      pending ??= readSyncState(sql)
        .catch(() => null)
        .finally(() => setImmediate(() => (pending = undefined)))
      return pending
    }
    // Unlabelled gauges cannot be absent: NaN says "no sync known on this store" (never run,
    // or its state unreadable), so a `>` alert stays quiet; a sync that has run but never
    // completed a cycle shows 0 and +Inf.
    new Gauge({
      name: 'docgate_sync_last_success_timestamp_seconds',
      help: 'When the last complete sync cycle ended (Unix time); 0 if none has, NaN if no sync has run on this store.',
      registers,
      async collect() {
        const s = await state()
        this.set(s === null ? NaN : s.lastComplete ? Date.parse(s.lastComplete) / 1000 : 0)
      },
    })
    new Gauge({
      name: 'docgate_sync_lag_seconds',
      help: 'Seconds since the last complete sync cycle ended; +Inf if none has, NaN if no sync has run on this store.',
      registers,
      async collect() {
        const s = await state()
        this.set(s === null ? NaN : s.lastComplete ? Math.max(0, (now() - Date.parse(s.lastComplete)) / 1000) : Infinity)
      },
    })
    new Counter({
      name: 'docgate_sync_objects_written_total',
      help: 'Objects the sync has written, per entity set (from the store).',
      labelNames: ['entity_set'],
      registers,
      async collect() {
        this.reset()
        for (const set of (await state())?.sets ?? []) this.inc({ entity_set: set.entitySet }, set.writtenTotal)
      },
    })
    new Counter({
      name: 'docgate_sync_errors_total',
      help: 'Errors the sync has met, per entity set (from the store).',
      labelNames: ['entity_set'],
      registers,
      async collect() {
        this.reset()
        for (const set of (await state())?.sets ?? []) this.inc({ entity_set: set.entitySet }, set.errorsTotal)
      },
    })
    new Gauge({
      name: 'docgate_sync_last_error_timestamp_seconds',
      help: 'When the sync last met an error, per entity set (Unix time); absent for sets without one.',
      labelNames: ['entity_set'],
      registers,
      async collect() {
        this.reset()
        for (const set of (await state())?.sets ?? [])
          if (set.lastErrorAt) this.set({ entity_set: set.entitySet }, Date.parse(set.lastErrorAt) / 1000)
      },
    })
  }
}
