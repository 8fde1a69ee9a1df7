// Pages left without bytes (views/pages.ts `stale`): a sync's attachments batch keeps only the
// places of the pages it changes, readers take those pages' rows from the read model, and
// `rebuildStalePages` joins them once. Every answer is byte for byte the joined one.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { ListEndpoint } from '../../src/endpoints/define.js'
import { ENDPOINTS, VIEWS } from '../../src/endpoints/index.js'
import { ImportBatch } from '../../src/import/batch.js'
import { runList } from '../../src/pipeline/run.js'
import { PAGES_TABLE, rebuildStalePages } from '../../src/views/pages.js'
import type { Row, SqlPort } from '../../src/store/sql.js'
import { BACKENDS, endStore, fixtureStore } from '../support/app.js'
import { uuid } from '../support/refs.js'
import type { TestStore } from '../support/stores.js'

const payments = ENDPOINTS.find((e): e is ListEndpoint => e.kind === 'list' && e.service === 'payments')!
const REQUEST = 'Документ.ЗаявкаНаРасходованиеСредств'
const FILE = 'Справочник.ХранилищеДополнительнойИнформации'

// Three requests on each of 2025-06-10, -11 and -12; the first of each day has a file.
const DAYS = ['2025-06-10', '2025-06-11', '2025-06-12']
const request = (day: string, i: number) => ({
  type: REQUEST,
  ref: uuid(`заявка-${day}-${i}`),
  Номер: `ЗР-${day.slice(8)}${i}`,
  Дата: '2025-06-01T09:00:00',
  ДатаРасхода: `${day}T00:00:00`,
  СуммаДокумента: 100 + i,
  Проведен: true,
})
const file = (owner: string, name: string) => ({
  type: FILE,
  ref: uuid(`файл-${name}`),
  Наименование: name,
  Объект: { type: REQUEST, ref: owner },
  ИмяФайла: name,
  Данные: Buffer.from(`содержимое ${name}`).toString('base64'),
})
const objects = DAYS.flatMap((day) => [request(day, 1), request(day, 2), request(day, 3), file(uuid(`заявка-${day}-1`), `${day}.txt`)])

async function text(body: Buffer | AsyncIterable<Buffer>): Promise<string> {
  if (Buffer.isBuffer(body)) return body.toString()
  const parts: Buffer[] = []
  for await (const part of body) parts.push(part)
  return Buffer.concat(parts).toString()
}

const QUERIES = ['', 'from=10.06.2025&to=12.06.2025', 'full=true&from=10.06.2025&to=12.06.2025', 'full=true&date=11.06.2025']
async function answers(sql: SqlPort): Promise<string[]> {
  const got: string[] = []
  for (const q of QUERIES)
    got.push(await text(await runList(payments, new Map(new URLSearchParams(q)), { sql, now: () => new Date('2025-06-20T12:00:00Z') })))
  return got
}

/** Each page of the payments' model as [key, bucket, seq, rows, has bytes]. */
const pagesOf = async (sql: SqlPort) =>
  (
    await sql.all<Row>(
      `SELECT model, bucket, seq, n, body IS NOT NULL AS joined FROM ${PAGES_TABLE} WHERE model LIKE 'api_payments%' ORDER BY model, bucket, seq`,
    )
  ).map((p) => [p.model, p.bucket, Number(p.seq), Number(p.n), Boolean(Number(p.joined))])

for (const backend of BACKENDS) {
  describe(`pages left without bytes until joined (${backend})`, () => {
    let store: TestStore
    before(async () => {
      store = await fixtureStore(backend, objects)
    })
    after(() => endStore(backend, store))

    it('an attachments batch leaves its owners’ pages without bytes; the answers stay byte for byte; one join restores them', async () => {
      const sql = store.writer
      // A second file for the second request of 06-11, written as sync writes attachments.
      await sql.transaction(async () => {
        const batch = new ImportBatch(sql)
        const added = await batch.add(file(uuid('заявка-2025-06-11-2'), 'второй.txt'))
        assert.equal(added.ok, true)
        await batch.finish({ dangling: false, answers: 'drop', pages: 'stale' })
      })
      assert.deepEqual(await pagesOf(sql), [
        ['api_payments', '2025-06-10', 0, 3, true],
        ['api_payments', '2025-06-11', 0, 3, false],
        ['api_payments', '2025-06-12', 0, 3, true],
        ['api_payments:full', '2025-06-10', 0, 3, true],
        ['api_payments:full', '2025-06-11', 0, 3, false],
        ['api_payments:full', '2025-06-12', 0, 3, true],
      ])
      const stale = await answers(sql)
      const data = (JSON.parse(stale[3]!) as { data: { Номер: string; Вложения: { ИмяФайла: string }[] }[] }).data
      assert.deepEqual(
        data.map((d) => [d.Номер, d.Вложения.map((v) => v.ИмяФайла)]),
        [
          ['ЗР-113', []],
          ['ЗР-112', ['второй.txt']],
          ['ЗР-111', ['2025-06-11.txt']],
        ],
      )
      const short = (JSON.parse(stale[1]!) as { data: { Номер: string; Вложения: { Количество: number } }[] }).data
      assert.deepEqual(
        short.map((d) => [d.Номер, d.Вложения.Количество]),
        [
          ['ЗР-123', 0],
          ['ЗР-122', 0],
          ['ЗР-121', 1],
          ['ЗР-113', 0],
          ['ЗР-112', 1],
          ['ЗР-111', 1],
          ['ЗР-103', 0],
          ['ЗР-102', 0],
          ['ЗР-101', 1],
        ],
      )

      // A run told to stop (a signal) leaves the join to the next: nothing joined, answers alike.
      assert.equal(await rebuildStalePages(sql, VIEWS.models, { aborted: true }), 0)
      assert.deepEqual(await answers(sql), stale)
      assert.equal(await rebuildStalePages(sql, VIEWS.models), 1)
      assert.deepEqual(
        (await pagesOf(sql)).map((p) => p[4]),
        [true, true, true, true, true, true],
      )
      assert.deepEqual(await answers(sql), stale)
      assert.equal(await rebuildStalePages(sql, VIEWS.models), 0)
    })
  })
}
