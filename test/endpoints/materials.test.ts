import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { element, group, materialsFixture } from '../fixtures/materials.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'

const node = (Код: string, Наименование: string, Дети: unknown[]) => ({ Код, Наименование, ЭтоГруппа: true, Дети })
const item = (
  Код: string,
  Наименование: string,
  Артикул: string,
  Услуга: boolean,
  ЕдиницаИзмерения: string,
  ВидНоменклатуры: string,
  НоменклатурнаяГруппа: string,
  ОсновнойПоставщик: string,
) => ({ Код, Наименование, Артикул, ЭтоГруппа: false, Услуга, ЕдиницаИзмерения, ВидНоменклатуры, НоменклатурнаяГруппа, ОсновнойПоставщик })

const PIPE57 = item('Н-001', 'Труба 57х3,5', 'ТР-57', false, 'м', 'Материал', 'Трубы стальные', 'ООО Сталь')
const PIPE108 = item('Н-002', 'Труба 108х4', 'ТР-108', false, 'м', 'Материал', 'Трубы стальные', 'АО Металл-Сервис')
const PIPE20 = item('Н-003', 'Трубка 20х1', '', false, 'м', 'Материал', 'Трубы стальные', '')
const SHEET = item('Н-004', 'Лист 2 мм', 'Л-2', false, 'шт', 'Материал', 'Листовой прокат', 'ООО Сталь')
const REBAR = item('Н-005', 'Арматура А500', '', false, 'м', 'Материал', '', 'АО Металл-Сервис')
const DELIVERY = item('У-001', 'Доставка', '', true, 'усл', 'Услуга', 'Работы', '')
const CUTTING = item('У-002', 'Резка металла', '', true, 'усл', 'Услуга', 'Работы', 'ООО Сталь')
const BOLT = item('Н-008', 'Болт М10', 'М10-ГОСТ', false, 'шт', 'Товар', '', '')
const NUT = item('Н-009', 'Гайка М10', '', false, 'шт', 'Товар', '', '')

const metal = (...kids: unknown[]) => node('Г-01', 'Металлопрокат', kids)
const pipes = (...kids: unknown[]) => node('Г-02', 'Трубы', kids)
const thin = (...kids: unknown[]) => node('Г-03', 'Тонкостенные', kids)
const sheets = (...kids: unknown[]) => node('Г-04', 'Листы', kids)
const services = (...kids: unknown[]) => node('Г-05', 'Услуги', kids)

const WHOLE = [metal(sheets(SHEET), pipes(thin(PIPE20), PIPE108, PIPE57), REBAR), services(DELIVERY, CUTTING), BOLT, NUT]
const NOT_SERVICES = [metal(sheets(SHEET), pipes(thin(PIPE20), PIPE108, PIPE57), REBAR), BOLT, NUT]

for (const backend of BACKENDS) {
  describe(`GET /main/hs/materials/get (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(materialsFixture, { backend })
    })
    after(() => app.close())
    const get = async (query: string) => {
      const res = await app.api(`/main/hs/materials/get${query}`)
      assert.equal(res.status, 200)
      return res.json
    }
    const q = (params: Record<string, string>) => `?${new URLSearchParams(params)}`

    it('returns live elements as a tree of their parent groups: groups first, then elements, each by name', async () => {
      const res = await app.api('/main/hs/materials/get')
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.deepEqual(res.json, { data: WHOLE, errors: [] })
    })

    it('group and element nodes have exactly the fields of the spec, in its order', async () => {
      const { data } = await get('')
      assert.deepEqual(Object.keys(data[0]), ['Код', 'Наименование', 'ЭтоГруппа', 'Дети'])
      assert.deepEqual(Object.keys(data[2]), [
        'Код',
        'Наименование',
        'Артикул',
        'ЭтоГруппа',
        'Услуга',
        'ЕдиницаИзмерения',
        'ВидНоменклатуры',
        'НоменклатурнаяГруппа',
        'ОсновнойПоставщик',
      ])
    })

    it('elements marked for deletion are left out, and so are groups that hold only them', async () => {
      const json = JSON.stringify(await get(''))
      for (const name of ['Труба старая', 'Списанный лист', 'Удаленный товар', 'Архив', 'Пустая группа'])
        assert.ok(!json.includes(name), name)
    })

    it('a group marked for deletion still carries its live elements', async () => {
      assert.deepEqual(await get(q({ name: 'резка' })), { data: [services(CUTTING)], errors: [] })
    })

    it('filters hitting different branches give every group on their chains once', async () => {
      assert.deepEqual(await get(q({ supplier: 'сталь' })), {
        data: [metal(sheets(SHEET), pipes(PIPE57)), services(CUTTING)],
        errors: [],
      })
      assert.deepEqual(await get(q({ name: 'ТРУБ' })), { data: [metal(pipes(thin(PIPE20), PIPE108, PIPE57))], errors: [] })
    })

    it('group matches the immediate parent group only, not the hierarchy above it', async () => {
      assert.deepEqual(await get(q({ group: 'трубы' })), { data: [metal(pipes(PIPE108, PIPE57))], errors: [] })
      assert.deepEqual(await get(q({ group: 'Металлопрокат' })), { data: [metal(REBAR)], errors: [] })
      assert.deepEqual(await get(q({ group: 'тонкостенные' })), { data: [metal(pipes(thin(PIPE20)))], errors: [] })
    })

    it('code, type, ngroup and article are case-insensitive substrings', async () => {
      assert.deepEqual(await get(q({ code: 'у-0' })), { data: [services(DELIVERY, CUTTING)], errors: [] })
      assert.deepEqual(await get(q({ type: 'ТОВАР' })), { data: [BOLT, NUT], errors: [] })
      assert.deepEqual(await get(q({ ngroup: 'прокат' })), { data: [metal(sheets(SHEET))], errors: [] })
      assert.deepEqual(await get(q({ article: 'тр-' })), { data: [metal(pipes(PIPE108, PIPE57))], errors: [] })
    })

    for (const value of ['1', 'true', 'да', 'ДА', 'True']) {
      it(`service=${value} returns only services`, async () => {
        assert.deepEqual(await get(q({ service: value })), { data: [services(DELIVERY, CUTTING)], errors: [] })
      })
    }

    for (const value of ['0', 'false', 'нет', 'yes', 'abc']) {
      it(`service=${value} (any other value) returns only non-services`, async () => {
        assert.deepEqual(await get(q({ service: value })), { data: NOT_SERVICES, errors: [] })
      })
    }

    it('filters combine', async () => {
      assert.deepEqual(await get(q({ name: 'труба', supplier: 'металл' })), { data: [metal(pipes(PIPE108))], errors: [] })
      assert.deepEqual(await get(q({ supplier: 'сталь', service: 'да' })), { data: [services(CUTTING)], errors: [] })
      assert.deepEqual(await get(q({ name: 'труба', service: 'да' })), { data: [], errors: [] })
    })

    it('a filter value is only text', async () => {
      assert.deepEqual(await get(q({ name: "' OR '1'='1" })), { data: [], errors: [] })
      assert.deepEqual(await get(q({ code: '%' })), { data: [], errors: [] })
    })

    it('re-importing a group or an element changes the tree and the group filter', async () => {
      const report = await app.importMore([
        group('g-pipes', 'Г-02', 'Трубная продукция', 'g-metal'),
        element('e-bolt', 'Н-008', 'Болт М10', 'g-sheets', { Артикул: 'М10-ГОСТ' }),
      ])
      assert.equal(report.ok, true)
      const bolt = { ...BOLT, ЕдиницаИзмерения: '', ВидНоменклатуры: '' }
      const pipes2 = (...kids: unknown[]) => node('Г-02', 'Трубная продукция', kids)
      assert.deepEqual(await get(q({ group: 'трубная' })), { data: [metal(pipes2(PIPE108, PIPE57))], errors: [] })
      assert.deepEqual(await get(q({ group: 'листы' })), { data: [metal(sheets(bolt, SHEET))], errors: [] })
      assert.deepEqual(await get(''), {
        data: [metal(sheets(bolt, SHEET), pipes2(thin(PIPE20), PIPE108, PIPE57), REBAR), services(DELIVERY, CUTTING), NUT],
        errors: [],
      })
    })
  })

  describe(`materials tree edge cases (${backend})`, () => {
    it('a parent cycle is cut at the group with the least name, which becomes a root', async () => {
      const app = await startApp(
        [
          group('c-a', 'A', 'Альфа', 'c-b'),
          group('c-b', 'B', 'Бета', 'c-a'),
          group('c-self', 'S', 'Сам себе родитель', 'c-self'),
          element('c-x', 'X', 'Икс', 'c-a'),
          element('c-y', 'Y', 'Игрек', 'c-b'),
          element('c-z', 'Z', 'Зет', 'c-self'),
        ],
        { backend },
      )
      try {
        const blank = (Код: string, Наименование: string) => item(Код, Наименование, '', false, '', '', '', '')
        assert.deepEqual((await app.api('/main/hs/materials/get')).json, {
          data: [
            node('A', 'Альфа', [node('B', 'Бета', [blank('Y', 'Игрек')]), blank('X', 'Икс')]),
            node('S', 'Сам себе родитель', [blank('Z', 'Зет')]),
          ],
          errors: [],
        })
      } finally {
        await app.close()
      }
    })

    it('an empty catalogue gives an empty tree', async () => {
      const app = await startApp([], { backend })
      try {
        assert.deepEqual((await app.api('/main/hs/materials/get')).json, { data: [], errors: [] })
      } finally {
        await app.close()
      }
    })
  })
}
