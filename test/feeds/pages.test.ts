// Pages of a list (decision "Pages by keyset"): `limit` gives the first N rows in the list's
// order and a Link to the next page while more remain; the cursor is a keyset position, so
// an import between pages neither repeats nor skips a row that did not change.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { documentsFixture } from '../fixtures/documents.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp, TestResponse } from '../support/app.js'
import { uuid } from '../support/refs.js'
import { createTestStore } from '../support/stores.js'
import { WorkerPool } from '../../src/serving/pool.js'
import type { PageInfo } from '../../src/endpoints/pages.js'

const W = '/main/hs/warehouses/get'
const row = (code: string, name: string, group = false) => ({ Код: code, Наименование: name, ЭтоГруппа: group })
const LINK = /^<(\/main\/hs\/[a-z]+\/get\?[^>]*)>; rel="next"$/

/** The next page's URL from a Link header (none on the last page). */
const nextOf = (res: TestResponse): string | undefined => {
  const link = res.headers.link
  if (link === undefined) return undefined
  const m = LINK.exec(String(link))
  assert.ok(m, `Link: ${link}`)
  return m[1]
}
const cursorOf = (url: string) => new URLSearchParams(url.slice(url.indexOf('?') + 1)).get('cursor')!

/** Every page of `path`, following Link. */
async function allPages(app: TestApp, path: string): Promise<unknown[][]> {
  const pages: unknown[][] = []
  for (let url: string | undefined = path; url !== undefined; ) {
    const res = await app.api(url)
    assert.equal(res.status, 200, res.body)
    assert.deepEqual(res.json.errors, [])
    pages.push(res.json.data)
    url = nextOf(res)
    assert.ok(pages.length < 100)
  }
  return pages
}

for (const backend of BACKENDS)
  describe(`${backend}: pages of a list`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(warehousesFixture, { backend })
    })
    after(() => app.close())

    it('limit=3: the first three rows in the list’s order and a Link to the next page, to the end', async () => {
      const first = await app.api(`${W}?limit=3`)
      assert.equal(first.status, 200)
      assert.deepEqual(first.json, {
        data: [row('A-1', 'Ёлочный склад'), row('000000001', 'Основной склад'), row('000000010', 'Региональные склады', true)],
        errors: [],
      })
      const next = nextOf(first)!
      assert.match(next, /^\/main\/hs\/warehouses\/get\?limit=3&cursor=[\w-]+\.[\w-]+$/)
      assert.equal(first.headers['x-total-count'], undefined)
      assert.equal(first.headers['access-control-expose-headers'], 'Link, X-Total-Count, ETag, X-Changes-Token')
      const second = await app.api(next)
      assert.deepEqual(second.json.data, [
        row('00_%\\1', 'Склад 100% _резерв_ \\ архив'),
        row('000000011', 'склад готовой продукции'),
        row('000000002', 'Склад №2 (Север)'),
      ])
      const third = await app.api(nextOf(second)!)
      assert.deepEqual(third.json, { data: [row('000000012', 'ЦЕНТРАЛЬНЫЙ СКЛАД')], errors: [] })
      assert.equal(third.headers.link, undefined, 'the last page has no next')
      // A page that ends exactly at the list's end has no next either.
      const exact = await app.api(`${W}?limit=7`)
      assert.equal(exact.json.data.length, 7)
      assert.equal(exact.headers.link, undefined)
    })

    it('filters and the other parameters stay in the Link; count=true adds X-Total-Count on every page', async () => {
      const path = `${W}?name=${encodeURIComponent('склад')}&limit=2&count=true`
      const first = await app.api(path)
      assert.deepEqual(first.json.data, [row('A-1', 'Ёлочный склад'), row('000000001', 'Основной склад')])
      assert.equal(first.headers['x-total-count'], '7')
      const next = nextOf(first)!
      assert.ok(next.startsWith(`${path}&cursor=`), next)
      const second = await app.api(next)
      assert.equal(second.headers['x-total-count'], '7')
      assert.deepEqual(second.json.data, [row('000000010', 'Региональные склады', true), row('00_%\\1', 'Склад 100% _резерв_ \\ архив')])
      const filtered = await app.api(`${W}?code=00000001&limit=1&count=true`)
      assert.equal(filtered.headers['x-total-count'], '4')
      assert.equal((await app.api(`${W}?code=00000001`)).json.data.length, 4)
      assert.equal((await app.api(`${W}?limit=2&count=false`)).headers['x-total-count'], undefined)
    })

    it('without limit the answer is the whole list with no Link; a tree does not take limit', async () => {
      const whole = await app.api(W)
      assert.equal(whole.json.data.length, 7)
      assert.equal(whole.headers.link, undefined)
      assert.equal(whole.headers['access-control-expose-headers'], 'ETag, X-Changes-Token')
      const tree = await app.api('/main/hs/materials/get')
      const limited = await app.api('/main/hs/materials/get?limit=1')
      assert.equal(limited.body, tree.body)
      assert.equal(limited.headers.link, undefined)
    })

    it('a malformed, tampered or foreign cursor, or a bad limit or count, is 400 {"error": …}', async () => {
      const next = nextOf(await app.api(`${W}?limit=3`))!
      const cursor = cursorOf(next)
      const [body, check] = cursor.split('.')
      const decoded = JSON.parse(Buffer.from(body!, 'base64url').toString()) as [number, string, string[]]
      decoded[2][0] = 'я'
      const tampered = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${check}`
      const cases: [string, string][] = [
        [`${W}?limit=3&cursor=abc`, 'cursor is not one this request gave: malformed'],
        [`${W}?limit=3&cursor=${tampered}`, 'cursor is not one this request gave: malformed'],
        [`${W}?limit=3&code=1&cursor=${cursor}`, 'cursor is not one this request gave: it belongs to another endpoint or other parameters'],
        [
          `/main/hs/transfers/get?limit=3&cursor=${cursor}`,
          'cursor is not one this request gave: it belongs to another endpoint or other parameters',
        ],
        [`${W}?cursor=${cursor}`, 'cursor needs limit'],
        [`${W}?count=true`, 'count needs limit'],
        [`${W}?limit=0`, 'limit must be a whole number from 1 to 10000, got "0"'],
        [`${W}?limit=10001`, 'limit must be a whole number from 1 to 10000, got "10001"'],
        [`${W}?limit=2.5`, 'limit must be a whole number from 1 to 10000, got "2.5"'],
        [`${W}?limit=3&count=maybe`, 'count must be true or false, got "maybe"'],
      ]
      for (const [path, error] of cases) {
        const res = await app.api(path)
        assert.equal(res.status, 400, path)
        assert.deepEqual(res.json, { error }, path)
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      }
      // The same cursor with another limit is followed (limit may change from page to page).
      assert.deepEqual((await app.api(`${W}?limit=1&cursor=${cursor}`)).json.data, [row('00_%\\1', 'Склад 100% _резерв_ \\ архив')])
      // An empty value is an absent parameter.
      assert.equal((await app.api(`${W}?limit=&cursor=&count=`)).json.data.length, 7)
    })
  })

for (const backend of BACKENDS)
  describe(`${backend}: pages of payments`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(documentsFixture, { backend })
    })
    after(() => app.close())

    it('pages of payments, short and full, join into the whole list', async () => {
      for (const query of ['', 'full=true', 'full=true&from=01.01.2020&to=31.12.2030', 'comment=а']) {
        const whole = await app.api(`/main/hs/payments/get?${query}`)
        for (const limit of [1, 2, 3]) {
          const pages = await allPages(app, `/main/hs/payments/get?${query}${query ? '&' : ''}limit=${limit}`)
          assert.deepEqual(pages.flat(), whole.json.data, `${query} limit=${limit}`)
          assert.ok(pages.every((p, i) => p.length === limit || (i === pages.length - 1 && p.length <= limit)))
        }
      }
    })
  })

for (const backend of BACKENDS)
  describe(`${backend}: a page boundary under a concurrent import`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(warehousesFixture, { backend })
    })
    after(() => app.close())

    it('rows written before the boundary stay out of later pages, rows after it appear in order, none repeated or skipped', async () => {
      const first = await app.api(`${W}?limit=3`)
      assert.deepEqual(
        first.json.data.map((w: { Код: string }) => w.Код),
        ['A-1', '000000001', '000000010'],
      )
      const wh = (key: string, code: string, name: string) => ({
        type: 'Справочник.Склады',
        ref: uuid(key),
        Код: code,
        Наименование: name,
        ЭтоГруппа: false,
      })
      const report = await app.importMore([
        wh('before', 'B-1', 'Аптечный склад'), // sorts before the boundary (page 1): not shown again
        wh('after', 'B-2', 'Склад 050'), // sorts after it: shown on page 2, in its place
        wh('end', 'B-3', 'Южный склад'), // the list's last row now
        { ...wh('w6', '000000012', 'ЦЕНТРАЛЬНЫЙ СКЛАД'), Наименование: 'Арочный склад' }, // a row on a later page moves before the boundary
      ])
      assert.equal(report.ok, true)
      const rest = (await allPages(app, nextOf(first)!)).flat().map((w) => (w as { Код: string }).Код)
      assert.deepEqual(rest, ['B-2', '00_%\\1', '000000011', '000000002', 'B-3'])
      // The whole list now, for reference: the pages before and after the import hold every
      // row that did not change exactly once.
      const whole = (await app.api(W)).json.data.map((w: { Код: string }) => w.Код)
      assert.deepEqual(whole, ['B-1', '000000012', 'A-1', '000000001', '000000010', 'B-2', '00_%\\1', '000000011', '000000002', 'B-3'])
    })
  })

describe('sqlite: a page answered by a worker', () => {
  it('the next cursor and the total come back from the worker thread before the bytes', async () => {
    const store = await createTestStore('sqlite')
    await store.writer.close()
    assert.equal((await store.importMore(warehousesFixture)).ok, true)
    const pool = await WorkerPool.start({ db: store.location, size: 1, timeLimitMs: 0 })
    try {
      let page: PageInfo | undefined
      const body = await pool.execute(
        { service: 'warehouses', query: 'limit=6&count=true', now: new Date() },
        { signal: new AbortController().signal, page: (p) => (page = p) },
      )
      assert.ok(Buffer.isBuffer(body))
      assert.equal(JSON.parse(body.toString()).data.length, 6)
      assert.equal(page?.total, 7)
      assert.match(page?.next ?? '', /^[\w-]+\.[\w-]+$/)
    } finally {
      await pool.close()
      await store.cleanup()
    }
  })
})
