// With a pool, answers read whole from ready pages run on the event loop and everything
// that computes goes to the workers (serving/ready-first.ts).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Readable } from 'node:stream'
import type { DataRequest, Executor } from '../../src/serving/executor.js'
import { LOOP_ACCOUNTS } from '../../src/endpoints/cashflows.js'
import { LOOP_PAGES, LOOP_ROWS } from '../../src/pipeline/run.js'
import { inProcessExecutor } from '../../src/serving/in-process.js'
import type { LoopExecutor } from '../../src/serving/in-process.js'
import { readyFirst } from '../../src/serving/ready-first.js'
import type { SqlPort } from '../../src/store/sql.js'
import { uuid } from '../support/refs.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

const now = new Date('2026-11-20T12:00:00Z')
const req = (service: string, query = ''): DataRequest => ({ service, query, now })
const how = { signal: new AbortController().signal }
const text = async (body: Buffer | Readable): Promise<string> =>
  (Buffer.isBuffer(body) ? body : Buffer.concat(await body.toArray())).toString()

/** Whether the event loop answers `request` itself (true) or leaves it to the pool (false). */
const onLoop = (sql: SqlPort) => {
  const loop = inProcessExecutor(sql, 0)
  return async (request: DataRequest) => (await loop.attempt(request, how)) !== null
}

for (const backend of BACKENDS)
  describe(`ready answers on the event loop (${backend})`, () => {
    let store: TestStore
    let sql: SqlPort
    before(async () => {
      store = await createTestStore(backend)
      await store.writer.close()
      // 60 payments numbered ЗР-000001…ЗР-000060: "000" is in every number, "00004" in eleven.
      // Their expense dates spread over ten days: ten ready pages, six of each.
      const payments = Array.from({ length: 60 }, (_, i) => ({
        type: 'Документ.ЗаявкаНаРасходованиеСредств',
        ref: uuid(`зр-${i + 1}`),
        Номер: `ЗР-${String(i + 1).padStart(6, '0')}`,
        Дата: '2026-11-02T10:00:00',
        ДатаРасхода: `2026-11-${String(1 + (i % 10)).padStart(2, '0')}`,
      }))
      const report = await store.importMore(payments)
      assert.equal(report.ok, true)
      sql = await store.openReader()
    })
    after(async () => {
      await sql.close()
      await store.cleanup()
    })

    it('names the requests ready bytes answer: a whole list or its period alone, short or full, the whole materials tree', async () => {
      const ready = onLoop(sql)
      // The whole list is ten pages: more than one statement of LOOP_PAGES reads, so the pool streams it.
      assert.equal(LOOP_PAGES, 8)
      assert.equal(await ready(req('payments')), false)
      assert.equal(await ready(req('payments', 'from=01.11.2026&to=03.11.2026')), true)
      assert.equal(await ready(req('payments', 'date=02.11.2026')), true)
      assert.equal(await ready(req('warehouses')), true)
      assert.equal(await ready(req('demands', 'from=01.11.2026&to=03.11.2026')), true)
      // A filter, a full form built per request, a computed answer, an unknown service: the pool's.
      assert.equal(await ready(req('payments', 'code=00')), false)
      // Full forms kept ready are stored bytes too, with attachment contents spliced in from
      // their chunks a bounded statement at a time (payments, receipts).
      assert.equal(await ready(req('payments', 'full=true&from=01.11.2026&to=03.11.2026')), true)
      assert.equal(await ready(req('receipts', 'full=true')), true)
      assert.equal(await ready(req('orders', 'full=true&from=01.11.2026&to=03.11.2026')), true)
      assert.equal(await ready(req('sorders', 'full=true')), true)
      assert.equal(await ready(req('orders', 'full=true&from=01.11.2026&to=03.11.2026&org=ab')), false)
      assert.equal(await ready(req('warehouses', 'name=ск')), false)
      assert.equal(await ready(req('specifications', 'material=кабель')), false)
      // The unfiltered materials tree is a ready answer; a filtered one is built.
      assert.equal(await ready(req('materials')), true)
      assert.equal(await ready(req('materials', 'name=кабель')), false)
      assert.equal(await ready(req('nothing')), false)
      // A page of short forms of the whole list or a period, up to 500 rows and not counted:
      // a few joined reads. A full, filtered, counted or larger page is the pool's.
      assert.equal(await ready(req('payments', 'limit=7')), true)
      assert.equal(await ready(req('payments', 'limit=7&from=01.11.2026&to=03.11.2026')), true)
      assert.equal(await ready(req('payments', 'limit=7&full=true')), false)
      assert.equal(await ready(req('payments', 'limit=7&code=00')), false)
      assert.equal(await ready(req('payments', 'limit=7&count=true')), false)
      assert.equal(await ready(req('payments', 'limit=501')), false)
    })

    it('gives a page of short forms on the loop with the next cursor; its pages join into the whole list', async () => {
      const loop = inProcessExecutor(sql, 0)
      const whole = JSON.parse(await text(await loop.execute(req('payments'), how))).data
      const rows: unknown[] = []
      let cursor: string | undefined
      let pages = 0
      do {
        let next: string | undefined
        const query = `limit=7${cursor ? `&cursor=${cursor}` : ''}`
        const body = await loop.attempt(req('payments', query), { ...how, page: (p) => (next = p.next) })
        assert.notEqual(body, null, query)
        const page = JSON.parse(await text(body!))
        assert.deepEqual(page.errors, [])
        rows.push(...page.data)
        cursor = next
        pages++
      } while (cursor !== undefined && pages < 20)
      assert.equal(pages, 9, '60 rows in pages of 7')
      assert.deepEqual(rows, whole)
    })

    it('answers the requests a substring condition bounds to a few rows, as the trigram index finds them', async () => {
      const ready = onLoop(sql)
      assert.equal(LOOP_ROWS, 50)
      assert.equal(await ready(req('payments', 'code=000045')), true)
      assert.equal(await ready(req('payments', 'code=00004')), true)
      assert.equal(await ready(req('payments', 'code=999')), true)
      // 60 rows match: more than the loop takes.
      assert.equal(await ready(req('payments', 'code=000')), false)
      // Under 3 characters there is no trigram to count by; a full form is built or spliced.
      assert.equal(await ready(req('payments', 'code=45')), false)
      assert.equal(await ready(req('payments', 'code=000045&full=true')), false)
      // A post-filter of 3+ characters is a condition through the index too.
      assert.equal(await ready(req('payments', 'status=ghj')), true)
    })

    it('runs a cash statement on the event loop up to 200 accounts with movements, and one with no period or filter always', async () => {
      const ready = onLoop(sql)
      assert.equal(LOOP_ACCOUNTS, 200)
      const account = (i: number) => `(${i}, '${uuid('орг')}', '${uuid(`счет-${i}`)}', 'Справочник.Кассы')`
      const insert = 'INSERT INTO cash_accounts (seq, organization, account, account_type) VALUES'
      await store.write(`${insert} ${Array.from({ length: 200 }, (_, i) => account(i)).join(', ')}`)
      assert.equal(await ready(req('cashflows', 'totals=true')), true)
      await store.write(`${insert} ${account(200)}`)
      assert.equal(await ready(req('cashflows', 'from=01.01.2026&totals=true')), false)
      assert.equal(await ready(req('cashflows', 'org=орг')), false)
      // With no period and no filter the statement is read ready, whatever the accounts.
      assert.equal(await ready(req('cashflows', 'totals=true')), true)
      assert.equal(await ready(req('cashflows')), true)
    })

    it('builds a period asked again each time: no answer is kept beside the pages', async () => {
      // Joined answers kept per store connection made a repeated period skip its copy, but
      // they were answers kept under `--answer-cache 0`, and their turnover under random
      // periods drove the main thread into runs of mark-compacts (docs/perf/history.md).
      const loop = inProcessExecutor(sql, 0)
      const asked: (Buffer | Readable)[] = []
      for (let i = 0; i < 4; i++) asked.push((await loop.attempt(req('payments', 'from=01.11.2026&to=03.11.2026'), how))!)
      const [first] = asked
      assert.ok(Buffer.isBuffer(first))
      assert.equal(JSON.parse(first.toString()).data.length, 18)
      for (const body of asked) assert.deepEqual(body, first)
      // Four Buffers of their own: a kept answer would come back as the same one from the third asking on.
      assert.equal(new Set(asked).size, 4)
    })

    it('gives a bounded answer byte for byte as the pool would give it', async () => {
      const loop = inProcessExecutor(sql, 0)
      for (const query of ['code=000045', 'code=00004', 'code=999', 'code=000012&responsible=указ']) {
        const counted: number[] = []
        const onLoop = await loop.attempt(req('payments', query), { ...how, rows: (n) => counted.push(n) })
        assert.notEqual(onLoop, null, query)
        assert.equal(await text(onLoop!), await text(await loop.execute(req('payments', query), how)), query)
        assert.deepEqual(counted, [{ 'code=000045': 1, 'code=00004': 11, 'code=999': 0, 'code=000012&responsible=указ': 1 }[query]], query)
      }
      const [one] = JSON.parse(await text((await loop.attempt(req('payments', 'code=000045'), how))!)).data
      assert.equal(one.Номер, 'ЗР-000045')
    })

    it('sends to the pool what the loop does not answer, and closes both', async () => {
      const calls: string[] = []
      const stub: Executor = {
        async execute(request) {
          calls.push(`pool ${request.service}?${request.query}`)
          return Buffer.from('pool')
        },
        async close() {
          calls.push('pool closed')
        },
      }
      const inner = inProcessExecutor(sql, 0)
      const loop: LoopExecutor = {
        ...inner,
        async close() {
          calls.push('loop closed')
        },
      }
      const executor = readyFirst(loop, stub)
      assert.match(
        await text(await executor.execute(req('payments', 'from=01.11.2026&to=03.11.2026'), how)),
        /^\{"data":\[\{"Номер":"ЗР-000053"/,
      )
      assert.equal(await text(await executor.execute(req('payments', 'code=00'), how)), 'pool')
      assert.equal(await text(await executor.execute(req('payments', 'code=000'), how)), 'pool')
      await executor.close()
      assert.deepEqual(calls, ['pool payments?code=00', 'pool payments?code=000', 'loop closed', 'pool closed'])
    })
  })
