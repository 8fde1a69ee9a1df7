import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { productionFixture } from '../fixtures/production.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { uuid } from '../support/refs.js'
import { PART_FAILURE, failingPart } from '../support/failing-sql.js'

const D2 = {
  Номер: 'ТН-000002',
  Дата: '09.03.2026',
  Склад: 'Склад цеха №1',
  Ответственный: 'СИДОРОВ П.П.',
  Комментарий: '',
  Материалы: '2 позиции',
}
const D1 = {
  Номер: 'ТН-000001',
  Дата: '10.03.2026',
  Склад: 'Основной склад',
  Ответственный: 'Петрова А.С.',
  Комментарий: 'В цех',
  Материалы: '1 позиция',
}
// A dangling warehouse reference prints as "".
const D3 = { Номер: 'ТН-000003', Дата: '12.03.2026', Склад: '', Ответственный: '', Комментарий: '', Материалы: '0 позиций' }
/** Sort: date ascending. */
const ALL = [D2, D1, D3]

const row = (НомерСтроки: string, Номенклатура: string, Количество: number, ЕдиницаИзмерения: string) => ({
  НомерСтроки,
  Номенклатура,
  Количество,
  ЕдиницаИзмерения,
})
const D2_FULL = { ...D2, Материалы: [row('1', 'Болт М12', 12, 'шт'), row('2а', '', 1.5, 'кг')] }
const D1_FULL = { ...D1, Материалы: [row('1', 'Лист стальной 2 мм', 4, 'кг')] }
const D3_FULL = { ...D3, Материалы: [] }

const get = (app: TestApp, query: string) => app.api(`/main/hs/demands/get${query}`).then((r) => r.json)
const q = encodeURIComponent

for (const backend of BACKENDS) {
  describe(`GET /main/hs/demands/get (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend })
    })
    after(() => app.close())

    it('lists every requirement-invoice with the row summary string, by date ascending', async () => {
      const res = await app.api('/main/hs/demands/get')
      assert.equal(res.status, 200)
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.deepEqual(res.json, { data: ALL, errors: [] })
    })

    it('code is a case-insensitive substring of the number', async () => {
      assert.deepEqual(await get(app, `?code=${q('тн-000001')}`), { data: [D1], errors: [] })
      assert.deepEqual(await get(app, '?code=00000'), { data: ALL, errors: [] })
    })

    it('from and to select by document date, in the three formats', async () => {
      for (const p of ['from=10.03.2026&to=12.03.2026', 'from=2026-03-10&to=2026-03-12', 'from=10-03-2026&to=12-03-2026']) {
        assert.deepEqual(await get(app, `?${p}`), { data: [D1, D3], errors: [] })
      }
      assert.deepEqual(await get(app, '?from=09.03.2026&to=09.03.2026'), { data: [D2], errors: [] })
    })

    it('from without to is no filter and no errors entry; an invalid date gets one', async () => {
      assert.deepEqual(await get(app, '?from=10.03.2026'), { data: ALL, errors: [] })
      assert.deepEqual(await get(app, '?from=10.03.2026&to=32.03.2026'), {
        data: ALL,
        errors: ['Неверный формат даты в параметре to: "32.03.2026" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)'],
      })
    })

    it('there is no date parameter', async () => {
      assert.deepEqual(await get(app, '?date=10.03.2026'), { data: ALL, errors: [] })
    })

    it('warehouse and responsible are case-insensitive substrings of the names', async () => {
      assert.deepEqual(await get(app, `?warehouse=${q('ОСНОВНОЙ')}`), { data: [D1], errors: [] })
      assert.deepEqual(await get(app, `?warehouse=${q('склад')}`), { data: [D2, D1], errors: [] })
      assert.deepEqual(await get(app, `?responsible=${q('сидоров')}`), { data: [D2], errors: [] })
      assert.deepEqual(await get(app, `?responsible=${q('петрова')}&warehouse=${q('цеха')}`), { data: [], errors: [] })
    })

    it('filters combine with the period', async () => {
      assert.deepEqual(await get(app, `?from=01.03.2026&to=31.03.2026&warehouse=${q('склад')}&code=2`), { data: [D2], errors: [] })
    })

    it('full returns the Материалы rows for every selected document, no code needed', async () => {
      for (const v of ['1', 'true', 'yes', 'да', 'ДА']) {
        const res = await app.api(`/main/hs/demands/get?full=${q(v)}`)
        assert.deepEqual(Object.keys(res.json.data[0]), ['Номер', 'Дата', 'Склад', 'Ответственный', 'Комментарий', 'Материалы'])
        assert.deepEqual(res.json, { data: [D2_FULL, D1_FULL, D3_FULL], errors: [] })
      }
      assert.deepEqual(await get(app, `?full=1&warehouse=${q('основной')}`), { data: [D1_FULL], errors: [] })
    })

    it('full with a false value or another key case is no full', async () => {
      assert.deepEqual(await get(app, '?full=0'), { data: ALL, errors: [] })
      assert.deepEqual(await get(app, '?FULL=1'), { data: ALL, errors: [] })
    })
  })

  describe(`GET /main/hs/demands/get, a failed tabular read (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend, wrapImport: failingPart('doc_demands_materials', uuid('d2')) })
    })
    after(() => app.close())

    it('keeps the document in data with the row summary string and reports the failure in errors', async () => {
      const res = await app.api('/main/hs/demands/get?full=1')
      assert.equal(res.status, 200)
      assert.deepEqual(res.json, {
        data: [D2, D1_FULL, D3_FULL],
        errors: [`Требование-накладная ТН-000002 от 09.03.2026: не удалось прочитать табличную часть Материалы: ${PART_FAILURE}`],
      })
    })
  })
}
