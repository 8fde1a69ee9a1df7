// A real docgate for the client's tests: the server the CLI serves (buildServer), listening
// on 127.0.0.1 at a free port over a fresh store of the given engine, built from a fixture
// through the import path, with users as docgate stores them.
import type { AddressInfo } from 'node:net'
import { Authenticator } from '../../../../src/auth/authenticator.js'
import { hashPassword } from '../../../../src/auth/password.js'
import { buildServer } from '../../../../src/http/server.js'
import { UserSnapshot } from '../../../../src/users/directory.js'
import { putUser } from '../../../../src/users/store.js'
import { importFixture } from '../../../../test/support/app.js'
import { BACKENDS, createTestStore } from '../../../../test/support/stores.js'
import type { Backend } from '../../../../test/support/stores.js'

export { BACKENDS }
export type { Backend }

export interface LiveUser {
  readonly name: string
  readonly password: string
  readonly methods?: readonly string[]
}

export interface LiveServer {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string
  close(): Promise<void>
}

export async function startLive(backend: Backend, fixture: readonly unknown[], users: readonly LiveUser[]): Promise<LiveServer> {
  const store = await createTestStore(backend)
  const report = await importFixture(store.writer, fixture)
  if (!report.ok) throw new Error(`fixture rejected: ${JSON.stringify(report.invalid)}`)
  for (const u of users) await putUser(store.writer, u.name, await hashPassword(u.password, { logN: 10 }), u.methods ?? ['*'])
  // PGlite is one in-process database: its writer and reader share it.
  if (backend !== 'pglite') await store.writer.close()
  const sql = await store.openReader()
  const snapshot = new UserSnapshot(sql)
  await snapshot.start()
  const dummyHash = await hashPassword('dummy', { logN: 10 })
  const app = buildServer({ sql, auth: new Authenticator({ users: snapshot, dummyHash }), logger: false })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      snapshot.stop()
      await app.close()
      await sql.close().catch(() => {})
      await store.cleanup()
    },
  }
}
