// The Материалы rows a filtered specifications request prints come from rows kept ready at
// import (api_spec_material_rows): they follow every change of what a row prints, and
// СуммаМатериалов is still summed first and rounded once.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { productionFixture } from '../fixtures/production.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { uuid } from '../support/refs.js'

const spec = (Код: string, Наименование: string, Материалы: unknown, СуммаМатериалов: number, extra: Record<string, unknown> = {}) => ({
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
  ...extra,
  Материалы,
  СуммаМатериалов,
})
const m = (Код: string, Материал: string, Количество: number, Единица: string, Цена: number, Сумма: number, НоменклатурнаяГруппа = '') => ({
  Код,
  Материал,
  Количество,
  Единица,
  Цена,
  Сумма,
  НоменклатурнаяГруппа,
})
const shield = (row: unknown) =>
  spec('С-002', 'Щит распределительный', [row], 600, { ДатаУтверждения: '01.11.2025', ДатаПоставки: '31.12.2025' })
const frame = (rows: unknown[], total: number) =>
  spec('С-001', 'Рама сварная 2/1', rows, total, {
    ДатаУтверждения: '15.01.2026',
    Ответственный: 'Иванов И.И.',
    ДатаПоставки: '20.02.2026',
    СтоимостьРабот: 1000,
    СтоимостьТранспорт: 250.5,
  })
const PIPE = m('М-0001', 'Труба 57/3,5', 10, 'м', 150.5, 1505, 'Металлопрокат')
const TINY = m('М-0004', 'Болт М12', 1, 'шт', 0.004, 0)

const get = (app: TestApp, query: string) => app.api(`/main/hs/specifications/get${query}`).then((r) => r.json)
const q = encodeURIComponent
const item = (name: string) => ({
  type: 'Справочник.Номенклатура',
  ref: uuid('n-cable'),
  Код: 'Э-0001',
  Наименование: name,
  ЭтоГруппа: false,
  ЕдиницаИзмерения: uuid('unit-m'),
  НоменклатурнаяГруппа: uuid('ng-elec'),
})

for (const backend of BACKENDS) {
  describe(`specifications: ready Материалы rows (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend })
      // Three shares of 0.004: rounded each they would print 0, summed first they print 0.01.
      const row = { Номенклатура: uuid('n-bolt'), Количество: 1, ЕдиницаИзмерения: uuid('unit-pcs'), Цена: 0.004, Сумма: 0 }
      const report = await app.importMore([
        {
          type: 'Справочник.СпецификацииНоменклатуры',
          ref: uuid('sp-tiny'),
          Код: 'С-011',
          Наименование: 'Мелочь',
          ЭтоГруппа: false,
          Материалы: [row, row, row],
        },
      ])
      assert.equal(report.ok, true)
    })
    after(() => app.close())

    it('СуммаМатериалов is the sum of the listed rows, rounded once', async () => {
      const tiny = spec('С-011', 'Мелочь', [TINY, TINY, TINY], 0.01)
      assert.deepEqual(await get(app, `?material=${q('болт')}&code=${q('С-011')}`), { data: [tiny], errors: [] })
      assert.deepEqual(await get(app, `?full=1&material=${q('болт')}&code=${q('С-011')}`), { data: [tiny], errors: [] })
      // 0.1 + 0.2 is 0.30000000000000004 before rounding.
      const beam = spec('С-009', 'балка', [m('М-0004', 'Болт М12', 1, 'шт', 0, 0.1), m('М-0004', 'Болт М12', 1, 'шт', 0, 0.2)], 0.3)
      assert.deepEqual(await get(app, `?material=${q('болт')}&code=${q('С-009')}`), { data: [beam], errors: [] })
    })

    it('a value holding the separator of the joined texts is matched row by row', async () => {
      // ",5" is inside one name of each; "3,5,м" would only span two rows of С-001.
      assert.deepEqual(await get(app, `?material=${q(',5')}`), {
        data: [frame([PIPE], 1505), shield(m('Э-0001', 'Кабель ВВГ 3х2,5', 3, 'м', 200, 600, 'Электротехника'))],
        errors: [],
      })
      assert.deepEqual(await get(app, `?material=${q('3,5,м')}`), { data: [], errors: [] })
      assert.deepEqual(await get(app, `?full=1&material=${q('3,5,м')}`), { data: [], errors: [] })
    })

    it('a renamed item prints its new name in the row after re-import', async () => {
      assert.equal((await app.importMore([item('Провод ПВС 3х2,5')])).ok, true)
      assert.deepEqual(await get(app, `?material=${q('провод')}`), {
        data: [shield(m('Э-0001', 'Провод ПВС 3х2,5', 3, 'м', 200, 600, 'Электротехника'))],
        errors: [],
      })
      assert.deepEqual(await get(app, `?material=${q('кабель')}`), { data: [], errors: [] })
    })

    it('a renamed nomenclature group prints its new name in the row after re-import', async () => {
      const report = await app.importMore([
        { type: 'Справочник.НоменклатурныеГруппы', ref: uuid('ng-elec'), Код: 'ng-elec', Наименование: 'Электрика' },
      ])
      assert.equal(report.ok, true)
      const expected = { data: [shield(m('Э-0001', 'Провод ПВС 3х2,5', 3, 'м', 200, 600, 'Электрика'))], errors: [] }
      assert.deepEqual(await get(app, `?material=${q('провод')}`), expected)
      assert.deepEqual(await get(app, `?ngroup=${q('электрика')}`), expected)
      assert.deepEqual(await get(app, `?ngroup=${q('электротехника')}`), { data: [], errors: [] })
    })

    it("a unit's new presentation is printed in the row after re-import", async () => {
      const report = await app.importMore([
        { type: 'Справочник.ЕдиницыИзмерения', ref: uuid('unit-m'), Код: 'unit-m', Наименование: 'метр' },
      ])
      assert.equal(report.ok, true)
      assert.deepEqual(await get(app, `?material=${q('провод')}`), {
        data: [shield(m('Э-0001', 'Провод ПВС 3х2,5', 3, 'метр', 200, 600, 'Электрика'))],
        errors: [],
      })
      assert.deepEqual(await get(app, `?material=${q('труба')}`), { data: [frame([{ ...PIPE, Единица: 'метр' }], 1505)], errors: [] })
    })
  })
}
