// The server's RequestObserver: one access-log line and the request metrics per answer.
import { Transform } from 'node:stream'
import type { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { endpointByService } from '../endpoints/index.js'
import type { RequestObserver } from '../http/server.js'
import type { Metrics } from './metrics.js'

export interface ObserverOptions {
  readonly metrics?: Metrics
  /** One JSON line per request; absent or null: no access log. */
  readonly accessLog?: Logger | null
  /** Log query values too (`--log-query-values`); by default only their names. */
  readonly logQueryValues?: boolean
}

// Client text in a log line is bounded: a request cannot make a line grow without end.
const MAX_PARAMS = 32
const MAX_TEXT = 100

/**
 * The metrics label of a request: the service for the API's routes, the route itself for
 * the others, `unknown` for paths no route has, so that labels stay a small fixed set
 * whatever paths clients invent.
 */
function serviceOf(req: FastifyRequest): string {
  const route = req.routeOptions.url
  if (route === '/main/hs/:service/get') {
    const service = (req.params as { service?: string }).service
    return service !== undefined && endpointByService.has(service) ? service : 'unknown'
  }
  if (route === '/main/hs/health') return 'health'
  return route ?? 'unknown'
}

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' ')).slice(0, MAX_TEXT)
  } catch {
    return text.slice(0, MAX_TEXT)
  }
}

/** The query's parameters as sent (names, and values when asked for), bounded. */
function queryOf(url: string, withValues: boolean): { params: string[]; values?: Record<string, string> } {
  const q = url.indexOf('?')
  const params: string[] = []
  if (q < 0) return withValues ? { params, values: {} } : { params }
  const values: Record<string, string> = {}
  for (const part of url.slice(q + 1).split('&')) {
    if (part === '') continue
    if (params.length === MAX_PARAMS) break
    const eq = part.indexOf('=')
    const name = decode(eq < 0 ? part : part.slice(0, eq))
    params.push(name)
    if (withValues && !(name in values)) values[name] = eq < 0 ? '' : decode(part.slice(eq + 1))
  }
  return withValues ? { params, values } : { params }
}

function counted(stream: Readable, done: (bytes: number) => void): Transform {
  let bytes = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length
      callback(null, chunk)
    },
    flush(callback) {
      done(bytes)
      callback()
    },
  })
  counter.once('close', () => done(bytes))
  // An error of the source must reach the reply as it would without the counter.
  stream.once('error', (err) => counter.destroy(err))
  return stream.pipe(counter)
}

function isStream(payload: unknown): payload is Readable {
  return typeof payload === 'object' && payload !== null && typeof (payload as Readable).pipe === 'function'
}

export function requestObserver(options: ObserverOptions): RequestObserver {
  const { metrics, accessLog } = options
  const withValues = options.logQueryValues === true
  return {
    request() {
      metrics?.requestStarted()
    },
    send(req: FastifyRequest, _reply: FastifyReply, payload: unknown) {
      const note = req.note!
      if (payload === null || payload === undefined) note.bytes = 0
      else if (Buffer.isBuffer(payload)) note.bytes = payload.length
      else if (typeof payload === 'string') note.bytes = Buffer.byteLength(payload)
      else if (isStream(payload)) return counted(payload, (bytes) => (note.bytes = bytes))
      return payload
    },
    response(req: FastifyRequest, reply: FastifyReply) {
      const note = req.note!
      const service = serviceOf(req)
      const ms = reply.elapsedTime
      const status = reply.statusCode
      const bytes = note.bytes ?? 0
      if (metrics) {
        metrics.requestEnded(service, status, ms / 1000, bytes, note.rows)
        if (note.auth) metrics.authOutcome(note.auth)
      }
      if (accessLog) {
        accessLog.info({
          reqId: req.id,
          method: req.method,
          service,
          ...queryOf(req.url, withValues),
          user: note.user ?? null,
          auth: note.auth ?? null,
          ip: req.ip,
          status,
          rows: note.rows ?? null,
          bytes,
          ms: Math.round(ms * 100) / 100,
        })
      }
    },
  }
}
