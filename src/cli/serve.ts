// `docgate serve`: read-only store, users snapshot, HTTP server, graceful stop.
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { availableParallelism } from 'node:os'
import { pino } from 'pino'
import type { Logger } from 'pino'
import { operations, parseDuration } from '../admin/operations.js'
import { Authenticator } from '../auth/authenticator.js'
import { createApp } from '../app/create.js'
import type { App } from '../app/create.js'
import { ConnectionDrainer } from '../http/drain.js'
import { READ_MODELS, VIEWS } from '../endpoints/index.js'
import { outdated } from '../views/migrate.js'
import { listenError } from './listen.js'
import { openReadOnly, resolveDb } from '../store/open.js'
import { missingTrigramIndexes, trigramsMissing } from '../store/trigram.js'
import { UserSnapshot } from '../users/directory.js'

/** In-flight requests get this long to finish after SIGTERM/SIGINT before sockets are cut. */
const GRACE_MS = 10_000
/** Room for the materials tree (20 MB at scale 100) among the repeated answers. */
const ANSWER_CACHE_MIB = 128

export interface ServeFlags {
  db?: string
  host?: string
  port?: string
  'no-docs'?: boolean
  'admin-port'?: string
  'admin-host'?: string
  'max-lag'?: string
  'access-log'?: string
  'log-query-values'?: boolean
  workers?: string
  'request-timeout'?: string
  'answer-cache'?: string
}

/** `--workers`: a count; 0 runs the data requests on the event loop. */
function workersOf(text: string | undefined): number {
  if (text === undefined) return Math.max(1, availableParallelism())
  const n = Number(text)
  if (text.trim() === '' || !Number.isInteger(n) || n < 0 || n > 256) throw new Error(`--workers must be 0..256, got "${text}"`)
  return n
}

/** `--answer-cache`: MiB of repeated answers kept (serving/answer-cache.ts); 0 keeps none. */
function answerCacheBytes(text: string | undefined): number {
  if (text === undefined) return ANSWER_CACHE_MIB * 1024 * 1024
  const n = Number(text)
  if (text.trim() === '' || !Number.isInteger(n) || n < 0 || n > 65536)
    throw new Error(`--answer-cache must be 0..65536 (MiB), got "${text}"`)
  return n * 1024 * 1024
}

function portOf(flag: string, text: string): number {
  const port = Number(text)
  if (text.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${flag} must be 0..65535, got "${text}"`)
  return port
}

/**
 * The access log: its own pino stream, whatever DOCGATE_LOG_LEVEL says (as a web server's
 * access log is apart from its error log). Lines are written in blocks of 4 KiB or every
 * half second, whichever comes first: one system call per request would be most of the
 * log's cost on a small answer (docs/benchmarks.md).
 */
function accessLogger(): { log: Logger; flush: () => Promise<void> } {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 })
  const timer = setInterval(() => destination.flush(), 500)
  timer.unref()
  const log = pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, destination)
  return {
    log,
    flush: () => {
      clearInterval(timer)
      return new Promise<void>((resolve) => destination.flush(() => resolve()))
    },
  }
}

export async function serve(flags: ServeFlags): Promise<number> {
  const host = flags.host ?? '127.0.0.1'
  const port = portOf('--port', flags.port ?? '8080')
  const adminPort = flags['admin-port'] === undefined ? undefined : portOf('--admin-port', flags['admin-port'])
  const adminHost = flags['admin-host'] ?? '127.0.0.1'
  const maxLagMs = parseDuration('--max-lag', flags['max-lag'] ?? '15m')
  const accessFlag = flags['access-log'] ?? 'on'
  if (accessFlag !== 'on' && accessFlag !== 'off') throw new Error(`--access-log must be on or off, got "${accessFlag}"`)
  const workers = workersOf(flags.workers)
  const timeLimitMs = parseDuration('--request-timeout', flags['request-timeout'] ?? '30s')
  const cacheBytes = answerCacheBytes(flags['answer-cache'])
  // A timer cannot wait longer than 2^31 ms; a day is already no limit for a read.
  if (timeLimitMs > 86_400_000) throw new Error(`--request-timeout must be at most 24h (0: no limit), got "${flags['request-timeout']}"`)
  // ISO times, as the access log's: one time format in the process's output.
  const logger = pino({ level: process.env.DOCGATE_LOG_LEVEL ?? 'info', timestamp: pino.stdTimeFunctions.isoTime })
  const store = await openReadOnly(resolveDb(flags.db), (err) => logger.warn({ err }, 'database connection lost'))
  // PostgreSQL without pg_trgm (no rights to create it): same answers by scanning, said once here.
  const missing = await missingTrigramIndexes(store, READ_MODELS).catch(() => [])
  // An SQLite store from an earlier version lacks its FTS5 tables, and searches would fail on
  // them: the read-only server cannot create them, any writing command does.
  // Likewise a store whose read models an earlier docgate wrote (no stored full forms, say).
  const stale = await outdated(store, VIEWS).catch(() => [])
  const what =
    missing.length > 0 && store.dialect.name === 'sqlite'
      ? 'its search index'
      : stale.length > 0
        ? `its stored forms (${stale.join(', ')})`
        : undefined
  if (what !== undefined) {
    await store.close()
    throw new Error(
      `the store predates ${what}; run \`docgate users list --db ${flags.db ?? 'DB'}\` (any writing command) once to bring it up to date`,
    )
  }
  if (missing.length > 0) logger.warn({ missing }, `${trigramsMissing}: substring filters of 3+ characters scan their tables`)
  const users = new UserSnapshot(store, (err) => logger.error({ err }, 'users refresh failed'))
  await users.start()
  const docs = flags['no-docs'] !== true
  const auth = new Authenticator({ users })
  const access = accessFlag === 'on' ? accessLogger() : undefined
  const ops = operations({
    sql: store,
    metrics: adminPort !== undefined,
    kdf: auth,
    accessLog: access?.log,
    logQueryValues: flags['log-query-values'] === true,
    maxLagMs,
  })
  let app: App
  try {
    app = await createApp({
      sql: ops.sql,
      auth,
      logger,
      docs,
      observer: ops.observer,
      workers,
      db: resolveDb(flags.db),
      timeLimitMs,
      answerCacheBytes: cacheBytes,
      onAnswerCache: (cache) => ops.metrics?.watchAnswerCache(() => cache.stats),
      queryTime: ops.metrics ? (s) => ops.metrics!.queryTime(s) : undefined,
      warn: (message) => logger.warn(message),
    })
  } catch (err) {
    users.stop()
    await store.close()
    throw err
  }
  const drainer = new ConnectionDrainer(app.server)
  let admin: Server | undefined
  // After a stop, or a port that cannot be bound: no worker, timer or connection may keep the process alive.
  const closeAll = async () => {
    users.stop()
    if (admin) {
      admin.closeAllConnections()
      await new Promise<void>((r) => admin!.close(() => r()))
    }
    await store.close()
    await access?.flush()
  }
  try {
    await app
      .listen({ host, port })
      .catch((err: unknown) => Promise.reject(listenError(err, host, port, { port: '--port', host: '--host' })))
    if (adminPort !== undefined) {
      const server = ops.admin(() => app.draining)
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(adminPort, adminHost, resolve)).catch(
        (err: unknown) => Promise.reject(listenError(err, adminHost, adminPort, { port: '--admin-port', host: '--admin-host' })),
      )
      admin = server
      admin.on('error', (err) => logger.error({ err }, 'admin listener error'))
    }
  } catch (err) {
    await app.close()
    await closeAll()
    throw err
  }
  // From the socket, not a URL: `new URL('http://h:80').port` is ''.
  const bound = (app.server.address() as AddressInfo).port
  const announce = () => {
    console.log(`listening on http://${host}:${bound}`)
    if (docs) console.log(`OpenAPI document: http://${host}:${bound}/openapi.json`)
    if (docs) console.log(`API reference: http://${host}:${bound}/docs`)
    if (admin) console.log(`admin (live, ready, metrics) on http://${adminHost}:${(admin.address() as { port: number }).port}`)
  }
  return new Promise<number>((resolve) => {
    let stopping = false
    const stop = (signal: string) => {
      if (stopping) return
      stopping = true
      logger.info({ signal }, 'stopping: finishing in-flight requests')
      app.draining = true
      const force = setTimeout(() => {
        logger.warn('grace period over: closing remaining connections')
        app.server.closeAllConnections()
      }, GRACE_MS)
      force.unref()
      // The admin listener stays up while draining, so the balancer sees /ready turn 503.
      drainer
        .drain()
        .then(() => app.close())
        .then(async () => {
          clearTimeout(force)
          await closeAll()
          resolve(0)
        })
        .catch((err: unknown) => {
          logger.error({ err }, 'error while stopping')
          resolve(1)
        })
    }
    process.once('SIGTERM', () => stop('SIGTERM'))
    process.once('SIGINT', () => stop('SIGINT'))
    // Only now: a supervisor that signals as soon as it reads the line gets the graceful stop.
    announce()
  })
}
