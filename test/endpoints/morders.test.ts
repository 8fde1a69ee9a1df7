import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { productionFixture } from '../fixtures/production.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { uuid } from '../support/refs.js'
import { PART_FAILURE, failingPart } from '../support/failing-sql.js'

const M3 = { Номер: 'ЗН-000003', Дата: 'Не указана', Договор: 'Внутренний заказ цеха', Организация: '', Ответственный: '' }
const M1 = {
  Номер: 'ЗН-000001',
  Дата: '10.02.2026',
  Договор: 'Договор № 15/2025',
  Организация: 'ООО "Вектор"',
  Ответственный: 'Иванов И.И.',
}
const M5 = { Номер: 'ЗН-000002', Дата: '10.02.2026', Договор: 'Для склада', Организация: 'ООО "Вектор"', Ответственный: '' }
const M2 = { Номер: 'Не указан', Дата: '11.02.2026', Договор: 'Не указан', Организация: '', Ответственный: 'Петрова А.С.' }
const M4 = {
  Номер: 'ЗН-000004',
  Дата: '01.03.2026',
  Договор: 'договор № 7/2026',
  Организация: 'ООО "Вектор"',
  Ответственный: 'СИДОРОВ П.П.',
}
/** Sort: date ascending (the empty date first), then number. */
const ALL = [M3, M1, M5, M2, M4]

const row = (Номенклатура: string, Количество: number, ЕдиницаИзмерения: string) => ({ Номенклатура, Количество, ЕдиницаИзмерения })
const M3_FULL = { ...M3, Ссылка: 'Заказ на производство ЗН-000003 от 01.01.0001 0:00:00', Продукция: [], Материалы: [] }
const M1_FULL = {
  ...M1,
  Ссылка: 'Заказ на производство ЗН-000001 от 10.02.2026 9:05:03',
  Продукция: [row('Рама сварная', 2, 'шт')],
  Материалы: [row('Труба 57/3,5', 20, 'м'), row('Краска ПФ-115', 5, 'кг')],
}
const M5_FULL = {
  ...M5,
  Ссылка: 'Заказ на производство ЗН-000002 от 10.02.2026 9:05:03',
  Продукция: [row('Рама сварная', 1, 'шт')],
  Материалы: [],
}
const M2_FULL = { ...M2, Ссылка: 'Заказ на производство  от 11.02.2026 14:30:00', Продукция: [], Материалы: [] }
const M4_FULL = { ...M4, Ссылка: 'Заказ на производство ЗН-000004 от 01.03.2026 0:00:00', Продукция: [], Материалы: [] }
const ALL_FULL = [M3_FULL, M1_FULL, M5_FULL, M2_FULL, M4_FULL]

const get = (app: TestApp, query: string) => app.api(`/main/hs/morders/get${query}`).then((r) => r.json)
const q = encodeURIComponent

for (const backend of BACKENDS) {
  describe(`GET /main/hs/morders/get (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend })
    })
    after(() => app.close())

    it('lists every order by date ascending then number, with the literals for an empty number, date and comment', async () => {
      const res = await app.api('/main/hs/morders/get')
      assert.equal(res.status, 200)
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.deepEqual(Object.keys(res.json.data[0]), ['Номер', 'Дата', 'Договор', 'Организация', 'Ответственный'])
      assert.deepEqual(res.json, { data: ALL, errors: [] })
    })

    it('code is a case-insensitive substring of the stored number (the literal is not searched)', async () => {
      assert.deepEqual(await get(app, `?code=${q('зн-00000')}`), { data: [M3, M1, M5, M4], errors: [] })
      assert.deepEqual(await get(app, '?code=000002'), { data: [M5], errors: [] })
      assert.deepEqual(await get(app, `?code=${q('Не указан')}`), { data: [], errors: [] })
    })

    it('contract is a case-insensitive substring of the comment, with / sent as _slash_', async () => {
      assert.deepEqual(await get(app, `?contract=${q('ДОГОВОР')}`), { data: [M1, M4], errors: [] })
      assert.deepEqual(await get(app, '?contract=15_slash_2025'), { data: [M1], errors: [] })
      assert.deepEqual(await get(app, `?contract=${q('7/2026')}`), { data: [M4], errors: [] })
      assert.deepEqual(await get(app, `?contract=${q('Не указан')}`), { data: [], errors: [] })
    })

    it('from and to select by document date, in the three formats', async () => {
      for (const p of ['from=10.02.2026&to=11.02.2026', 'from=2026-02-10&to=2026-02-11', 'from=10-02-2026&to=11-02-2026']) {
        assert.deepEqual(await get(app, `?${p}`), { data: [M1, M5, M2], errors: [] })
      }
    })

    it('code and contract combine with the period', async () => {
      assert.deepEqual(await get(app, `?from=01.02.2026&to=28.02.2026&contract=${q('договор')}&code=001`), { data: [M1], errors: [] })
      assert.deepEqual(await get(app, `?from=01.02.2026&to=28.02.2026&contract=${q('договор')}`), { data: [M1], errors: [] })
    })

    it('from without to is no filter and no errors entry; an invalid date gets one', async () => {
      assert.deepEqual(await get(app, '?to=11.02.2026'), { data: ALL, errors: [] })
      assert.deepEqual(await get(app, '?from=2026-13-01&to=2026-02-11'), {
        data: ALL,
        errors: ['Неверный формат даты в параметре from: "2026-13-01" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)'],
      })
    })

    it('there is no date parameter', async () => {
      assert.deepEqual(await get(app, '?date=10.02.2026'), { data: ALL, errors: [] })
      assert.deepEqual(await get(app, '?date=garbage'), { data: ALL, errors: [] })
    })

    for (const key of ['full', 'FULL', 'Full', 'fULL']) {
      it(`${key}=1 (the key in any case) adds Ссылка, Продукция and Материалы`, async () => {
        const res = await app.api(`/main/hs/morders/get?${key}=1`)
        assert.deepEqual(Object.keys(res.json.data[1]), [
          'Номер',
          'Дата',
          'Договор',
          'Организация',
          'Ответственный',
          'Ссылка',
          'Продукция',
          'Материалы',
        ])
        assert.deepEqual(res.json, { data: ALL_FULL, errors: [] })
      })
    }

    it('full values: 1, true, yes, да in any case; anything else is no full', async () => {
      for (const v of ['true', 'YES', 'Да']) assert.deepEqual(await get(app, `?full=${q(v)}&code=000001`), { data: [M1_FULL], errors: [] })
      for (const v of ['0', 'нет', 'on']) assert.deepEqual(await get(app, `?full=${q(v)}&code=000001`), { data: [M1], errors: [] })
    })

    it('full combines with the filters', async () => {
      assert.deepEqual(await get(app, `?Full=да&contract=${q('склад')}`), { data: [M5_FULL], errors: [] })
    })
  })

  describe(`GET /main/hs/morders/get, a failed tabular read (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend, wrapImport: failingPart('doc_production_orders_materials', uuid('m1')) })
    })
    after(() => app.close())

    it('keeps the order in data, prints the failed part as [] and reports it in errors', async () => {
      const res = await app.api('/main/hs/morders/get?full=1')
      assert.equal(res.status, 200)
      assert.deepEqual(res.json, {
        data: [M3_FULL, { ...M1_FULL, Материалы: [] }, M5_FULL, M2_FULL, M4_FULL],
        errors: [`Заказ на производство ЗН-000001 от 10.02.2026: не удалось прочитать табличную часть Материалы: ${PART_FAILURE}`],
      })
    })
  })
}
