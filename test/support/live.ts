// A really listening docgate over a store the test has filled: what a client on a socket
// (the typed client, an MCP client, a browser) needs and inject cannot give.
import { createApp } from '../../src/app/create.js'
import type { AddressInfo } from 'node:net'
import { Authenticator } from '../../src/auth/authenticator.js'
import { hashPassword } from '../../src/auth/password.js'

import { UserSnapshot } from '../../src/users/directory.js'
import { putUser } from '../../src/users/store.js'
import { fixtureStore } from './app.js'
import type { TestUser } from './app.js'
import type { Backend, TestStore } from './stores.js'

export interface LiveServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  close(): Promise<void>
}

/** A fresh store with `fixture` imported and `users` issued, its writer closed (SQLite) so a server or a child process can open it. */
export async function filledStore(backend: Backend, fixture: readonly unknown[], users: readonly TestUser[]): Promise<TestStore> {
  const store = await fixtureStore(backend, fixture)
  for (const u of users) await putUser(store.writer, u.name, await hashPassword(u.password, { logN: 10 }), u.methods ?? ['*'])
  // PGlite is one in-process database: its writer and reader share it.
  if (backend !== 'pglite') await store.writer.close()
  return store
}

/** Serves `store` read-only on 127.0.0.1 at a free port; `close` also cleans the store up. */
export async function listenLive(store: TestStore): Promise<LiveServer> {
  const sql = await store.openReader()
  const snapshot = new UserSnapshot(sql)
  await snapshot.start()
  const dummyHash = await hashPassword('dummy', { logN: 10 })
  const app = await createApp({ sql, auth: new Authenticator({ users: snapshot, dummyHash }), logger: false })
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
