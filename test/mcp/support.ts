// MCP test harness: a store built through the real import path, a really listening API
// server (the streamable HTTP transport needs a socket, not inject), and the fixture.
import type { AddressInfo } from 'node:net'
import { Authenticator } from '../../src/auth/authenticator.js'
import { hashPassword } from '../../src/auth/password.js'
import { buildServer } from '../../src/http/server.js'
import { UserSnapshot } from '../../src/users/directory.js'
import { putUser } from '../../src/users/store.js'
import { documentsFixture } from '../fixtures/documents.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { importFixture } from '../support/app.js'
import type { TestUser } from '../support/app.js'
import { uuid } from '../support/refs.js'
import { createTestStore } from '../support/stores.js'
import type { Backend, TestStore } from '../support/stores.js'

/** 60 more warehouses than the fixture's 7: 67 in all, over the 50-row bound of a tool answer. */
export const MANY_WAREHOUSES = Array.from({ length: 60 }, (_, i) => ({
  type: 'Справочник.Склады',
  ref: uuid(`массовый-${i}`),
  Код: `M${String(i + 1).padStart(3, '0')}`,
  Наименование: `Массовый склад ${String(i + 1).padStart(3, '0')}`,
  ЭтоГруппа: false,
}))
export const MCP_FIXTURE = [...warehousesFixture, ...MANY_WAREHOUSES, ...documentsFixture]

/** A store with the fixture and the users, writer closed (SQLite) so a server or a child process can open it. */
export async function fixtureStore(backend: Backend, users: readonly TestUser[]): Promise<TestStore> {
  const store = await createTestStore(backend)
  const report = await importFixture(store.writer, MCP_FIXTURE)
  if (!report.ok) throw new Error(`fixture rejected: ${JSON.stringify(report.invalid)}`)
  for (const u of users) await putUser(store.writer, u.name, await hashPassword(u.password, { logN: 10 }), u.methods ?? ['*'])
  if (backend !== 'pglite') await store.writer.close()
  return store
}

export interface LiveServer {
  readonly url: string
  close(): Promise<void>
}

export async function listen(backend: Backend, users: readonly TestUser[]): Promise<LiveServer> {
  const store = await fixtureStore(backend, users)
  const sql = await store.openReader()
  const snapshot = new UserSnapshot(sql)
  await snapshot.start()
  const dummyHash = await hashPassword('dummy', { logN: 10 })
  const app = buildServer({ sql, auth: new Authenticator({ users: snapshot, dummyHash }), logger: false })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      snapshot.stop()
      await app.close()
      await sql.close().catch(() => {})
      await store.cleanup()
    },
  }
}
