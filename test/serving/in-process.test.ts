// The stop check the pipeline reads between pages (and rows built one by one) (RunOptions.signal), and `--workers 0`'s
// executor: a client gone stops a streamed answer at its next row. The requests carry a filter
// (`group=false`, every row) so that they read rows page by page rather than ready pages.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { endpointByService } from '../../src/endpoints/index.js'
import type { ListEndpoint } from '../../src/endpoints/define.js'
import { runList } from '../../src/pipeline/run.js'
import { inProcessExecutor } from '../../src/serving/in-process.js'
import type { SqlPort } from '../../src/store/sql.js'
import { importFixture } from '../support/app.js'
import { uuid } from '../support/refs.js'
import { createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

const COUNT = 3000
const warehouses = Array.from({ length: COUNT }, (_, i) => ({
  type: 'Справочник.Склады',
  ref: uuid(`stop-w${i}`),
  Код: String(i).padStart(9, '0'),
  Наименование: `Склад ${i}`,
}))

async function drain(body: Buffer | AsyncIterable<Buffer>): Promise<Buffer> {
  if (Buffer.isBuffer(body)) return body
  const parts: Buffer[] = []
  for await (const part of body) parts.push(part)
  return Buffer.concat(parts)
}

describe('stopping a request between rows', () => {
  let store: TestStore
  let sql: SqlPort
  before(async () => {
    store = await createTestStore('sqlite')
    assert.equal((await importFixture(store.writer, warehouses)).ok, true)
    await store.writer.close()
    sql = await store.openReader()
  })
  after(async () => {
    await sql.close()
    await store.cleanup()
  })

  it('the pipeline checks before every page the store joins and stops at the first check that throws', async () => {
    let checks = 0
    const signal = {
      throwIfAborted() {
        if (++checks === 3) throw new Error('stop here')
      },
    }
    const ep = endpointByService.get('warehouses') as ListEndpoint
    const filtered = new Map([['group', 'false']])
    const body = await runList(ep, filtered, { sql, now: () => new Date('2026-11-20T12:00:00Z'), signal })
    await assert.rejects(drain(body), { message: 'stop here' })
    assert.equal(checks, 3)
    // Unchecked, the same request is whole: 3,000 rows over six pages.
    const whole = JSON.parse((await drain(await runList(ep, filtered, { sql, now: () => new Date() }))).toString())
    assert.equal(whole.data.length, COUNT)
  })

  it('--workers 0: a client gone before the answer gets no answer; one gone mid-stream stops it', async () => {
    const executor = inProcessExecutor(sql, 30_000)
    const early = new AbortController()
    early.abort()
    await assert.rejects(executor.execute({ service: 'warehouses', query: '', now: new Date() }, { signal: early.signal }), {
      message: 'request stopped: the client went away',
    })
    const late = new AbortController()
    const body = await executor.execute({ service: 'warehouses', query: 'group=false', now: new Date() }, { signal: late.signal })
    const read = async () => {
      let chunks = 0
      for await (const _ of body as AsyncIterable<Buffer>) if (++chunks === 1) late.abort()
    }
    await assert.rejects(read(), { message: 'request stopped: the client went away' })
  })
})
