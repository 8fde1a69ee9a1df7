// A real docgate for the client's tests: the server the CLI serves (buildServer), listening
// on 127.0.0.1 at a free port over a fresh store of the given engine, built from a fixture
// through the import path, with users as docgate stores them.
import { filledStore, listenLive } from '../../../../test/support/live.js'
import { BACKENDS } from '../../../../test/support/stores.js'
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
  const { url, close } = await listenLive(await filledStore(backend, fixture, users))
  return { baseUrl: url, close }
}
