import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'

const ALL = [
  { Код: 'A-1', Наименование: 'Ёлочный склад', ЭтоГруппа: false },
  { Код: '000000001', Наименование: 'Основной склад', ЭтоГруппа: false },
  { Код: '000000010', Наименование: 'Региональные склады', ЭтоГруппа: true },
  { Код: '00_%\\1', Наименование: 'Склад 100% _резерв_ \\ архив', ЭтоГруппа: false },
  { Код: '000000011', Наименование: 'склад готовой продукции', ЭтоГруппа: false },
  { Код: '000000002', Наименование: 'Склад №2 (Север)', ЭтоГруппа: false },
  { Код: '000000012', Наименование: 'ЦЕНТРАЛЬНЫЙ СКЛАД', ЭтоГруппа: false },
]
const ELEMENTS = ALL.filter((w) => !w.ЭтоГруппа)
const codes = (json: { data: { Код: string }[] }) => json.data.map((w) => w.Код)

for (const backend of BACKENDS)
  describe(`${backend}: GET /main/hs/warehouses/get`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(warehousesFixture, { backend })
    })
    after(() => app.close())

    it('returns every warehouse, groups and records marked for deletion included, sorted by name', async () => {
      const res = await app.api('/main/hs/warehouses/get')
      assert.equal(res.status, 200)
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.equal(res.headers['cache-control'], 'no-store')
      assert.equal(res.headers['x-content-type-options'], 'nosniff')
      assert.deepEqual(res.json, { data: ALL, errors: [] })
    })

    it('code is a case-insensitive substring of Код', async () => {
      assert.deepEqual(codes((await app.api('/main/hs/warehouses/get?code=000000001')).json), ['000000001'])
      assert.deepEqual(codes((await app.api('/main/hs/warehouses/get?code=a-')).json), ['A-1'])
    })

    it('name is a substring of Наименование that folds Cyrillic case', async () => {
      const res = await app.api(`/main/hs/warehouses/get?name=${encodeURIComponent('центральный')}`)
      assert.deepEqual(res.json, { data: [ALL[6]], errors: [] })
      const upper = await app.api(`/main/hs/warehouses/get?name=${encodeURIComponent('СКЛАД ГОТОВОЙ')}`)
      assert.deepEqual(codes(upper.json), ['000000011'])
    })

    it('ё and е are different letters', async () => {
      const res = await app.api(`/main/hs/warehouses/get?name=${encodeURIComponent('елочный')}`)
      assert.deepEqual(res.json, { data: [], errors: [] })
      const yo = await app.api(`/main/hs/warehouses/get?name=${encodeURIComponent('ёлочный')}`)
      assert.deepEqual(codes(yo.json), ['A-1'])
    })

    for (const [label, value] of [
      ['%', '%25'],
      ['_', '_'],
      ['\\', '%5C'],
      ['100% _', '100%25%20_'],
    ] as const) {
      it(`a filter value with ${label} matches it literally`, async () => {
        assert.deepEqual(codes((await app.api(`/main/hs/warehouses/get?name=${value}`)).json), ['00_%\\1'])
        if (label.length === 1) assert.deepEqual(codes((await app.api(`/main/hs/warehouses/get?code=${value}`)).json), ['00_%\\1'])
      })
    }

    for (const value of ['true', '1', 'да', 'ДА', 'True']) {
      it(`group=${value} returns only groups`, async () => {
        const res = await app.api(`/main/hs/warehouses/get?group=${encodeURIComponent(value)}`)
        assert.deepEqual(res.json, { data: [ALL[2]], errors: [] })
      })
    }

    for (const value of ['false', '0', 'нет', 'yes', 'abc']) {
      it(`group=${value} (any other value) returns only elements`, async () => {
        const res = await app.api(`/main/hs/warehouses/get?group=${encodeURIComponent(value)}`)
        assert.deepEqual(res.json, { data: ELEMENTS, errors: [] })
      })
    }

    it('filters combine', async () => {
      const res = await app.api(`/main/hs/warehouses/get?name=${encodeURIComponent('склад')}&group=0&code=00000000`)
      assert.deepEqual(codes(res.json), ['000000001', '000000002'])
    })

    it('an empty value is no filter, unknown keys are ignored, the first of repeated keys wins', async () => {
      assert.deepEqual((await app.api('/main/hs/warehouses/get?code=&foo=bar&__proto__=1')).json, { data: ALL, errors: [] })
      assert.deepEqual(codes((await app.api('/main/hs/warehouses/get?code=A-1&code=000000001')).json), ['A-1'])
    })

    it('parameter keys are case-sensitive', async () => {
      assert.deepEqual((await app.api('/main/hs/warehouses/get?CODE=A-1')).json, { data: ALL, errors: [] })
    })

    it('SQL text in a filter is only text', async () => {
      const res = await app.api(`/main/hs/warehouses/get?name=${encodeURIComponent("' OR '1'='1")}`)
      assert.deepEqual(res.json, { data: [], errors: [] })
    })
  })
