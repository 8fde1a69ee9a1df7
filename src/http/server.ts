// HTTP adapter: routes, authentication, headers and error mapping, in one place.
// Status set (decision D3): 200, 401 and 500 on the documented routes; 404 elsewhere; 400
// to paging parameters that cannot be followed (decision "Pages by keyset"), 400 or 410 to a
// changes token that cannot be (decision "Changes since"); 304
// to a data request whose If-None-Match names the answer's tag (decision "Answers tagged by
// the store's generation").
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Readable } from 'node:stream'
import Fastify, { LogController } from 'fastify'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { endpointByService } from '../endpoints/index.js'
import { BadPageRequest, pageRequest } from '../endpoints/pages.js'
import { BadOutputRequest, CSV_TYPE, XLSX_TYPE, acceptedFormat, outputRequest } from '../endpoints/fields.js'
import type { Format } from '../endpoints/fields.js'
import { BadChangesToken, CHANGED_SINCE, changesFor } from '../endpoints/changes.js'
import type { PageInfo } from '../endpoints/pages.js'
import { queryPairs } from '../endpoints/parse.js'
import { registerMcp } from '../mcp/http.js'
import { openApiDocument } from '../openapi/document.js'
import { referencePage } from '../openapi/reference-page.js'
import { answerTag, codedTag, matchingTag } from '../serving/answer-tag.js'
import { acceptedCoding } from '../serving/compress.js'
import { Generations } from '../serving/generations.js'
import type { Coding, DataRequest, Execution, Executor } from '../serving/executor.js'
import type { SqlPort } from '../store/sql.js'
import { givingBack } from './give-back.js'
import { requestLog } from './request-log.js'

type AuthResult = { ok: true; user: string } | { ok: false; retryAfterSeconds?: number }
export interface Authenticate {
  /** `service` null asks only whether the user is issued (health answers any issued user). */
  authenticate(headerValues: readonly string[], ip: string, service: string | null): Promise<AuthResult>
}

/** What a request came to, noted by the routes for the observer (access log, metrics). */
interface RequestNote {
  user?: string
  auth?: 'granted' | 'refused' | 'throttled'
  rows?: number
  /** Bytes of the answer's body (set by the observer's `send`). */
  bytes?: number
}

/** Hooks of the operations layer (src/admin/); the server works without one. */
export interface RequestObserver {
  request(req: FastifyRequest): void
  /** May return the payload wrapped (a stream whose bytes are counted). */
  send(req: FastifyRequest, reply: FastifyReply, payload: unknown): unknown
  response(req: FastifyRequest, reply: FastifyReply): void
}

declare module 'fastify' {
  interface FastifyRequest {
    note: RequestNote | null
  }
}

export interface ServerOptions {
  readonly sql: SqlPort
  readonly auth: Authenticate
  readonly logger?: Logger | false
  /** The clock; tests inject a fixed one. */
  readonly now?: () => Date
  /** GET /openapi.json (no credentials: it holds no business data); off with `serve --no-docs`. */
  readonly docs?: boolean
  readonly observer?: RequestObserver
  /** Runs the data requests: in this thread or a worker pool, with the answer cache (app/create.ts). */
  readonly executor: Executor
  /** The answers generation as this process knows it, for the answers' tags (made here unless given). */
  readonly generations?: Generations
}

const JSON_TYPE = 'application/json; charset=utf-8'
const TEXT_TYPE = 'text/plain; charset=utf-8'
const REALM = 'Basic realm="docgate", charset="UTF-8"'
// `check` is how often Node looks for connections past the header or request timeout; its
// default (30 s) would let a slow-header client hold a socket for 40 s instead of 11.
const TIMEOUTS = { headers: 10_000, request: 30_000, keepAlive: 5_000, socket: 120_000, check: 1_000 } as const
const PREFLIGHT = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Authorization',
  'access-control-max-age': '600',
}
const HEALTH_OK = Buffer.from(JSON.stringify({ Статус: 'API доступен' }))
const NOT_FOUND = '{"error":"Not Found"}'
/** A data answer depends on the request's codings and, for its format, on its `Accept`. */
const VARY = 'accept-encoding, accept'
const EVERY_ANSWER = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }

/** The URL of the next page: the request's own path and query with `cursor` set to `cursor`. */
function nextPage(url: string, query: string, cursor: string): string {
  const path = url.slice(0, url.length - query.length).replace(/\?$/, '')
  const kept = query.split('&').filter((part) => part !== '' && !/^cursor(=|$)/.test(part))
  return `${path}?${[...kept, `cursor=${cursor}`].join('&')}`
}

// A store or network failure in the API's words: hosts, ports, paths, user names and the
// driver's text stay in the log (decision "First hour"). Errors from a serving worker arrive
// as their message alone, so the message is read as well as the code.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '3D000',
  '28P01',
  '28000',
])
const UNAVAILABLE =
  /\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|EPIPE)\b|terminating connection|Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection error|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)|too many clients|sorry, too many|password authentication failed|database "[^"]*" does not exist|Client was closed|Cannot use a pool after calling end|database connection is not open/i
const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED'])
const BUSY = /database is locked|database table is locked|SQLITE_BUSY/

/** The API's words for a failure of the store or of the way to it, or undefined for any other failure. */
function storeFailure(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code
  const message = err instanceof Error ? err.message : String(err)
  // pg's class 08: connection exceptions.
  if ((typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) || UNAVAILABLE.test(message))
    return 'the store is unavailable'
  if ((typeof code === 'string' && BUSY_CODES.has(code)) || BUSY.test(message)) return 'the store is busy'
  return undefined
}

/** Error text for a 500: the store's failure in the API's words, else the message only (never a stack or a path), bounded in length. */
export function errorText(err: unknown): string {
  const failure = storeFailure(err)
  if (failure !== undefined) return failure
  const message = err instanceof Error ? err.message : String(err)
  return (message || 'internal error').replace(/\/[\w./-]+/g, '…').slice(0, 500)
}

/** A 500's text ends with the request id, so a user's report can be found in the log. */
const failureText = (err: unknown, requestId: string): string => `${errorText(err)}; request id ${requestId}`

// An incoming id is kept when it is 1..128 visible ASCII characters (no spaces, nothing
// that could split a log line); anything else is replaced by a fresh UUID.
const CLIENT_ID = /^[\x21-\x7e]{1,128}$/
function requestId(raw: IncomingMessage): string {
  const sent = raw.headers['x-request-id']
  return typeof sent === 'string' && CLIENT_ID.test(sent) ? sent : randomUUID()
}

const authOutcome = (auth: AuthResult): RequestNote['auth'] =>
  auth.ok ? 'granted' : auth.retryAfterSeconds === undefined ? 'refused' : 'throttled'

function authorizationValues(req: FastifyRequest): string[] {
  const raw = req.raw.rawHeaders
  const values: string[] = []
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') values.push(raw[i + 1]!)
  return values
}

/**
 * How a data request learns that its client went away before the answer was complete, which
 * stops its work. The AbortSignal (the pool's) is made on first use: most answers are
 * given on the event loop and need only to ask. An answer sent whole needs no abort (and
 * aborting builds a DOMException with a stack). A class: the getter of an object literal is
 * an accessor pair V8 makes in the old generation, which held the request's objects past
 * every scavenge until a mark-compact (docs/perf/history.md "What the main thread promotes").
 */
class ClientGone implements Execution {
  #controller: AbortController | undefined
  readonly coded?: (coding: Coding) => void
  readonly page?: (info: PageInfo) => void
  readonly gen?: (gen: string) => void
  readonly errors?: (errors: readonly string[], removed?: readonly unknown[]) => void

  constructor(
    private readonly req: FastifyRequest,
    private readonly reply: FastifyReply,
    readonly rows: ((n: number) => void) | undefined,
    told: Pick<Execution, 'coded' | 'page' | 'gen' | 'errors'>,
  ) {
    this.coded = told.coded
    this.page = told.page
    this.gen = told.gen
    this.errors = told.errors
  }

  readonly gone = (): boolean => {
    const res = this.reply.raw
    return (res.destroyed || this.req.raw.socket?.destroyed === true) && !res.writableFinished
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = (this.#controller = new AbortController())
      if (this.gone()) controller.abort()
      else this.reply.raw.once('close', () => this.gone() && controller.abort())
    }
    return this.#controller.signal
  }
}

/** The API's answer to a request the HTTP parser refused: status and `error` text by cause. */
function clientErrorAnswer(code: string | undefined): { status: number; error: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, error: 'the request did not arrive in time' }
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, error: 'the request headers are too large' }
  if (code === 'HPE_INVALID_URL')
    return { status: 400, error: `the request target is not valid: percent-encode query values (UTF-8), e.g. ${TARGET_EXAMPLE}` }
  return {
    status: 400,
    error: 'the request is not valid HTTP/1.1: percent-encode spaces and non-ASCII characters in the request target (UTF-8)',
  }
}
const TARGET_EXAMPLE = `name=${encodeURIComponent('склад')}`

function clientError(app: FastifyInstance, err: Error & { code?: string }, socket: Duplex): void {
  // A connection reset leaves nothing to answer (Node's own rule for 'clientError').
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const id = randomUUID()
  const { status, error } = clientErrorAnswer(err.code)
  app.log.debug({ err, reqId: id }, 'request refused by the HTTP parser')
  if (!socket.writable) return void socket.destroy()
  const body = JSON.stringify({ error })
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `content-type: ${JSON_TYPE}`,
    `content-length: ${Buffer.byteLength(body)}`,
    ...Object.entries(EVERY_ANSWER).map(([k, v]) => `${k}: ${v}`),
    `x-request-id: ${id}`,
    'connection: close',
  ]
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`)
}

export function buildServer(options: ServerOptions): FastifyInstance & { draining: boolean } {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger, childLoggerFactory: requestLog } : { logger: false }),
    // Per-request log lines would dominate the cost of a small answer; errors are logged.
    logController: new LogController({ disableRequestLogging: true }),
    http: { connectionsCheckingInterval: TIMEOUTS.check },
    requestTimeout: TIMEOUTS.request,
    keepAliveTimeout: TIMEOUTS.keepAlive,
    connectionTimeout: TIMEOUTS.socket,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    requestIdHeader: false,
    genReqId: requestId,
    // The pipeline reads the raw query itself (first value wins, keys may be case-insensitive).
    routerOptions: { querystringParser: () => ({}) },
    // A request Node's parser refuses (a raw non-ASCII or space in the target, a header
    // too large, headers too slow) never reaches a route: Fastify's own answer here was
    // `{"error":"Bad Request","message":"Client Error",…}` without the headers every answer
    // carries. It gets the API's shape and a hint instead (decision "First hour").
    clientErrorHandler: (err, socket) => clientError(app, err, socket),
    // A path the router cannot decode (`/main/hs/%E4%E0/get`, `%zz`) or whose service is over
    // 100 characters got Fastify's own 400/414 body, echoing the path, without the headers
    // every answer carries (no route, so no onSend hook). Neither names a documented route:
    // 404 like any other path (decision "Status set").
    frameworkErrors: (err, req, res) => {
      const reply = res as unknown as FastifyReply
      const unknownPath = err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      reply
        .code(unknownPath ? 404 : 500)
        .type(JSON_TYPE)
        .headers(EVERY_ANSWER)
        .header('x-request-id', req.id)
      if (app.draining) reply.header('connection', 'close')
      const body = unknownPath ? NOT_FOUND : JSON.stringify({ error: failureText(err, req.id) })
      // No hook runs for these answers: the observer is told here.
      if (options.observer) {
        const observer = options.observer
        req.note = { bytes: Buffer.byteLength(body) }
        observer.request(req)
        reply.raw.once('close', () => observer.response(req, reply))
      }
      return reply.send(body)
    },
  }) as unknown as FastifyInstance & { draining: boolean }
  app.server.headersTimeout = TIMEOUTS.headers
  app.draining = false

  const observer = options.observer
  app.decorateRequest('note', null)
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.headers(EVERY_ANSWER).header('x-request-id', req.id)
    // While draining, every answer closes its connection so no keep-alive client is reset.
    if (app.draining) reply.header('connection', 'close')
    done(null, observer ? observer.send(req, reply, payload) : payload)
  })
  if (observer) {
    app.addHook('onRequest', (req, _reply, done) => {
      req.note = {}
      observer.request(req)
      done()
    })
    app.addHook('onResponse', (req, reply, done) => {
      observer.response(req, reply)
      done()
    })
  }

  const deny = (reply: FastifyReply, retryAfter?: number) => {
    reply.code(401).header('www-authenticate', REALM).type(JSON_TYPE)
    if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter))
    return reply.send('{"error":"Unauthorized"}')
  }

  const rawQuery = (req: FastifyRequest): string => {
    const url = req.raw.url ?? ''
    const q = url.indexOf('?')
    return q < 0 ? '' : url.slice(q + 1)
  }

  app.get('/main/hs/health', async (req, reply) => {
    const auth = await options.auth.authenticate(authorizationValues(req), req.ip, null)
    noteAuth(req, auth)
    if (!auth.ok) return deny(reply, auth.retryAfterSeconds)
    try {
      await options.sql.all('SELECT 1 AS ok')
      return reply.code(200).type(JSON_TYPE).send(HEALTH_OK)
    } catch (err) {
      req.log.error({ err }, 'health check failed')
      return reply.code(500).type(TEXT_TYPE).send(failureText(err, req.id))
    }
  })

  if (options.docs !== false) {
    const document = Buffer.from(JSON.stringify(openApiDocument()))
    app.get('/openapi.json', async (_req, reply) =>
      reply.code(200).type(JSON_TYPE).header('access-control-allow-origin', '*').send(document),
    )
    referencePage(app)
  }

  const now = options.now ?? (() => new Date())
  const generations = options.generations ?? new Generations(options.sql)
  const changesOf = changesFor(options.sql, () => generations.position())
  const noteAuth = (req: FastifyRequest, auth: AuthResult) => {
    if (req.note === null) return
    req.note.auth = authOutcome(auth)
    if (auth.ok) req.note.user = auth.user
  }

  app.get<{ Params: { service: string } }>('/main/hs/:service/get', async (req, reply) => {
    const endpoint = endpointByService.get(req.params.service)
    if (!endpoint) return reply.code(404).type(JSON_TYPE).send(NOT_FOUND)
    const auth = await options.auth.authenticate(authorizationValues(req), req.ip, endpoint.service)
    noteAuth(req, auth)
    if (!auth.ok) return deny(reply, auth.retryAfterSeconds)
    const query = rawQuery(req)
    const pairs = queryPairs(query)
    let paging = false
    let format: Format = 'json'
    let changes: string | undefined
    // Paging, field, format and changes parameters that cannot be followed are refused before
    // any read (decisions "Pages by keyset", "Fields, CSV and Excel", "Changes since").
    try {
      format = outputRequest(endpoint, pairs, acceptedFormat(req.headers.accept))?.format ?? 'json'
      if (endpoint.kind === 'list') {
        paging = pageRequest(endpoint, pairs) !== undefined
        // Read before the answer, so the token never names a change the answer lacks (decision "Changes since").
        changes = await changesOf(endpoint, pairs)
      }
    } catch (err) {
      if (!(err instanceof BadPageRequest) && !(err instanceof BadOutputRequest)) throw err
      return reply
        .code(err instanceof BadChangesToken ? err.status : 400)
        .type(JSON_TYPE)
        .send(JSON.stringify({ error: err.message }))
    }
    let errors: readonly string[] = []
    let removed: readonly unknown[] | undefined
    let body: Buffer | Readable
    let tag: string
    let coding: Coding | undefined
    let page: PageInfo | undefined
    try {
      // A conditional request reads the generation now: its 304 is decided on what the store
      // names, never on what this process last knew. Either way the generation is one read
      // before the answer, so the tag never names data newer than the answer's.
      const conditional = req.headers['if-none-match'] !== undefined
      const request: DataRequest = {
        service: endpoint.service,
        query,
        now: now(),
        ...(conditional ? { gen: await generations.fresh() } : {}),
        coding: acceptedCoding(req.headers['accept-encoding']),
        ...(format !== 'json' ? { format } : {}),
      }
      let gen = request.gen ?? (await generations.known())
      if (conditional) {
        const matched = matchingTag(req.headers['if-none-match'], answerTag(gen, request))
        if (matched !== undefined) {
          return reply.code(304).header('etag', matched).header('vary', VARY).header('access-control-allow-origin', '*').send()
        }
      }
      const note = req.note
      const rows = note === null ? undefined : (n: number) => (note.rows = n)
      body = await options.executor.execute(
        request,
        new ClientGone(req, reply, rows, {
          coded: (c) => (coding = c),
          page: (p) => (page = p),
          errors: (e, r) => {
            errors = e
            removed = r
          },
          // The answer cache read the generation before the answer: the freshest one for its tag.
          gen: (g) => {
            gen = g
            generations.note(g)
          },
        }),
      )
      tag = answerTag(gen, request)
    } catch (err) {
      req.log.error({ err, service: endpoint.service }, 'request failed')
      return reply
        .code(500)
        .type(JSON_TYPE)
        .send(JSON.stringify({ error: failureText(err, req.id) }))
    }
    reply
      .code(200)
      .type(format === 'csv' ? CSV_TYPE : format === 'xlsx' ? XLSX_TYPE : JSON_TYPE)
      .header('access-control-allow-origin', '*')
      .header('etag', codedTag(tag, coding))
      .header('vary', VARY)
    if (coding !== undefined) reply.header('content-encoding', coding)
    if (format === 'xlsx') reply.header('content-disposition', `attachment; filename="${endpoint.service}.xlsx"`)
    // CSV has no place for `errors` beside its lines: they follow the body, percent-encoded JSON.
    if (format === 'csv') reply.trailer('x-errors', async () => encodeURIComponent(JSON.stringify(errors)))
    // …and so does a changes answer's `removed`.
    if (format === 'csv' && changes !== undefined && pairs.get(CHANGED_SINCE))
      reply.trailer('x-removed', async () => encodeURIComponent(JSON.stringify(removed ?? [])))
    if (changes !== undefined) reply.header('x-changes-token', changes).header('access-control-expose-headers', 'ETag, X-Changes-Token')
    if (paging) {
      const shown = page as PageInfo | undefined
      if (shown?.next !== undefined) reply.header('link', `<${nextPage(req.url, query, shown.next)}>; rel="next"`)
      if (shown?.total !== undefined) reply.header('x-total-count', String(shown.total))
      reply.header('access-control-expose-headers', 'Link, X-Total-Count, ETag, X-Changes-Token')
    }
    return reply.send(Buffer.isBuffer(body) ? body : givingBack(body))
  })

  // CORS preflight (decision D4): a browser front end sends Authorization, which a simple
  // request cannot carry, so it asks first. Health sets no CORS header (spec), so it has none.
  app.options<{ Params: { service: string } }>('/main/hs/:service/get', async (req, reply) => {
    if (!endpointByService.has(req.params.service)) return reply.code(404).type(JSON_TYPE).send(NOT_FOUND)
    return reply.code(204).headers(PREFLIGHT).send()
  })

  registerMcp(app, {
    ...options,
    errorText,
    changes: changesOf,
  })

  app.setNotFoundHandler((_req, reply) => reply.code(404).type(JSON_TYPE).send(NOT_FOUND))
  app.setErrorHandler((err, req, reply) => {
    req.log.error({ err }, 'unhandled error')
    const code = (err as { statusCode?: unknown }).statusCode
    const status = typeof code === 'number' && code >= 400 && code < 500 ? code : 500
    const isHealth = req.url.startsWith('/main/hs/health')
    const text = status === 500 ? failureText(err, req.id) : errorText(err)
    return reply
      .code(status)
      .type(isHealth ? TEXT_TYPE : JSON_TYPE)
      .send(isHealth ? text : JSON.stringify({ error: text }))
  })
  return app
}
