import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { documentsFixture } from '../fixtures/documents.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { READ_FAILURE, failingReads, loggedReads } from '../support/failing-sql.js'
import type { LoggedRead } from '../support/failing-sql.js'
import { expectList } from '../support/list.js'
import { uuid } from '../support/refs.js'

const ЗК1 = {
  Номер: 'ЗК-0001',
  Дата: '01.06.2024',
  Контрагент: 'ООО Ромашка',
  ИНН: '7701234567',
  Организация: 'ООО Альфа',
  Ответственный: 'Иванов И.И.',
  Договор: 'Договор 15/2025',
  ИспользоватьПлановуюСебестоимость: true,
  ИтогПлановаяСебестоимость: 563.4,
  Сумма: 5000,
  Склад: 'Основной склад',
  Проведен: true,
  Комментарий: 'Монтаж',
  ДатаОплаты: '10.06.2024',
  ДатаОтгрузки: '20.06.2024',
}
const ЗК2 = {
  ...ЗК1,
  Номер: 'ЗК-0002',
  Контрагент: 'АО Лютик',
  ИНН: '5009876543',
  Организация: 'ИП Бета',
  Ответственный: 'Сидорова А.А.',
  Договор: 'Договор 7-П',
  ИспользоватьПлановуюСебестоимость: false,
  ИтогПлановаяСебестоимость: 0,
  Сумма: 800,
  Склад: 'Склад №2',
  Проведен: false,
  Комментарий: 'Пробная партия',
  ДатаОплаты: '',
  ДатаОтгрузки: '',
}
// Nothing filled in: customer orders have no literals, empty values print as ''.
const ЗК3 = {
  Номер: 'ЗК-0003',
  Дата: '15.05.2024',
  Контрагент: '',
  ИНН: '',
  Организация: '',
  Ответственный: '',
  Договор: '',
  ИспользоватьПлановуюСебестоимость: false,
  ИтогПлановаяСебестоимость: 0,
  Сумма: 0,
  Склад: '',
  Проведен: false,
  Комментарий: '',
  ДатаОплаты: '',
  ДатаОтгрузки: '',
}
// The counterparty has no tax id.
const ЗК4 = {
  ...ЗК3,
  Номер: 'ЗК-0004',
  Дата: '20.05.2024',
  Контрагент: 'Иванов ИП',
  Организация: 'ООО Альфа',
  Сумма: 120.5,
  Проведен: true,
}
const ALL = [ЗК2, ЗК1, ЗК4, ЗК3]

const row = (Номенклатура: string, Количество: number, ПлановаяСебестоимость: number, extra: Record<string, unknown> = {}) => ({
  Номенклатура,
  ХарактеристикаНоменклатуры: '',
  Количество,
  Цена: 0,
  Сумма: 0,
  ЕдиницаИзмерения: '',
  КоличествоМест: 0,
  Коэффициент: 0,
  ПлановаяСебестоимость,
  СуммаНДС: 0,
  СтавкаНДС: '',
  Спецификация: '',
  ...extra,
})
const ЗК1_FULL = {
  ...ЗК1,
  Товары: [
    // Stored, although the row has a specification.
    row('Болт М8', 10, 123.45, {
      ХарактеристикаНоменклатуры: 'Красный',
      Цена: 15,
      Сумма: 150,
      ЕдиницаИзмерения: 'шт',
      КоличествоМест: 1,
      Коэффициент: 1,
      СуммаНДС: 25,
      СтавкаНДС: '20%',
      Спецификация: 'Спецификация А',
    }),
    // The row's specification wins over the nomenclature's: 2 × 155 (see the fixture).
    row('Сборка А', 2, 310, { Цена: 100, Сумма: 200, Спецификация: 'Спецификация А' }),
    // The nomenclature's specification, three levels: 1.5 × 71.98.
    row('Сборка А', 1.5, 107.97),
    // Neither specification.
    row('Гайка М8', 3, 0),
    // The row's specification is not stored: Узел Б's own, 2 × 10.99.
    row('Узел Б', 2, 21.98),
  ],
}
const ЗК2_FULL = {
  ...ЗК2,
  Товары: [row('Болт М8', 1, 30, { Спецификация: 'Спецификация X' }), row('Гайка М8', 1, 40, { Спецификация: 'Спецификация Y' })],
}
const CYCLE_ERROR =
  `orders: документ ${uuid('зк-2')}: цикл спецификаций (Спецификация X → Спецификация Y → Спецификация X; ` +
  'Спецификация Y → Спецификация X → Спецификация Y): повторная спецификация не учтена в плановой себестоимости'
const ALL_FULL = [ЗК2_FULL, ЗК1_FULL, { ...ЗК4, Товары: [] }, { ...ЗК3, Товары: [] }]

const URL = '/main/hs/orders/get'

for (const backend of BACKENDS) {
  describe(`${backend}: GET /main/hs/orders/get`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(documentsFixture, { backend })
    })
    after(() => app.close())
    const expect = expectList(() => app, URL)

    it('lists every order without Товары, by date then number, newest first', async () => {
      const res = await app.api(URL)
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.deepEqual(res.json, { data: ALL, errors: [] })
    })
    it('from/to and date select by the document date', async () => {
      await expect('from=16.05.2024&to=01.06.2024', [ЗК2, ЗК1, ЗК4])
      await expect('date=2024-05-15', [ЗК3])
      await expect('from=15.05.2024', ALL, [])
      await expect('date=15.5.2024', ALL, [
        'Неверный формат даты в параметре date: "15.5.2024" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)',
      ])
    })
    it('code, summ and approved select in the database', async () => {
      await expect('code=К-0004', [ЗК4])
      await expect('summ=120.5', [ЗК4])
      await expect('approved=yes', [ЗК1, ЗК4])
      await expect('approved=no', [ЗК2, ЗК3])
    })
    it('contract is a substring of Договор; / is sent as _slash_', async () => {
      await expect('contract=15_slash_2025', [ЗК1])
      await expect('contract=15%2F2025', [ЗК1])
      await expect('contract=7-п', [ЗК2])
    })
    it('customer matches the counterparty name or its tax id', async () => {
      await expect('customer=7701', [ЗК1])
      await expect('customer=лютик', [ЗК2])
      await expect('customer=ип', [ЗК4])
      await expect('customer=0', [ЗК2, ЗК1])
    })
    it('inn matches only the tax id', async () => {
      await expect('inn=5009', [ЗК2])
      await expect('inn=ромашка', [])
    })
    it('org, warehouse, responsible and comment are substrings of the printed fields', async () => {
      await expect('org=альфа', [ЗК1, ЗК4])
      await expect('warehouse=основной', [ЗК1])
      await expect('responsible=сидорова', [ЗК2])
      await expect('comment=ПАРТИЯ', [ЗК2])
    })
    it('filters combine', () => expect('from=01.01.2024&to=31.12.2024&approved=1&org=альфа&customer=ромашка', [ЗК1]))

    it('full=true adds Товары with the planned cost; a specification cycle is an errors entry, the order stays', () =>
      expect('full=true', ALL_FULL, [CYCLE_ERROR]))
    it('the full key is case-sensitive', () => expect('Full=true&code=0001', [ЗК1]))
  })

  describe(`${backend}: orders, Товары that cannot be read`, () => {
    let app: TestApp
    before(async () => {
      const broken = (text: string, params: readonly unknown[]) =>
        text.includes('FROM doc_customer_orders_goods') && params.includes(uuid('зк-1'))
      app = await startApp(documentsFixture, { backend, wrapImport: failingReads(broken) })
    })
    after(() => app.close())

    it('are an errors entry for that order; the others stay in data', async () => {
      const res = await app.api(`${URL}?full=true`)
      assert.deepEqual(res.json, {
        data: ALL_FULL.filter((d) => d !== ЗК1_FULL),
        errors: [CYCLE_ERROR, `orders: документ ${uuid('зк-1')}: ${READ_FAILURE}`],
      })
    })
  })

  describe(`${backend}: orders, the reads that build their full forms`, () => {
    const log: LoggedRead[] = []
    const served: LoggedRead[] = []
    const LABELS = ['зк-1', 'зк-2', 'зк-3', 'зк-4', 'спец-а', 'спец-б', 'спец-в', 'спец-г', 'спец-x', 'спец-y', 'спец-нет']
    const label = new Map(LABELS.map((l) => [uuid(l) as unknown, l]))
    let app: TestApp
    before(async () => {
      app = await startApp(documentsFixture, { backend, wrapImport: loggedReads(log), wrapSql: loggedReads(served) })
    })
    after(() => app.close())

    it('are one query for the goods and two per level of specifications at import, each specification read once; serving reads none', async () => {
      // The planned-cost reads: the goods with their main specifications, heads (costs) and materials.
      const plannedCost = (r: LoggedRead) =>
        !r.text.includes('_affected') &&
        /FROM (doc_customer_orders_goods|cat_specifications|cat_specifications_materials) /.test(r.text) &&
        /main_spec|cost_works/.test(r.text)
      const reads = log.filter(plannedCost).map((r) => [/FROM (\w+)/.exec(r.text)![1], r.params.map((p) => label.get(p) ?? p).join(' ')])
      // Refs in the order met (orders by ref at import); a list is padded to a power of two with its last ref.
      const level0 = 'спец-x спец-y спец-а спец-б спец-нет спец-в спец-в спец-в'
      assert.deepEqual(reads, [
        ['doc_customer_orders_goods', 'зк-4 зк-2 зк-1 зк-3'],
        ['cat_specifications', level0],
        ['cat_specifications_materials', level0],
        ['cat_specifications', 'спец-г'],
        ['cat_specifications_materials', 'спец-г'],
      ])
      served.length = 0
      assert.deepEqual((await app.api(`${URL}?full=true`)).json, { data: ALL_FULL, errors: [CYCLE_ERROR] })
      // The ready pages of the whole list, then, as one order carries an errors entry (its page
      // keeps no joined body), that page's rows.
      assert.deepEqual(
        served.map((r) => /FROM (\w+)/.exec(r.text)![1]),
        ['ready_pages', 'api_orders'],
      )
    })
  })
}
