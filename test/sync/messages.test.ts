// What a failed sync says (sync.md §6, §8): where the source did not answer and how often it
// was tried, that no password was given, that the path publishes no OData interface. Each is
// one line with the wording the contract fixes, extended by what to do.
import * as assert from 'node:assert/strict'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { startFake1C } from '../../src/fake1c/index.js'
import type { Fake1C } from '../../src/fake1c/index.js'
import { createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { demoObjects, runSync } from './support.js'

/** A port nothing listens on: one just released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('sync failure messages', () => {
  let fake: Fake1C
  let store: TestStore

  before(async () => {
    fake = await startFake1C({ objects: demoObjects().slice(0, 20), user: 'Иван', password: 'верный' })
    store = await createTestStore('sqlite')
  })
  after(async () => {
    await fake.close()
    await store.cleanup()
  })

  test('nothing listening: host, port, attempts and time, then exit 1', async () => {
    const port = await closedPort()
    const run = await runSync(store.writer, { source: `http://127.0.0.1:${port}/base/odata/standard.odata`, once: true })
    assert.equal(run.code, 1)
    assert.deepEqual(run.err, [`source unreachable: nothing answers at 127.0.0.1:${port} (connection refused), 5 attempts over 0 s`])
  })

  test('a wrong publication path: one wording for the 404, whatever its body', async () => {
    const wrong = fake.url.replace('/odata/standard.odata', '/odata/wrong.odata')
    for (const check of [true, false]) {
      const run = await runSync(store.writer, { source: wrong, user: 'Иван', check, once: !check || undefined })
      assert.equal(run.code, 1)
      assert.deepEqual(run.err, [`no OData interface at ${wrong}: HTTP 404 — is the publication path right?`])
    }
  })

  test('a 401 with no user or no password given says so', async () => {
    const none = await runSync(store.writer, { source: fake.url, check: true })
    assert.deepEqual(
      [none.code, none.err],
      [1, ['source refused the credentials (HTTP 401): no user was given (--user or DOCGATE_SOURCE_USER)']],
    )
    const empty = await runSync(store.writer, { source: fake.url, user: 'Иван', check: true })
    assert.deepEqual(
      [empty.code, empty.err],
      [1, ['source refused the credentials (HTTP 401): no password was given (--password-stdin or DOCGATE_SOURCE_PASSWORD)']],
    )
  })
})
