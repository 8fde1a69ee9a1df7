// With a pool, answers read whole from ready pages run on the event loop and everything
// that computes goes to the workers (serving/ready-first.ts).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { DataRequest, Executor } from '../../src/serving/executor.js'
import { readyFirst, readyOnly } from '../../src/serving/ready-first.js'
import type { SqlPort } from '../../src/store/sql.js'
import { createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

const now = new Date('2026-11-20T12:00:00Z')
const req = (service: string, query = ''): DataRequest => ({ service, query, now })

describe('ready answers on the event loop', () => {
  let store: TestStore
  let sql: SqlPort
  before(async () => {
    store = await createTestStore('sqlite')
    await store.writer.close()
    sql = await store.openReader()
  })
  after(async () => {
    await sql.close()
    await store.cleanup()
  })

  it('names the requests ready bytes answer: a whole list or its period alone, the whole materials tree', () => {
    const ready = readyOnly(sql)
    assert.equal(ready(req('payments')), true)
    assert.equal(ready(req('payments', 'from=01.11.2026&to=03.11.2026')), true)
    assert.equal(ready(req('payments', 'date=02.11.2026')), true)
    assert.equal(ready(req('warehouses')), true)
    assert.equal(ready(req('demands', 'from=01.11.2026&to=03.11.2026')), true)
    // A filter, a full form, a computed answer, an unknown service: the pool's.
    assert.equal(ready(req('payments', 'code=0001')), false)
    assert.equal(ready(req('payments', 'full=true&from=01.11.2026&to=03.11.2026')), false)
    assert.equal(ready(req('warehouses', 'name=склад')), false)
    assert.equal(ready(req('specifications', 'material=кабель')), false)
    // The unfiltered materials tree is a ready answer; a filtered one is built.
    assert.equal(ready(req('materials')), true)
    assert.equal(ready(req('materials', 'name=кабель')), false)
    assert.equal(ready(req('cashflows')), false)
    assert.equal(ready(req('nothing')), false)
  })

  it('sends each request to the executor its kind names, and closes both', async () => {
    const calls: string[] = []
    const stub = (name: string): Executor => ({
      async execute(request) {
        calls.push(`${name} ${request.service}?${request.query}`)
        return Buffer.from(name)
      },
      async close() {
        calls.push(`${name} closed`)
      },
    })
    const executor = readyFirst(stub('loop'), stub('pool'), readyOnly(sql))
    const how = { signal: new AbortController().signal }
    assert.equal((await executor.execute(req('payments', 'from=01.11.2026&to=03.11.2026'), how)).toString(), 'loop')
    assert.equal((await executor.execute(req('payments', 'code=0001'), how)).toString(), 'pool')
    await executor.close()
    assert.deepEqual(calls, ['loop payments?from=01.11.2026&to=03.11.2026', 'pool payments?code=0001', 'loop closed', 'pool closed'])
  })
})
