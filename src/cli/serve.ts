// `docgate serve`: read-only store, users snapshot, HTTP server, graceful stop.
import { pino } from 'pino'
import { Authenticator } from '../auth/authenticator.js'
import { ConnectionDrainer } from '../http/drain.js'
import { buildServer } from '../http/server.js'
import { READ_MODELS } from '../endpoints/index.js'
import { openReadOnly, resolveDb } from '../store/open.js'
import { missingTrigramIndexes, trigramsMissing } from '../store/trigram.js'
import { UserSnapshot } from '../users/directory.js'

/** In-flight requests get this long to finish after SIGTERM/SIGINT before sockets are cut. */
const GRACE_MS = 10_000

export async function serve(flags: { db?: string; host?: string; port?: string; 'no-docs'?: boolean }): Promise<number> {
  const host = flags.host ?? '127.0.0.1'
  const port = Number(flags.port ?? '8080')
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got "${flags.port}"`)
  const logger = pino({ level: process.env.DOCGATE_LOG_LEVEL ?? 'info' })
  const sql = await openReadOnly(resolveDb(flags.db), (err) => logger.warn({ err }, 'database connection lost'))
  const users = new UserSnapshot(sql, (err) => logger.error({ err }, 'users refresh failed'))
  await users.start()
  // PostgreSQL without pg_trgm (no rights to create it): same answers by scanning, said once here.
  const missing = await missingTrigramIndexes(sql, READ_MODELS).catch(() => [])
  if (missing.length > 0) logger.warn({ missing }, `${trigramsMissing}: substring filters of 3+ characters scan their tables`)
  const docs = flags['no-docs'] !== true
  const app = buildServer({ sql, auth: new Authenticator({ users }), logger, docs })
  const drainer = new ConnectionDrainer(app.server)
  const address = await app.listen({ host, port })
  const url = new URL(address)
  console.log(`listening on http://${host}:${url.port}`)
  if (docs) console.log(`OpenAPI document: http://${host}:${url.port}/openapi.json`)
  if (docs) console.log(`API reference: http://${host}:${url.port}/docs`)
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
      drainer
        .drain()
        .then(() => app.close())
        .then(async () => {
          clearTimeout(force)
          users.stop()
          await sql.close()
          resolve(0)
        })
        .catch((err: unknown) => {
          logger.error({ err }, 'error while stopping')
          resolve(1)
        })
    }
    process.once('SIGTERM', () => stop('SIGTERM'))
    process.once('SIGINT', () => stop('SIGINT'))
  })
}
