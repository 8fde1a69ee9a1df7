import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { documentsFixture } from '../fixtures/documents.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { READ_FAILURE, failingReads } from '../support/failing-sql.js'
import { expectList } from '../support/list.js'
import { uuid } from '../support/refs.js'

const NONE = { Есть: false, Количество: 0 }
// Always this placeholder, whatever the store holds.
const LINKED = { Поступления: NONE, ЗакрытияЗаказов: NONE, ЗаявкаНаРасходованиеСредств: NONE }
const ЗП1 = {
  Номер: 'ЗП-0001',
  Дата: '20.02.2024',
  Контрагент: 'АО Лютик',
  Организация: 'ООО Альфа',
  Ответственный: 'Иванов И.И.',
  СуммаДокумента: 3000,
  Склад: 'Основной склад',
  Проведен: true,
  Комментарий: 'Срочно',
  ДатаОплаты: '25.02.2024',
  ДатаПоступления: '01.03.2024',
  СвязанныеДокументы: LINKED,
  // The attachment marked for deletion is not counted.
  Вложения: { Есть: true, Количество: 1 },
}
const ЗП2 = {
  Номер: 'ЗП-0002',
  Дата: '20.02.2024',
  Контрагент: '',
  Организация: '',
  Ответственный: '',
  СуммаДокумента: 0,
  Склад: '',
  Проведен: false,
  Комментарий: '',
  ДатаОплаты: '',
  ДатаПоступления: '',
  СвязанныеДокументы: LINKED,
  Вложения: NONE,
}
const ЗП3 = {
  ...ЗП2,
  Номер: 'ЗП-0003',
  Дата: '15.01.2024',
  Контрагент: 'ООО Ромашка',
  Организация: 'ИП Бета',
  Ответственный: 'Сидорова А.А.',
  СуммаДокумента: 450.25,
  Склад: 'Склад №2',
  Проведен: true,
  Комментарий: 'Плановая закупка',
}
const ALL = [ЗП2, ЗП1, ЗП3]

const ЗП1_FULL = {
  ...ЗП1,
  Вложения: [{ ЕстьВложение: true, ИмяФайла: 'спецификация.xlsx', ИдентификаторХранилища: uuid('влож-зп-1') }],
  Товары: [
    {
      Номенклатура: 'Болт М8',
      ХарактеристикаНоменклатуры: 'Красный',
      Количество: 100,
      Цена: 10,
      Сумма: 1000,
      ЕдиницаИзмерения: 'шт',
      КоличествоМест: 2,
      Коэффициент: 1,
      // As stored, although the row has a specification (spec § Supplier order).
      ПлановаяСебестоимость: 0,
      СуммаНДС: 166.67,
      СтавкаНДС: '20%',
      Спецификация: 'Спецификация А',
    },
    {
      Номенклатура: 'Сборка А',
      ХарактеристикаНоменклатуры: '',
      Количество: 200,
      Цена: 10,
      Сумма: 2000,
      ЕдиницаИзмерения: 'кг',
      КоличествоМест: 0,
      Коэффициент: 0.5,
      ПлановаяСебестоимость: 55.5,
      СуммаНДС: 0,
      СтавкаНДС: '',
      Спецификация: '',
    },
  ],
}
const ALL_FULL = [{ ...ЗП2, Вложения: [], Товары: [] }, ЗП1_FULL, { ...ЗП3, Вложения: [], Товары: [] }]

const URL = '/main/hs/sorders/get'

for (const backend of BACKENDS) {
  describe(`${backend}: GET /main/hs/sorders/get`, () => {
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
      await expect('from=01.01.2024&to=19.02.2024', [ЗП3])
      await expect('from=2024-02-20&to=2024-02-20', [ЗП2, ЗП1])
      await expect('date=15-01-2024', [ЗП3])
      await expect('to=01.01.2025', ALL, [])
      await expect('date=вчера', ALL, ['Неверный формат даты в параметре date: "вчера" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)'])
    })
    it('code, summ and approved select in the database', async () => {
      await expect('code=0003', [ЗП3])
      await expect('summ=450.25', [ЗП3])
      await expect('approved=1', [ЗП1, ЗП3])
      await expect('approved=false', [ЗП2])
    })
    for (const key of ['supplier', 'contractor', 'contactor']) {
      it(`${key} is a substring of the supplier`, () => expect(`${key}=ЛЮТИК`, [ЗП1]))
    }
    it('org, warehouse, responsible and comment are substrings of the printed fields', async () => {
      await expect('org=бета', [ЗП3])
      await expect('warehouse=склад', [ЗП1, ЗП3])
      await expect('responsible=иванов', [ЗП1])
      await expect('comment=закупка', [ЗП3])
    })
    it('there are no contract or tax-id filters', () => expect('contract=15&inn=5009&customer=x', ALL))
    it('filters combine', () => expect('approved=1&warehouse=склад&supplier=а&from=01.01.2024&to=31.12.2024', [ЗП1, ЗП3]))

    for (const value of ['true', '1', 'да', 'full', 'FULL', 'Full']) {
      it(`full=${value} adds Товары with the stored planned cost and the attachment list`, () => expect(`full=${value}`, ALL_FULL))
    }
    it('any other full value, or another spelling of the key, is the short form', async () => {
      await expect('full=полный', ALL)
      await expect('FULL=true', ALL)
    })
  })

  describe(`${backend}: sorders, attachments that cannot be read`, () => {
    let app: TestApp
    before(async () => {
      const broken = (text: string, params: readonly unknown[]) => text.includes('FROM cat_attachments') && params.includes(uuid('зп-1'))
      app = await startApp(documentsFixture, { backend, wrapImport: failingReads(broken) })
    })
    after(() => app.close())

    it('are an errors entry for that order; the others stay in data', async () => {
      const res = await app.api(`${URL}?full=full`)
      assert.deepEqual(res.json, {
        data: ALL_FULL.filter((d) => d !== ЗП1_FULL),
        errors: [`sorders: документ ${uuid('зп-1')}: ${READ_FAILURE}`],
      })
    })
  })
}
