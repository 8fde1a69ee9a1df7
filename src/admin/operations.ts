// What `serve` adds for operations: the metrics, the timed store handle, the request
// observer (access log + metrics), and the admin listener with its readiness check.
import type { Server } from 'node:http'
import type { Logger } from 'pino'
import type { RequestObserver } from '../http/server.js'
import type { SqlPort } from '../store/sql.js'
import { adminServer } from './listener.js'
import { Metrics } from './metrics.js'
import type { KdfSource } from './metrics.js'
import { requestObserver } from './observe.js'
import { checkReadiness } from './readiness.js'
import { timedSql } from '../store/timed.js'

const DEFAULT_MAX_LAG_MS = 15 * 60_000

export interface OperationsOptions {
  readonly sql: SqlPort
  /** Metrics are kept only when something will read them (the admin listener). */
  readonly metrics: boolean
  readonly kdf?: KdfSource
  readonly accessLog?: Logger | null
  readonly logQueryValues?: boolean
  readonly maxLagMs?: number
}

export interface Operations {
  /** The store handle to serve with (reads timed when metrics are kept). */
  readonly sql: SqlPort
  readonly metrics: Metrics | undefined
  readonly observer: RequestObserver | undefined
  /** The admin listener for a server whose draining flag `draining` reads. */
  admin(draining: () => boolean): Server
}

export function operations(options: OperationsOptions): Operations {
  const metrics = options.metrics ? new Metrics({ kdf: options.kdf, sql: options.sql }) : undefined
  const sql = metrics ? timedSql(options.sql, (s) => metrics.queryTime(s)) : options.sql
  const accessLog = options.accessLog ?? null
  const observer = metrics || accessLog ? requestObserver({ metrics, accessLog, logQueryValues: options.logQueryValues }) : undefined
  return {
    sql,
    metrics,
    observer,
    admin(draining) {
      const maxLagMs = options.maxLagMs ?? DEFAULT_MAX_LAG_MS
      // Readiness reads the store directly: its probes are not request traffic.
      const readiness = () => checkReadiness({ sql: options.sql, draining, maxLagMs })
      return adminServer({ metrics: metrics ?? new Metrics(), readiness })
    },
  }
}

/** `--max-lag`: seconds, or a number with s, m or h. */
export function parseDuration(flag: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text.trim())
  if (!m) throw new Error(`${flag} must be a duration such as 900, 90s, 15m or 1h, got "${text}"`)
  return Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 's' | 'm' | 'h']
}
