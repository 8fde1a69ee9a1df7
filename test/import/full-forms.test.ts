// Full forms kept ready in the read models: the bytes the import stores are the bytes the
// per-request builders printed, they follow every object they depend on (planned cost
// through nested specifications, names referenced from tabular rows, removed rows), and
// lists of any length are joined page by page.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { demoFiles } from '../../src/demo/generate.js'
import { ENDPOINTS } from '../../src/endpoints/index.js'
import type { ListEndpoint } from '../../src/endpoints/define.js'
import type { RequestContext } from '../../src/views/define.js'
import { FULL_COLUMNS, fullForms, storedForm } from '../../src/views/full-forms.js'
import { ChunkWriter, serialize } from '../../src/views/json-stream.js'
import { runList } from '../../src/pipeline/run.js'
import type { Body } from '../../src/pipeline/run.js'
import { openWritable } from '../../src/app/store.js'
import type { Row, SqlPort } from '../../src/store/sql.js'
import { documentsFixture } from '../fixtures/documents.js'
import { BACKENDS, importFixture, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { PART_FAILURE, failingPart } from '../support/failing-sql.js'
import { uuid } from '../support/refs.js'
import { createTestStore } from '../support/stores.js'

const WITH_FULL = ENDPOINTS.filter((e): e is ListEndpoint => e.kind === 'list' && e.fullPage !== undefined)

async function bytesOf(stream: AsyncGenerator<Buffer>, out: ChunkWriter): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const part of stream) parts.push(part)
  const rest = out.take()
  if (rest) parts.push(rest)
  return Buffer.concat(parts)
}

/** Every document of `ep`: the stored form as served, and the form its builder prints per request, as bytes. */
async function compareForms(sql: SqlPort, ep: ListEndpoint): Promise<number> {
  const table = ep.readModel.table
  const rows = await sql.all<Row>(`SELECT * FROM ${table} ORDER BY ref`)
  const ctx: RequestContext = { sql, now: () => new Date(), options: { full: true }, flags: new Map(), values: new Map() }
  for (let i = 0; i < rows.length; i += 500) {
    const page = rows.slice(i, i + 500)
    const form = await fullForms(ep.service, ep.fullPage!, ctx, page)
    for (const row of page) {
      const built = form(row)
      const what = `${ep.service} ${String(row.ref)}`
      assert.equal(String(row.full_issue), built.issue ?? '', what)
      if (built.value === undefined) {
        assert.equal(row.full_form, null, what)
        continue
      }
      const printed = new ChunkWriter()
      const expected = await bytesOf(serialize(built.value, printed), printed)
      const served = new ChunkWriter()
      const stored = await bytesOf(storedForm(sql, row.full_form as Buffer, String(row.full_blobs), served), served)
      assert.ok(stored.equals(expected), `${what}: ${stored.toString().slice(0, 200)} ≠ ${expected.toString().slice(0, 200)}`)
    }
  }
  return rows.length
}

/** What every model with a full form holds. */
async function snapshot(sql: SqlPort): Promise<Record<string, Row[]>> {
  const out: Record<string, Row[]> = {}
  for (const ep of WITH_FULL) {
    out[ep.readModel.table] = await sql.all<Row>(`SELECT ref, short, ${FULL_COLUMNS.join(', ')} FROM ${ep.readModel.table} ORDER BY ref`)
  }
  return out
}

const ORDERS = '/main/hs/orders/get'
const zk1 = async (app: TestApp) => {
  const res = await app.api(`${ORDERS}?full=true&code=0001`)
  return (res.json as { data: { Товары: Record<string, unknown>[] }[] }).data[0]!.Товары
}
const costs = async (app: TestApp) => (await zk1(app)).map((g) => g.ПлановаяСебестоимость)

const C = 'Справочник.'
const costsOf = (works: number, transport = 0, overhead = 0, equipment = 0, connections = 0, design = 0) => ({
  СтоимостьРабот: works,
  СтоимостьТранспорт: transport,
  СтоимостьНакладные: overhead,
  СтоимостьАрендаСпецТехники: equipment,
  СтоимостьТехнологическиеПрисоединения: connections,
  СтоимостьПроектныеРаботы: design,
})
const catalogueObject = (type: string, key: string, name: string, extra: Record<string, unknown> = {}) => ({
  type: C + type,
  ref: uuid(key),
  Код: key,
  Наименование: name,
  ...extra,
})

for (const backend of BACKENDS) {
  describe(`${backend}: stored full forms of the demo data`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(
        demoFiles({ scale: 0.05, seed: 1 }).flatMap((f) => [...f.objects()]),
        { backend },
      )
    })
    after(() => app.close())

    for (const ep of WITH_FULL) {
      it(`${ep.service}: every stored form is byte for byte what the per-request builder prints`, async () => {
        assert.ok((await compareForms(app.served, ep)) > 0)
      })
    }
  })

  describe(`${backend}: stored full forms follow what they depend on`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(documentsFixture, { backend })
    })
    after(() => app.close())

    it('an unchanged re-import leaves every form as it was', async () => {
      const before = await snapshot(app.served)
      const report = await app.importMore(documentsFixture)
      assert.equal(report.ok, true)
      assert.deepEqual(await snapshot(app.served), before)
    })

    it('a changed specification two levels below an order row changes its planned cost', async () => {
      // Row 3 (Сборка А, 1.5): main spec Б → material Узел Б → its main spec В → material Деталь В → its main spec Г.
      // Row 5 (Узел Б, 2): main spec В → Деталь В → Г. Г = 0.33, В = 10 + 3 × 0.33 = 10.99, Б = 50 + 2 × 10.99 = 71.98.
      assert.deepEqual(await costs(app), [123.45, 310, 107.97, 0, 21.98])
      const report = await app.importMore([
        catalogueObject('СпецификацииНоменклатуры', 'спец-г', 'Спецификация Г', costsOf(0, 0, 0, 0, 0, 1)),
      ])
      assert.equal(report.ok, true)
      // Г = 1, В = 10 + 3 × 1 = 13, Б = 50 + 2 × 13 = 76: 1.5 × 76 = 114 and 2 × 13 = 26.
      assert.deepEqual(await costs(app), [123.45, 310, 114, 0, 26])
    })

    it("a nomenclature's new main specification changes the planned cost of the orders that reach it", async () => {
      // Деталь В loses its main spec: В = 10 + 3 × 0 = 10, Б = 50 + 2 × 10 = 70.
      const report = await app.importMore([catalogueObject('Номенклатура', 'ном-деталь', 'Деталь В')])
      assert.equal(report.ok, true)
      assert.deepEqual(await costs(app), [123.45, 310, 105, 0, 20])
    })

    it('a catalogue name referenced only from a tabular row changes the full form', async () => {
      assert.equal((await zk1(app))[3]!.Номенклатура, 'Гайка М8')
      const report = await app.importMore([catalogueObject('Номенклатура', 'ном-гайка', 'Гайка М10')])
      assert.equal(report.ok, true)
      assert.equal((await zk1(app))[3]!.Номенклатура, 'Гайка М10')
    })

    it('a removed tabular row leaves the full form', async () => {
      const order = documentsFixture.find((o) => 'ref' in o && o.ref === uuid('зк-1')) as Record<string, unknown>
      const goods = order.Товары as unknown[]
      const report = await app.importMore([{ ...order, Товары: goods.slice(0, 2) }])
      assert.equal(report.ok, true)
      assert.deepEqual(
        (await zk1(app)).map((g) => [g.Номенклатура, g.ПлановаяСебестоимость]),
        [
          ['Болт М8', 123.45],
          ['Сборка А', 310],
        ],
      )
    })
  })

  describe(`${backend}: lists longer than a page`, () => {
    // 1,001 requirement-invoices on one day: three pages, sorted by number.
    const numbers = Array.from({ length: 1001 }, (_, i) => `ТН-${String(i + 1).padStart(6, '0')}`)
    const demand = (n: string) => ({
      type: 'Документ.ТребованиеНакладная',
      ref: uuid(`demand-${n}`),
      Номер: n,
      Дата: '2026-03-09T08:00:00',
      Материалы: [{ Номенклатура: uuid('n-none'), Количество: 1 }],
    })
    // One document on the second page whose Материалы cannot be read at import.
    const broken = numbers[700]!
    let app: TestApp
    before(async () => {
      app = await startApp(numbers.map(demand), { backend, wrapImport: failingPart('doc_demands_materials', uuid(`demand-${broken}`)) })
    })
    after(() => app.close())

    it('short forms: every row in order, joined page by page', async () => {
      const res = await app.api('/main/hs/demands/get')
      const data = (res.json as { data: { Номер: string; Материалы: unknown }[] }).data
      assert.deepEqual(
        data.map((d) => d.Номер),
        numbers,
      )
      assert.deepEqual(new Set(data.map((d) => d.Материалы)), new Set(['1 позиция']))
    })

    it('full forms: every row in order; the one that failed keeps its summary with its errors entry', async () => {
      const res = await app.api('/main/hs/demands/get?full=1')
      const { data, errors } = res.json as { data: { Номер: string; Материалы: unknown }[]; errors: string[] }
      assert.deepEqual(
        data.map((d) => d.Номер),
        numbers,
      )
      assert.deepEqual(data[700]!.Материалы, '1 позиция')
      assert.deepEqual(data[701]!.Материалы, [{ НомерСтроки: '1', Номенклатура: '', Количество: 1, ЕдиницаИзмерения: '' }])
      assert.deepEqual(errors, [
        `Требование-накладная ${broken} от 09.03.2026: не удалось прочитать табличную часть Материалы: ${PART_FAILURE}`,
      ])
    })
  })
}

describe('a store written before full forms were stored', () => {
  const json = async (body: Body): Promise<unknown> => {
    if (Buffer.isBuffer(body)) return JSON.parse(body.toString())
    const parts: Buffer[] = []
    for await (const part of body) parts.push(part)
    return JSON.parse(Buffer.concat(parts).toString())
  }
  const orders = ENDPOINTS.find((e): e is ListEndpoint => e.service === 'orders' && e.kind === 'list')!

  it('is brought up to date by the next writing command', async () => {
    const store = await createTestStore('sqlite')
    try {
      const report = await importFixture(store.writer, documentsFixture)
      assert.equal(report.ok, true)
      const now = () => new Date()
      const pairs = new Map([['full', 'true']])
      const expected = await json(await runList(orders, pairs, { sql: store.writer, now }))
      // The read model as it was: no full-form columns, and the signature of another definition.
      await store.writer.exec(
        'CREATE TABLE api_orders_before AS SELECT ref, short, date, number, number_f, amount_k, posted, contract_f, counterparty_f, ' +
          'inn_f, organization_f, warehouse_f, responsible_f, comment_f FROM api_orders; DROP TABLE api_orders; ' +
          "ALTER TABLE api_orders_before RENAME TO api_orders; UPDATE meta SET value = 'old' WHERE key = 'read_model:api_orders'",
      )
      await store.writer.close()
      const writer = await openWritable(store.location)
      await writer.close()
      const reader = await store.openReader()
      try {
        assert.deepEqual(await reader.all("SELECT value FROM meta WHERE key = 'read_model:api_orders' AND value = 'old'"), [])
        assert.equal((await reader.all('SELECT count(*) AS n FROM api_orders WHERE full_form IS NOT NULL'))[0]!.n, 4)
        assert.deepEqual(await json(await runList(orders, pairs, { sql: reader, now })), expected)
      } finally {
        await reader.close()
      }
    } finally {
      await store.cleanup()
    }
  })
})
