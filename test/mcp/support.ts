// MCP test harness: a store built through the real import path, a really listening API
// server (the streamable HTTP transport needs a socket, not inject), and the fixture.
import { documentsFixture } from '../fixtures/documents.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import type { TestUser } from '../support/app.js'
import { filledStore, listenLive } from '../support/live.js'
import type { LiveServer } from '../support/live.js'
import { uuid } from '../support/refs.js'
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
  return filledStore(backend, MCP_FIXTURE, users)
}

export type { LiveServer }

export async function listen(backend: Backend, users: readonly TestUser[]): Promise<LiveServer> {
  return listenLive(await fixtureStore(backend, users))
}
