import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { base64, documentsFixture } from '../fixtures/documents.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { READ_FAILURE, failingReads } from '../support/failing-sql.js'
import { expectList } from '../support/list.js'
import { uuid } from '../support/refs.js'

const NONE = { Есть: false, Количество: 0 }
const ПТ1 = {
  Номер: 'ПТ-0001',
  ДатаДокумента: '10.05.2024',
  Дата: '10.05.2024',
  Контрагент: 'ООО Ромашка',
  Организация: 'ООО Альфа',
  Склад: 'Основной склад',
  Ответственный: 'Иванов И.И.',
  СуммаДокумента: 12000,
  Комментарий: 'Поставка по заказу',
  Проведен: true,
  Сделка: { Есть: true, Количество: 1 },
  Вложения: { Есть: true, Количество: 1 },
}
// Nothing filled in: every literal of the spec.
const ПТ2 = {
  Номер: 'ПТ-0002',
  ДатаДокумента: '10.05.2024',
  Дата: '10.05.2024',
  Контрагент: 'Не указан',
  Организация: 'Не указана',
  Склад: 'Не указан',
  Ответственный: 'Не указан',
  СуммаДокумента: 0,
  Комментарий: '',
  Проведен: false,
  Сделка: NONE,
  Вложения: NONE,
}
// The deal is a dangling reference.
const ПТ3 = {
  Номер: 'ПТ-0003',
  ДатаДокумента: '01.04.2024',
  Дата: '01.04.2024',
  Контрагент: 'АО Лютик',
  Организация: 'ИП Бета',
  Склад: 'Склад №2',
  Ответственный: 'Сидорова А.А.',
  СуммаДокумента: 730.4,
  Комментарий: '',
  Проведен: true,
  Сделка: NONE,
  Вложения: NONE,
}
const ПТ4 = {
  ...ПТ2,
  Номер: 'ПТ-0004',
  ДатаДокумента: '',
  Дата: '',
  Контрагент: 'Иванов ИП',
  СуммаДокумента: 100,
  Проведен: true,
}
// Date descending (no date last), then number descending.
const ALL = [ПТ2, ПТ1, ПТ3, ПТ4]

const NO_DEAL = { Тип: '', Номер: '', Дата: '', НомерДата: '' }
const ПТ1_FULL = {
  ...ПТ1,
  Сделка: { Тип: 'ЗаказПоставщику', Номер: 'ЗП-0001', Дата: '20.02.2024', НомерДата: 'ЗП-0001 от 20.02.2024' },
  Вложения: [{ ИмяФайла: 'накладная.pdf', Данные: base64('ТОРГ-12') }],
  Товары: [
    {
      НомерСтроки: '1',
      Номенклатура: 'Болт М8',
      ХарактеристикаНоменклатуры: 'Красный',
      ЕдиницаИзмерения: 'шт',
      Количество: 100,
      Цена: 50,
      Сумма: 5000,
      СтавкаНДС: '20%',
      СуммаНДС: 833.33,
    },
    {
      НомерСтроки: '5',
      Номенклатура: 'Гайка М8',
      ХарактеристикаНоменклатуры: '',
      ЕдиницаИзмерения: 'кг',
      Количество: 200,
      Цена: 35,
      Сумма: 7000,
      СтавкаНДС: 'Без НДС',
      СуммаНДС: 0,
    },
  ],
  Услуги: [{ Содержание: 'Доставка до склада', Номенклатура: 'Доставка груза' }],
}
const fullOf = (doc: typeof ПТ2) => ({ ...doc, Сделка: NO_DEAL, Вложения: [], Товары: [], Услуги: [] })
const ALL_FULL = [fullOf(ПТ2), ПТ1_FULL, fullOf(ПТ3), fullOf(ПТ4)]

const URL = '/main/hs/receipts/get'

for (const backend of BACKENDS) {
  describe(`${backend}: GET /main/hs/receipts/get`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(documentsFixture, { backend })
    })
    after(() => app.close())
    const expect = expectList(() => app, URL)

    it('lists every receipt without Товары and Услуги, newest first, then by number descending', async () => {
      const res = await app.api(URL)
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.deepEqual(res.json, { data: ALL, errors: [] })
    })

    it('from and to select by the document date, both days included', async () => {
      await expect('from=01.04.2024&to=10.05.2024', [ПТ2, ПТ1, ПТ3])
      await expect('from=2024-04-02&to=2024-05-09', [])
      await expect('from=01-04-2024&to=01-04-2024', [ПТ3])
    })
    it('date is one whole day; from or to alone is no filter, bad dates are errors entries', async () => {
      await expect('date=10.05.2024', [ПТ2, ПТ1])
      await expect('to=10.05.2024', ALL, [])
      await expect('from=10.05.2024&to=2024-13-01', ALL, [
        'Неверный формат даты в параметре to: "2024-13-01" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)',
      ])
    })
    it('code, summ and approved select in the database', async () => {
      await expect('code=пт-0003', [ПТ3])
      await expect('summ=730.40', [ПТ3])
      await expect('approved=да', [ПТ1, ПТ3, ПТ4])
      await expect('approved=0', [ПТ2])
    })
    for (const key of ['contractor', 'contactor', 'supplier']) {
      it(`${key} is a substring of Контрагент`, async () => {
        await expect(`${key}=ромашка`, [ПТ1])
        await expect(`${key}=не указан`, [ПТ2])
      })
    }
    it('org, warehouse and responsible are substrings of the printed fields', async () => {
      await expect('org=бета', [ПТ3])
      await expect('org=не указана', [ПТ2, ПТ4])
      await expect('warehouse=№2', [ПТ3])
      await expect('warehouse=не указан', [ПТ2, ПТ4])
      await expect('responsible=сидорова', [ПТ3])
    })
    it('filters combine: the database selection, then the post-filters', () =>
      expect('approved=1&contractor=а&from=01.01.2024&to=31.12.2024', [ПТ1, ПТ3]))

    it('full=true adds Товары and Услуги and prints Сделка and Вложения in full', () => expect('full=true', ALL_FULL))
    for (const key of ['full', 'FULL', 'Full']) {
      it(`the key ${key} turns the full form on`, () => expect(`${key}=1&code=0001`, [ПТ1_FULL]))
    }
    it('full with any other value is the short form', () => expect('full=нет&code=0001', [ПТ1]))
  })

  describe(`${backend}: receipts, a tabular part that cannot be read`, () => {
    let app: TestApp
    before(async () => {
      const broken = (text: string, params: readonly unknown[]) => text.includes('FROM doc_receipts_goods') && params.includes(uuid('пт-1'))
      app = await startApp(documentsFixture, { backend, wrapImport: failingReads(broken) })
    })
    after(() => app.close())

    it('is an errors entry for that document; the others stay in data', async () => {
      const res = await app.api(`${URL}?full=true`)
      assert.deepEqual(res.json, {
        data: [fullOf(ПТ2), fullOf(ПТ3), fullOf(ПТ4)],
        errors: [`receipts: документ ${uuid('пт-1')}: ${READ_FAILURE}`],
      })
    })
    it('does not touch the short form', async () => {
      assert.deepEqual((await app.api(URL)).json, { data: ALL, errors: [] })
    })
  })
}
