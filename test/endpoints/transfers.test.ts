import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { productionFixture } from '../fixtures/production.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { uuid } from '../support/refs.js'
import { PART_FAILURE, failingPart, loggedReads } from '../support/failing-sql.js'
import type { LoggedRead } from '../support/failing-sql.js'

const T4 = {
  Номер: 'ПМ-000004',
  Дата: '',
  СкладОтправитель: '',
  СкладПолучатель: '',
  Ответственный: '',
  Комментарий: '',
  Материалы: '0 позиций',
}
const T2 = {
  Номер: 'ПМ-000002',
  Дата: '04.03.2026',
  СкладОтправитель: 'Склад цеха №1',
  СкладПолучатель: 'Основной склад',
  Ответственный: 'Петрова А.С.',
  Комментарий: '',
  Материалы: '3 позиции',
}
const T1 = {
  Номер: 'ПМ-000001',
  Дата: '05.03.2026',
  СкладОтправитель: 'Основной склад',
  СкладПолучатель: 'Склад цеха №1',
  Ответственный: 'Иванов И.И.',
  Комментарий: 'Срочно',
  Материалы: '2 позиции',
}
const T3 = {
  Номер: 'ПМ-000003',
  Дата: '05.03.2026',
  СкладОтправитель: 'Основной склад',
  СкладПолучатель: 'Склад 10/2 (Юг)',
  Ответственный: 'Иванов И.И.',
  Комментарий: 'На объект',
  Материалы: '1 позиция',
}
const T5 = {
  Номер: 'ПМ-000005',
  Дата: '01.04.2026',
  СкладОтправитель: 'Склад 10/2 (Юг)',
  СкладПолучатель: 'Склад цеха №1',
  Ответственный: 'Петрова А.С.',
  Комментарий: '',
  Материалы: '1 позиция',
}
/** Sort: date ascending (the empty date first), then number. */
const ALL = [T4, T2, T1, T3, T5]

const withGoods = ({ Материалы: _summary, ...head }: typeof T1, Товары: unknown[]) => ({ ...head, Товары })
const row = (
  НомерСтроки: string,
  Номенклатура: string,
  ХарактеристикаНоменклатуры: string,
  ЕдиницаИзмерения: string,
  Количество: number,
) => ({
  НомерСтроки,
  Номенклатура,
  ХарактеристикаНоменклатуры,
  ЕдиницаИзмерения,
  Количество,
})
const T1_FULL = withGoods(T1, [row('1', 'Труба 57/3,5', 'Красный', 'м', 10), row('2', 'Краска ПФ-115', '', 'кг', 2.5)])
const T2_FULL = withGoods(T2, [
  row('1', 'Лист стальной 2 мм', '', 'кг', 1),
  row('2', 'Лист стальной 2 мм', '', 'кг', 2),
  row('3', 'Лист стальной 2 мм', '', 'кг', 3),
])
const T3_FULL = withGoods(T3, [row('1', 'Болт М12', '', 'шт', 50)])
const T4_FULL = withGoods(T4, [])
const T5_FULL = withGoods(T5, [row('7', 'Кабель ВВГ 3х2,5', '', 'м', 100)])

const FULL_NEEDS_CODE = 'Параметр full требует указания code'
const get = (app: TestApp, query: string) => app.api(`/main/hs/transfers/get${query}`).then((r) => r.json)

for (const backend of BACKENDS) {
  describe(`GET /main/hs/transfers/get (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend })
    })
    after(() => app.close())

    it('lists every transfer with the goods row summary, by date ascending then number; a deletion mark is no filter', async () => {
      const res = await app.api('/main/hs/transfers/get')
      assert.equal(res.status, 200)
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.deepEqual(res.json, { data: ALL, errors: [] })
    })

    it('code is a case-insensitive substring of the number', async () => {
      assert.deepEqual(await get(app, '?code=000003'), { data: [T3], errors: [] })
      assert.deepEqual(await get(app, `?code=${encodeURIComponent('пм-00000')}`), { data: ALL, errors: [] })
      assert.deepEqual(await get(app, '?code=ZZZ'), { data: [], errors: [] })
    })

    it('from and to select by document date, inclusive, in the three date formats', async () => {
      for (const q of ['from=05.03.2026&to=31.03.2026', 'from=2026-03-05&to=2026-03-31', 'from=05-03-2026&to=31-03-2026']) {
        assert.deepEqual(await get(app, `?${q}`), { data: [T1, T3], errors: [] })
      }
      assert.deepEqual(await get(app, '?from=04.03.2026&to=01.04.2026'), { data: [T2, T1, T3, T5], errors: [] })
    })

    it('date selects one whole day', async () => {
      assert.deepEqual(await get(app, '?date=04.03.2026'), { data: [T2], errors: [] })
      assert.deepEqual(await get(app, '?date=2026-03-05'), { data: [T1, T3], errors: [] })
    })

    it('from without to (and to without from) is no filter and no errors entry', async () => {
      assert.deepEqual(await get(app, '?from=05.03.2026'), { data: ALL, errors: [] })
      assert.deepEqual(await get(app, '?to=05.03.2026'), { data: ALL, errors: [] })
    })

    it('an invalid date puts an entry in errors and the status stays 200', async () => {
      const res = await app.api('/main/hs/transfers/get?date=31.02.2026')
      assert.equal(res.status, 200)
      assert.deepEqual(res.json, {
        data: ALL,
        errors: ['Неверный формат даты в параметре date: "31.02.2026" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)'],
      })
    })

    it('responsible, sender and receiver are case-insensitive substrings of the names', async () => {
      assert.deepEqual(await get(app, `?responsible=${encodeURIComponent('ПЕТРОВА')}`), { data: [T2, T5], errors: [] })
      assert.deepEqual(await get(app, `?sender=${encodeURIComponent('юг')}`), { data: [T5], errors: [] })
      assert.deepEqual(await get(app, `?receiver=${encodeURIComponent('ЮГ')}`), { data: [T3], errors: [] })
      assert.deepEqual(await get(app, `?receiver=${encodeURIComponent('цеха №1')}`), { data: [T1, T5], errors: [] })
      assert.deepEqual(await get(app, `?sender=${encodeURIComponent('10/2')}`), { data: [T5], errors: [] })
    })

    it('filters combine with the period', async () => {
      const q = `?from=01.03.2026&to=31.03.2026&responsible=${encodeURIComponent('иванов')}&receiver=${encodeURIComponent('цеха')}&sender=${encodeURIComponent('основной')}`
      assert.deepEqual(await get(app, q), { data: [T1], errors: [] })
    })

    it('full without code: the exact errors entry, and the goods stay a summary string', async () => {
      for (const v of ['1', 'true', 'yes', 'да']) {
        assert.deepEqual(await get(app, `?full=${encodeURIComponent(v)}`), { data: ALL, errors: [FULL_NEEDS_CODE] })
      }
      assert.deepEqual(await get(app, '?full=1&responsible=%D0%B8%D0%B2%D0%B0%D0%BD%D0%BE%D0%B2'), {
        data: [T1, T3],
        errors: [FULL_NEEDS_CODE],
      })
    })

    it('full with code replaces Материалы by Товары rows (НомерСтроки as given, empty references as "")', async () => {
      const res = await app.api('/main/hs/transfers/get?full=1&code=000001')
      assert.deepEqual(Object.keys(res.json.data[0]), [
        'Номер',
        'Дата',
        'СкладОтправитель',
        'СкладПолучатель',
        'Ответственный',
        'Комментарий',
        'Товары',
      ])
      assert.deepEqual(res.json, { data: [T1_FULL], errors: [] })
      assert.deepEqual(await get(app, `?full=true&code=${encodeURIComponent('ПМ')}`), {
        data: [T4_FULL, T2_FULL, T1_FULL, T3_FULL, T5_FULL],
        errors: [],
      })
    })

    it('full with a false value or a differently cased key is no full', async () => {
      assert.deepEqual(await get(app, '?full=0&code=000001'), { data: [T1], errors: [] })
      assert.deepEqual(await get(app, '?FULL=1&code=000001'), { data: [T1], errors: [] })
    })
  })

  describe(`GET /main/hs/transfers/get, a failed goods read (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend, wrapImport: failingPart('doc_transfers_goods', uuid('t1')) })
    })
    after(() => app.close())

    it('keeps the document in data with an empty Товары and reports the failure in errors', async () => {
      const res = await app.api('/main/hs/transfers/get?full=1&code=000')
      assert.equal(res.status, 200)
      assert.deepEqual(res.json, {
        data: [T4_FULL, T2_FULL, { ...T1_FULL, Товары: [] }, T3_FULL, T5_FULL],
        errors: [`Перемещение товаров ПМ-000001 от 05.03.2026: не удалось прочитать табличную часть Товары: ${PART_FAILURE}`],
      })
    })

    it('without full nothing reads the tabular part', async () => {
      assert.deepEqual(await get(app, '?code=000001'), { data: [T1], errors: [] })
    })
  })

  describe(`GET /main/hs/transfers/get, the goods of an import batch read at once (${backend})`, () => {
    const log: LoggedRead[] = []
    const failingLog: LoggedRead[] = []
    const goodsReads = (reads: LoggedRead[]) =>
      reads.filter((r) => r.text.includes('FROM doc_transfers_goods ') && !r.text.includes('_affected')).map((r) => [r.params, r.failed])
    // In ref order (the import's batches); five refs are sent as eight, the last one repeated.
    const byRef = ['t4', 't2', 't1', 't3', 't5'].map((label) => uuid(label)).sort()
    const [t1] = ['t1'].map((label) => uuid(label))
    let app: TestApp
    let failing: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend, wrapImport: loggedReads(log) })
      failing = await startApp(productionFixture, {
        backend,
        wrapImport: (sql) => loggedReads(failingLog)(failingPart('doc_transfers_goods', t1!)(sql)),
      })
    })
    after(async () => {
      await app.close()
      await failing.close()
    })

    it('one query reads the goods of every document of the batch', async () => {
      assert.deepEqual(goodsReads(log), [[[...byRef, ...Array(3).fill(byRef.at(-1))], false]])
      const res = await app.api('/main/hs/transfers/get?full=1&code=000')
      assert.deepEqual(res.json, { data: [T4_FULL, T2_FULL, T1_FULL, T3_FULL, T5_FULL], errors: [] })
    })

    it('a batch that fails for one document is read again document by document: the answer of per-document reads', async () => {
      assert.deepEqual(goodsReads(failingLog), [
        [[...byRef, ...Array(3).fill(byRef.at(-1))], true],
        ...byRef.map((ref) => [[ref], ref === t1]),
      ])
      const res = await failing.api('/main/hs/transfers/get?full=1&code=000')
      assert.deepEqual(res.json, {
        data: [T4_FULL, T2_FULL, { ...T1_FULL, Товары: [] }, T3_FULL, T5_FULL],
        errors: [`Перемещение товаров ПМ-000001 от 05.03.2026: не удалось прочитать табличную часть Товары: ${PART_FAILURE}`],
      })
    })
  })
}
