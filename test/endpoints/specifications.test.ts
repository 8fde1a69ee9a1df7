import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { productionFixture } from '../fixtures/production.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { uuid } from '../support/refs.js'
import { PART_FAILURE, failingPart } from '../support/failing-sql.js'

const spec = (Код: string, Наименование: string, Материалы: string, extra: Record<string, unknown> = {}) => ({
  Код,
  ДатаУтверждения: '',
  Ответственный: '',
  Наименование,
  ДатаПоставки: '',
  СтоимостьРабот: 0,
  СтоимостьТранспорт: 0,
  СтоимостьНакладные: 0,
  СтоимостьАрендаСпецТехники: 0,
  СтоимостьТехнологическиеПрисоединения: 0,
  СтоимостьПроектныеРаботы: 0,
  Материалы,
  ...extra,
})

// The row summary string in each plural form: 0, 1, 2, 3, 5, 11 and 21 rows.
const BEAM = spec('С-009', 'балка', '3 позиции')
const BRACKET = spec('С-004', 'Кронштейн', '5 позиций', {
  Ответственный: 'Петрова А.С.',
  ДатаПоставки: '01.01.2027',
  СтоимостьРабот: 1,
  СтоимостьТранспорт: 2,
  СтоимостьНакладные: 3,
  СтоимостьАрендаСпецТехники: 4,
  СтоимостьТехнологическиеПрисоединения: 5,
  СтоимостьПроектныеРаботы: 6,
})
const SUPPORT = spec('С-003', 'Опора', '0 позиций')
const SUPPORT2 = spec('С-010', 'Опора', '1 позиция', { ДатаПоставки: '28.02.2026' })
const FRAME = spec('С-001', 'Рама сварная 2/1', '2 позиции', {
  ДатаУтверждения: '15.01.2026',
  Ответственный: 'Иванов И.И.',
  ДатаПоставки: '20.02.2026',
  СтоимостьРабот: 1000,
  СтоимостьТранспорт: 250.5,
})
const TRUSS = spec('С-005', 'Ферма', '11 позиций')
const SHIELD = spec('С-002', 'Щит распределительный', '1 позиция', { ДатаУтверждения: '01.11.2025', ДатаПоставки: '31.12.2025' })
const TRESTLE = spec('С-006', 'Эстакада', '21 позиция', { ДатаПоставки: '31.12.2026' })
/** Sort: Наименование ascending, case-insensitive, then Код; no groups, nothing marked for deletion. */
const ALL = [BEAM, BRACKET, SUPPORT, SUPPORT2, FRAME, TRUSS, SHIELD, TRESTLE]

const m = (Код: string, Материал: string, Количество: number, Единица: string, Цена: number, Сумма: number, НоменклатурнаяГруппа = '') => ({
  Код,
  Материал,
  Количество,
  Единица,
  Цена,
  Сумма,
  НоменклатурнаяГруппа,
})
const PIPE = m('М-0001', 'Труба 57/3,5', 10, 'м', 150.5, 1505, 'Металлопрокат')
const PAINT = m('М-0003', 'Краска ПФ-115', 2.5, 'кг', 300, 0, 'ЛКМ')
const bolts = (n: number) => Array.from({ length: n }, (_, i) => m('М-0004', 'Болт М12', i + 1, 'шт', 10, (i + 1) * 10))
const withRows = (s: Record<string, unknown>, Материалы: unknown[], СуммаМатериалов: number) => ({ ...s, Материалы, СуммаМатериалов })
// Σ: 1505 (Сумма) + 2.5 × 300 (Сумма is 0) = 2255.
const FRAME_FULL = withRows(FRAME, [PIPE, PAINT], 2255)
// A dangling item prints as ""; 1 × 2 + 0.1 + 0.2 is 2.3 after rounding.
const BEAM_FULL = withRows(
  BEAM,
  [m('', '', 1, 'шт', 2, 0), m('М-0004', 'Болт М12', 1, 'шт', 0, 0.1), m('М-0004', 'Болт М12', 1, 'шт', 0, 0.2)],
  2.3,
)
const SHIELD_FULL = withRows(SHIELD, [m('Э-0001', 'Кабель ВВГ 3х2,5', 3, 'м', 200, 600, 'Электротехника')], 600)
const SHEET_TRUSS = m('М-0002', 'Лист стальной 2 мм', 4, 'кг', 50, 200, 'Металлопрокат')
const SHEET_SUPPORT2 = m('М-0002', 'Лист стальной 2 мм', 2, 'кг', 50, 0, 'Металлопрокат')

const FULL_NEEDS_KEY = 'Параметр full требует указания одного из параметров: code, name, material, ngroup'
const MONTH_NEEDS_YEAR = 'Параметр month требует указания year'
const get = (app: TestApp, query: string) => app.api(`/main/hs/specifications/get${query}`).then((r) => r.json)
const q = encodeURIComponent

for (const backend of BACKENDS) {
  describe(`GET /main/hs/specifications/get (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend })
    })
    after(() => app.close())

    it('lists catalogue elements not marked for deletion, by name then code, with the row summary string', async () => {
      const res = await app.api('/main/hs/specifications/get')
      assert.equal(res.status, 200)
      assert.deepEqual(Object.keys(res.json.data[0]), Object.keys(BEAM))
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.deepEqual(res.json, { data: ALL, errors: [] })
    })

    it('code is a case-insensitive substring of the code', async () => {
      assert.deepEqual(await get(app, `?code=${q('с-001')}`), { data: [FRAME], errors: [] })
      assert.deepEqual(await get(app, '?code=07'), { data: [], errors: [] })
    })

    it('name is a case-insensitive substring of the name, with / sent as _slash_', async () => {
      assert.deepEqual(await get(app, `?name=${q('ОПОРА')}`), { data: [SUPPORT, SUPPORT2], errors: [] })
      assert.deepEqual(await get(app, '?name=2_slash_1'), { data: [FRAME], errors: [] })
      assert.deepEqual(await get(app, `?name=${q('рама')}`), { data: [FRAME], errors: [] })
    })

    it('full with code or name returns every materials row and СуммаМатериалов', async () => {
      const res = await app.api(`/main/hs/specifications/get?full=1&code=${q('С-001')}`)
      assert.deepEqual(Object.keys(res.json.data[0]).slice(-2), ['Материалы', 'СуммаМатериалов'])
      assert.deepEqual(res.json, { data: [FRAME_FULL], errors: [] })
      assert.deepEqual(await get(app, `?full=true&name=${q('балка')}`), { data: [BEAM_FULL], errors: [] })
      assert.deepEqual(await get(app, `?full=${q('да')}&name=${q('опора')}`), {
        data: [withRows(SUPPORT, [], 0), withRows(SUPPORT2, [SHEET_SUPPORT2], 100)],
        errors: [],
      })
    })

    it('full with 5, 11 and 21 rows lists them all', async () => {
      assert.deepEqual(await get(app, '?full=yes&code=004'), { data: [withRows(BRACKET, bolts(5), 150)], errors: [] })
      assert.deepEqual(await get(app, '?full=yes&code=005'), { data: [withRows(TRUSS, [...bolts(10), SHEET_TRUSS], 750)], errors: [] })
      assert.deepEqual(await get(app, '?full=yes&code=006'), { data: [withRows(TRESTLE, bolts(21), 2310)], errors: [] })
    })

    it('full with none of code, name, material, ngroup: an errors entry, status 200, summary strings', async () => {
      const res = await app.api('/main/hs/specifications/get?full=1')
      assert.equal(res.status, 200)
      assert.deepEqual(res.json, { data: ALL, errors: [FULL_NEEDS_KEY] })
      assert.deepEqual(await get(app, '?full=1&year=2026'), { data: [SUPPORT2, FRAME, TRESTLE], errors: [FULL_NEEDS_KEY] })
    })

    it('full with a false value (or the key in another case) keeps summary strings', async () => {
      assert.deepEqual(await get(app, '?full=0&code=001'), { data: [FRAME], errors: [] })
      assert.deepEqual(await get(app, '?FULL=1&code=001'), { data: [FRAME], errors: [] })
    })

    it('material without full: selected through the join, Материалы lists only the matching rows', async () => {
      assert.deepEqual(await get(app, `?material=${q('ТРУБА')}`), { data: [withRows(FRAME, [PIPE], 1505)], errors: [] })
      assert.deepEqual(await get(app, '?material=57_slash_3'), { data: [withRows(FRAME, [PIPE], 1505)], errors: [] })
      // By code of the item; СуммаМатериалов is over the listed rows (Количество × Цена where Сумма is 0).
      assert.deepEqual(await get(app, `?material=${q('м-0002')}`), {
        data: [withRows(SUPPORT2, [SHEET_SUPPORT2], 100), withRows(TRUSS, [SHEET_TRUSS], 200)],
        errors: [],
      })
    })

    it('material with full: selected by a subquery, Материалы lists every row', async () => {
      assert.deepEqual(await get(app, `?full=1&material=${q('труба')}`), { data: [FRAME_FULL], errors: [] })
    })

    it('ngroup without full: rows of items in a matching nomenclature group', async () => {
      assert.deepEqual(await get(app, `?ngroup=${q('МЕТАЛЛ')}`), {
        data: [withRows(SUPPORT2, [SHEET_SUPPORT2], 100), withRows(FRAME, [PIPE], 1505), withRows(TRUSS, [SHEET_TRUSS], 200)],
        errors: [],
      })
    })

    it('ngroup with full: every row of the specifications that have such a row', async () => {
      assert.deepEqual(await get(app, `?full=1&ngroup=${q('электро')}`), { data: [SHIELD_FULL], errors: [] })
      assert.deepEqual(await get(app, `?full=1&ngroup=${q('лкм')}`), { data: [FRAME_FULL], errors: [] })
    })

    it('material and ngroup: one joined row must match both without full; each has its own subquery with full', async () => {
      assert.deepEqual(await get(app, `?material=${q('краска')}&ngroup=${q('лкм')}`), { data: [withRows(FRAME, [PAINT], 750)], errors: [] })
      assert.deepEqual(await get(app, `?material=${q('краска')}&ngroup=${q('металл')}`), { data: [], errors: [] })
      assert.deepEqual(await get(app, `?full=1&material=${q('краска')}&ngroup=${q('металл')}`), { data: [FRAME_FULL], errors: [] })
    })

    it('year selects specifications with a delivery stage in that year; a 2-digit year is 20XX', async () => {
      assert.deepEqual(await get(app, '?year=2026'), { data: [SUPPORT2, FRAME, TRESTLE], errors: [] })
      assert.deepEqual(await get(app, '?year=26'), { data: [SUPPORT2, FRAME, TRESTLE], errors: [] })
      assert.deepEqual(await get(app, '?year=25'), { data: [SHIELD], errors: [] })
      assert.deepEqual(await get(app, '?year=2027'), { data: [BRACKET, TRESTLE], errors: [] })
      assert.deepEqual(await get(app, '?year=2024'), { data: [], errors: [] })
    })

    it('month narrows the year to that month, first to last day', async () => {
      assert.deepEqual(await get(app, '?year=2026&month=2'), { data: [SUPPORT2, FRAME], errors: [] })
      assert.deepEqual(await get(app, '?year=2026&month=02'), { data: [SUPPORT2, FRAME], errors: [] })
      assert.deepEqual(await get(app, '?year=26&month=3'), { data: [FRAME], errors: [] })
      assert.deepEqual(await get(app, '?year=2026&month=12'), { data: [TRESTLE], errors: [] })
      assert.deepEqual(await get(app, '?year=2025&month=12'), { data: [SHIELD], errors: [] })
      assert.deepEqual(await get(app, '?year=2026&month=4'), { data: [], errors: [] })
    })

    it('month without year: an errors entry, status 200, no date selection', async () => {
      const res = await app.api('/main/hs/specifications/get?month=2')
      assert.equal(res.status, 200)
      assert.deepEqual(res.json, { data: ALL, errors: [MONTH_NEEDS_YEAR] })
    })

    it('full with no key and month without year: one errors entry each', async () => {
      assert.deepEqual(await get(app, '?full=1&month=2'), { data: ALL, errors: [FULL_NEEDS_KEY, MONTH_NEEDS_YEAR] })
    })

    it('an invalid year is ignored with an errors entry; an invalid month widens to the year with one', async () => {
      for (const y of ['abc', '202', '0000', '2026.5']) {
        assert.deepEqual(await get(app, `?year=${y}`), {
          data: ALL,
          errors: [`Неверный год в параметре year: "${y}" (ожидается ГГ или ГГГГ)`],
        })
      }
      assert.deepEqual(await get(app, '?year=x&month=2'), {
        data: ALL,
        errors: ['Неверный год в параметре year: "x" (ожидается ГГ или ГГГГ)'],
      })
      for (const mo of ['13', '0', 'март']) {
        assert.deepEqual(await get(app, `?year=2026&month=${q(mo)}`), {
          data: [SUPPORT2, FRAME, TRESTLE],
          errors: [`Неверный месяц в параметре month: "${mo}" (ожидается число от 1 до 12)`],
        })
      }
    })

    it('filters combine', async () => {
      assert.deepEqual(await get(app, `?year=2026&name=${q('опора')}`), { data: [SUPPORT2], errors: [] })
      assert.deepEqual(await get(app, `?year=2026&month=2&full=1&code=${q('С-0')}`), {
        data: [withRows(SUPPORT2, [SHEET_SUPPORT2], 100), FRAME_FULL],
        errors: [],
      })
      assert.deepEqual(await get(app, `?year=2026&ngroup=${q('металл')}`), {
        data: [withRows(SUPPORT2, [SHEET_SUPPORT2], 100), withRows(FRAME, [PIPE], 1505)],
        errors: [],
      })
    })
  })

  describe(`GET /main/hs/specifications/get after catalogue changes (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend })
      const report = await app.importMore([
        {
          type: 'Справочник.Номенклатура',
          ref: uuid('n-pipe'),
          Код: 'М-0001',
          Наименование: 'Труба профильная',
          ЭтоГруппа: false,
          ЕдиницаИзмерения: uuid('unit-m'),
          НоменклатурнаяГруппа: uuid('ng-metal'),
        },
        { type: 'Справочник.НоменклатурныеГруппы', ref: uuid('ng-paint'), Код: 'ng-paint', Наименование: 'Краски' },
        { type: 'Справочник.Пользователи', ref: uuid('u-ivanov'), Код: 'u-ivanov', Наименование: 'Иванова И.И.' },
        {
          type: 'Справочник.СпецификацииНоменклатуры',
          ref: uuid('sp-bracket'),
          Код: 'С-004',
          Наименование: 'Кронштейн',
          ПометкаУдаления: true,
        },
        { type: 'Справочник.СпецификацииНоменклатуры', ref: uuid('sp-truss'), Код: 'С-005', Наименование: 'Ферма', ЭтоГруппа: true },
      ])
      assert.equal(report.ok, true)
    })
    after(() => app.close())

    it('a specification marked for deletion or turned into a group leaves the list; a renamed user is printed anew', async () => {
      const frame = { ...FRAME, Ответственный: 'Иванова И.И.' }
      assert.deepEqual(await get(app, ''), { data: [BEAM, SUPPORT, SUPPORT2, frame, SHIELD, TRESTLE], errors: [] })
    })

    it('material and ngroup search the current item and group names', async () => {
      const pipe = { ...PIPE, Материал: 'Труба профильная' }
      const frame = { ...FRAME, Ответственный: 'Иванова И.И.' }
      assert.deepEqual(await get(app, `?material=${q('профильная')}`), { data: [withRows(frame, [pipe], 1505)], errors: [] })
      assert.deepEqual(await get(app, `?material=${q('57')}`), { data: [], errors: [] })
      assert.deepEqual(await get(app, `?full=1&ngroup=${q('краски')}`), {
        data: [withRows(frame, [pipe, { ...PAINT, НоменклатурнаяГруппа: 'Краски' }], 2255)],
        errors: [],
      })
      assert.deepEqual(await get(app, `?ngroup=${q('лкм')}`), { data: [], errors: [] })
    })
  })

  describe(`GET /main/hs/specifications/get, a failed materials read (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend, wrapImport: failingPart('cat_specifications_materials', uuid('sp-frame')) })
    })
    after(() => app.close())

    it('keeps the specification with its row summary string and reports the failure in errors', async () => {
      const res = await app.api(`/main/hs/specifications/get?full=1&year=2026&code=${q('С-00')}`)
      assert.equal(res.status, 200)
      assert.deepEqual(res.json, {
        data: [FRAME, withRows(TRESTLE, bolts(21), 2310)],
        errors: [`Спецификация номенклатуры С-001 Рама сварная 2/1: не удалось прочитать табличную часть Материалы: ${PART_FAILURE}`],
      })
    })
  })
}
