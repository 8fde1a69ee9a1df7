// Test harness: a fresh store built from a fixture through the real import path, users
// with cheap hashes, and the real server answered in-process (Fastify inject).
import { createApp } from '../../src/app/create.js'
import type { App } from '../../src/app/create.js'
import { Authenticator } from '../../src/auth/authenticator.js'
import { hashPassword } from '../../src/auth/password.js'

import type { RequestObserver } from '../../src/http/server.js'
import { importEntries } from '../../src/import/run.js'
import type { ImportReport } from '../../src/import/run.js'
import type { SqlPort } from '../../src/store/sql.js'
import { UserSnapshot } from '../../src/users/directory.js'
import { putUser } from '../../src/users/store.js'
import { checkAnswer } from './contract.js'
import { BACKENDS, createTestStore, tempDir } from './stores.js'
import type { Backend, TestStore } from './stores.js'

export { BACKENDS, tempDir }
export type { Backend }

export interface TestUser {
  readonly name: string
  readonly password: string
  readonly methods?: readonly string[]
}

export const READER: TestUser = { name: 'reader', password: 'пароль' }

export interface TestResponse {
  readonly status: number
  readonly headers: Record<string, string | string[] | number | undefined>
  readonly body: string
  readonly json: any
  /** The body's bytes (an Excel workbook). */
  readonly raw: Buffer
  /** Trailing headers (a CSV answer's `x-errors`). */
  readonly trailers: Record<string, string | undefined>
}

export interface TestApp {
  readonly backend: Backend
  /** The serving store handle (read-only). */
  readonly sql: SqlPort
  readonly users: UserSnapshot
  /** The handle the server reads through (`sql` after `wrapSql`). */
  readonly served: SqlPort
  readonly auth: Authenticator
  /** The Fastify instance (its `draining` flag is what SIGTERM sets). */
  readonly server: App
  /** One write beside the running server (e.g. revoking a user). */
  write(sql: string, params?: readonly (string | number)[]): Promise<void>
  /** Imports more objects beside the running server; read models are rebuilt as by `docgate import`. */
  importMore(objects: readonly unknown[]): Promise<ImportReport>
  get(path: string, headers?: Record<string, string>): Promise<TestResponse>
  request(
    method: 'GET' | 'OPTIONS' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD',
    path: string,
    headers?: Record<string, string>,
  ): Promise<TestResponse>
  /** GET as READER. */
  api(path: string): Promise<TestResponse>
  close(): Promise<void>
}

export function basic(user: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}` }
}

/** Writes objects into a new store through the import path; returns the report. */
export async function importFixture(sql: SqlPort, objects: readonly unknown[]): Promise<ImportReport> {
  return importEntries(
    sql,
    objects.map((value, i) => ({ line: i + 1, value })),
  )
}

/** A fresh store of `backend` with `objects` imported; a rejected object fails the setup, naming the first ones. */
export async function fixtureStore(backend: Backend, objects: readonly unknown[]): Promise<TestStore> {
  const store = await createTestStore(backend)
  const report = await importFixture(store.writer, objects)
  if (!report.ok) throw new Error(`fixture rejected: ${JSON.stringify(report.invalid.slice(0, 2))}`)
  return store
}

/** Ends a store a test made: its writer closed (PGlite's writer is the database itself, which the cleanup ends), then the store dropped. */
export async function endStore(backend: Backend, store: TestStore): Promise<void> {
  if (backend !== 'pglite') await store.writer.close()
  await store.cleanup()
}

export interface StartOptions {
  readonly backend?: Backend
  readonly users?: readonly TestUser[]
  /** The server's clock (cashflows' open periods end "today"). */
  readonly now?: () => Date
  /** Wraps the server's store handle, e.g. to make one query fail for a per-document error test. */
  readonly wrapSql?: (sql: SqlPort) => SqlPort
  /**
   * Wraps the handle the fixture is imported through: full forms are built at import, so a
   * read that fails there is what a per-document error test breaks.
   */
  readonly wrapImport?: (sql: SqlPort) => SqlPort
  /** The operations layer's hooks (access log, metrics). */
  readonly observer?: RequestObserver
  /** Bytes of repeated answers kept (`serve --answer-cache`); none by default. */
  readonly answerCacheBytes?: number
}

export async function startApp(fixture: readonly unknown[], options: StartOptions | readonly TestUser[] = {}): Promise<TestApp> {
  const opts: StartOptions = Array.isArray(options) ? { users: options as readonly TestUser[] } : (options as StartOptions)
  const users = opts.users ?? [READER]
  const backend = opts.backend ?? 'sqlite'
  const store = await createTestStore(backend)
  const writer = store.writer
  const report = await importFixture(opts.wrapImport ? opts.wrapImport(writer) : writer, fixture)
  if (!report.ok) throw new Error(`fixture rejected: ${JSON.stringify(report.invalid)}`)
  for (const u of users) await putUser(writer, u.name, await hashPassword(u.password, { logN: 10 }), u.methods ?? ['*'])
  if (backend !== 'pglite') await writer.close()
  const sql = await store.openReader()
  const snapshot = new UserSnapshot(sql)
  await snapshot.start()
  const dummyHash = await hashPassword('dummy', { logN: 10 })
  const served = opts.wrapSql ? opts.wrapSql(sql) : sql
  const auth = new Authenticator({ users: snapshot, dummyHash })
  const app = await createApp({
    sql: served,
    auth,
    logger: false,
    now: opts.now,
    observer: opts.observer,
    answerCacheBytes: opts.answerCacheBytes,
  })
  await app.ready()
  const request: TestApp['request'] = async (method, path, headers = {}) => {
    const res = await app.inject({ method, url: path, headers })
    if (String(res.headers['content-type']).startsWith('application/json')) checkAnswer(method, path, res.statusCode, res.body)
    let json: unknown
    try {
      json = JSON.parse(res.body)
    } catch {
      json = undefined
    }
    return {
      status: res.statusCode,
      headers: res.headers,
      body: res.body,
      json,
      raw: res.rawPayload,
      trailers: res.trailers as Record<string, string | undefined>,
    }
  }
  const get = (path: string, headers: Record<string, string> = {}) => request('GET', path, headers)
  return {
    backend,
    sql,
    users: snapshot,
    served,
    auth,
    server: app,
    write: (text, params) => store.write(text, params),
    importMore: (objects) => store.importMore(objects),
    get,
    request,
    api: (path) => get(path, basic(READER.name, READER.password)),
    async close() {
      snapshot.stop()
      await app.close()
      await sql.close().catch(() => {})
      await store.cleanup()
    },
  }
}
