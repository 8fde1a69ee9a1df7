// Changes since (decision "Changes since"): every answer of a list carries X-Changes-Token;
// `changed_since=<token>` gives the rows of the list re-printed since (a renamed
// counterparty brings back the payments printing it) and, in `removed`, the identities of
// the rows gone since; a token that is not one is 400, one the log no longer reaches is 410.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { documentsFixture } from '../fixtures/documents.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp, TestResponse } from '../support/app.js'
import { uuid } from '../support/refs.js'
import { createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { TODAY, runSync } from '../sync/support.js'
import { startFake1C } from '../../src/fake1c/index.js'
import type { Fake1C } from '../../src/fake1c/index.js'
import { endpointByService } from '../../src/endpoints/index.js'
import type { ListEndpoint } from '../../src/endpoints/define.js'
import { changesHeader } from '../../src/endpoints/changes.js'
import { generationAndPosition } from '../../src/views/changes.js'
import { answer } from '../../src/pipeline/run.js'

const P = '/main/hs/payments/get'
const W = '/main/hs/warehouses/get'
const TOKEN = /^\d+\.[\w-]{12}$/
const REQUEST = 'Документ.ЗаявкаНаРасходованиеСредств'
const NONE = { Есть: false, Количество: 0 }
const LINKS_NONE = { ДокументОснование: NONE, ДокументыРасчетовСКонтрагентом: NONE }

const tokenOf = (res: TestResponse): string => {
  const token = String(res.headers['x-changes-token'])
  assert.match(token, TOKEN)
  return token
}
const since = (path: string, token: string, more = '') => `${path}?changed_since=${encodeURIComponent(token)}${more}`
/**
 * The store's position now: a plain answer carries the position the server read last (at
 * most a minute ago, never newer than its data); a changed_since answer the one it read to check the token.
 */
async function current(app: TestApp, path: string): Promise<string> {
  return tokenOf(await app.api(since(path, tokenOf(await app.api(path)))))
}

// ЗР-0002 prints its counterparty (Контрагент, with no recipient) as Получатель.
const ЗР2 = (name: string) => ({
  Номер: 'ЗР-0002',
  ДатаДокумента: '',
  ДатаРасхода: '05.03.2024',
  Ответственный: 'Не указан',
  Получатель: name,
  Организация: '',
  Касса: 'Не указана',
  СуммаДокумента: 250,
  Статус: '',
  Комментарий: '',
  Проведен: true,
  КтоИзменилСтатус: '',
  ДатаСменыСтатуса: '',
  СвязанныеДокументы: LINKS_NONE,
  Вложения: NONE,
})

for (const backend of BACKENDS)
  describe(`${backend}: changes since`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(documentsFixture, { backend })
    })
    after(() => app.close())

    it('every list answer carries X-Changes-Token; without changed_since the body keeps its two members', async () => {
      const res = await app.api(P)
      assert.equal(res.status, 200)
      tokenOf(res)
      assert.equal(res.headers['access-control-expose-headers'], 'ETag, X-Changes-Token')
      assert.deepEqual(Object.keys(res.json), ['data', 'errors'])
      assert.deepEqual(
        res.json.data.map((r: { Номер: string }) => r.Номер),
        ['ЗР-0004', 'ЗР-0002', 'ЗР-0001', 'ЗР-0003', 'ЗР-0005'],
      )
      const paged = await app.api(`${P}?limit=1`)
      assert.equal(paged.headers['access-control-expose-headers'], 'Link, X-Total-Count, ETag, X-Changes-Token')
      assert.equal(tokenOf(paged), tokenOf(res))
      // A computed answer (a tree, a statement) is not a list: no token.
      assert.equal((await app.api('/main/hs/materials/get')).headers['x-changes-token'], undefined)
    })

    it('nothing written since: no rows and nothing removed', async () => {
      const token = await current(app, P)
      const res = await app.api(since(P, token))
      assert.equal(res.status, 200)
      assert.equal(res.body, '{"data":[],"removed":[],"errors":[]}')
      assert.equal(tokenOf(res), token)
    })

    it('a renamed counterparty brings back the payments that print it', async () => {
      const token = await current(app, P)
      const report = await app.importMore([
        { type: 'Справочник.Контрагенты', ref: uuid('ка-иванов'), Код: 'ка-иванов', Наименование: 'Иванов и партнёры' },
      ])
      assert.ok(report.ok)
      const res = await app.api(since(P, token))
      assert.deepEqual(res.json, { data: [ЗР2('Иванов и партнёры')], removed: [], errors: [] })
      const next = tokenOf(res)
      assert.ok(Number(next.split('.')[0]) > Number(token.split('.')[0]), `${next} after ${token}`)
      assert.equal((await app.api(since(P, next))).body, '{"data":[],"removed":[],"errors":[]}')
      // Other parameters narrow the changes as they narrow the list.
      assert.deepEqual((await app.api(since(P, token, '&code=0001'))).json, { data: [], removed: [], errors: [] })
    })

    it('a created and a changed document come back; a deleted one, and a changed number, are in removed', async () => {
      const token = await current(app, P)
      const report = await app.importMore([
        { type: REQUEST, ref: uuid('зр-3'), deleted: true },
        { type: REQUEST, ref: uuid('зр-5'), Номер: 'ЗР-0005А', Дата: '2024-03-05T00:00:00' },
        { type: REQUEST, ref: uuid('зр-6'), Номер: 'ЗР-0006', Дата: '2024-03-07T10:00:00', ДатаРасхода: '2024-03-09', СуммаДокумента: 10 },
      ])
      assert.ok(report.ok)
      const empty = {
        ДатаРасхода: '',
        Ответственный: 'Не указан',
        Получатель: 'Не указан',
        Организация: '',
        Касса: 'Не указана',
        Статус: '',
        Комментарий: '',
        Проведен: false,
        КтоИзменилСтатус: '',
        ДатаСменыСтатуса: '',
        СвязанныеДокументы: LINKS_NONE,
        Вложения: NONE,
      }
      const res = await app.api(since(P, token))
      assert.deepEqual(res.json, {
        data: [
          { ...empty, Номер: 'ЗР-0006', ДатаДокумента: '07.03.2024', ДатаРасхода: '09.03.2024', СуммаДокумента: 10 },
          { ...empty, Номер: 'ЗР-0005А', ДатаДокумента: '05.03.2024', СуммаДокумента: 0 },
        ],
        removed: [
          { Номер: 'ЗР-0003', ДатаДокумента: '20.03.2024' },
          { Номер: 'ЗР-0005', ДатаДокумента: '05.03.2024' },
        ],
        errors: [],
      })
      // Pages of changes: the same rows a page at a time, each page with the same `removed`.
      const first = await app.api(since(P, token, '&limit=1'))
      assert.deepEqual(first.json.data, [res.json.data[0]])
      assert.deepEqual(first.json.removed, res.json.removed)
      assert.match(String(first.headers.link), /changed_since=.*&limit=1&cursor=/)
    })

    it('a catalogue: a deleted warehouse is removed by its Код', async () => {
      const token = await current(app, W)
      assert.ok((await app.importMore([{ type: 'Справочник.Склады', ref: uuid('скл-2'), deleted: true }])).ok)
      assert.deepEqual((await app.api(since(W, token))).json, { data: [], removed: [{ Код: 'скл-2' }], errors: [] })
      // Another list's changes are its own.
      assert.deepEqual((await app.api(since('/main/hs/transfers/get', token))).json, { data: [], removed: [], errors: [] })
    })

    it('a token that is not one is 400; a forged, future or too old one is 410 {"error": …}', async () => {
      const first = await current(app, P)
      const [position, store] = first.split('.') as [string, string]
      const notToken = 'changed_since must be the X-Changes-Token of an earlier answer'
      const notOurs =
        'changed_since is not a token this store gave: reload the list without changed_since and go on from its X-Changes-Token'
      const tooOld =
        "changed_since is older than the change log keeps (30 days) or than the list's last rebuild: reload the list without changed_since and go on from its X-Changes-Token"
      const cases: [string, number, string][] = [
        ['abc', 400, `${notToken}, got "abc"`],
        [`${position}.${store}x`, 400, `${notToken}, got "${position}.${store}x"`],
        [`-1.${store}`, 400, `${notToken}, got "-1.${store}"`],
        [`${position}.AAAAAAAAAAAA`, 410, notOurs],
        [`${Number(position) + 1}.${store}`, 410, notOurs],
      ]
      for (const [token, status, error] of cases) {
        const res = await app.api(since(P, token))
        assert.equal(res.status, status, token)
        assert.deepEqual(res.json, { error }, token)
      }
      // A write after `first`, then every position drawn so far is made older than the log
      // keeps: the next write prunes them, and `first` no longer reaches the changes after it.
      assert.ok((await app.importMore([{ type: REQUEST, ref: uuid('зр-7'), Номер: 'ЗР-0007', Дата: '2024-03-08T00:00:00' }])).ok)
      await app.write("UPDATE change_positions SET at = '2000-01-01T00:00:00.000Z'")
      assert.equal((await app.api(since(P, first))).status, 200, 'pruned by the next write only')
      assert.ok((await app.importMore([{ type: REQUEST, ref: uuid('зр-8'), Номер: 'ЗР-0008', Дата: '2024-03-08T00:00:00' }])).ok)
      const old = await app.api(since(P, first))
      assert.equal(old.status, 410)
      assert.deepEqual(old.json, { error: tooOld })
      // The token of the write before the pruning one still reaches the changes after it.
      const kept = await app.api(since(P, `${Number(position) + 1}.${store}`))
      assert.equal(kept.status, 200)
      assert.deepEqual(
        kept.json.data.map((r: { Номер: string }) => r.Номер),
        ['ЗР-0008'],
      )
    })
  })

for (const backend of BACKENDS)
  describe(`${backend}: changes since, written by sync`, () => {
    let fake: Fake1C
    let store: TestStore
    const warehouses = endpointByService.get('warehouses') as ListEndpoint
    const tokenNow = () => changesHeader(store.writer, warehouses, new Map(), () => generationAndPosition(store.writer))
    const changesSince = async (token: string) => {
      const body = await answer('warehouses', `changed_since=${encodeURIComponent(token)}`, { sql: store.writer, now: () => new Date() })
      const chunks: Buffer[] = []
      for await (const chunk of Buffer.isBuffer(body) ? [body] : body) chunks.push(chunk)
      return JSON.parse(Buffer.concat(chunks).toString('utf8'))
    }
    before(async () => {
      fake = await startFake1C({ objects: warehousesFixture, custom: true, today: TODAY })
      store = await createTestStore(backend)
    })
    after(async () => {
      await fake.close()
      if (store.location !== 'pglite://memory') await store.writer.close()
      await store.cleanup()
    })

    it('a warehouse renamed in 1C comes back, one deleted there is removed by its Код', async () => {
      const first = await runSync(store.writer, { source: fake.url, once: true })
      assert.equal(first.code, 0, first.err.join('\n'))
      const token = await tokenNow()
      const [main, , , , , fir] = warehousesFixture
      fake.put({ ...main!, Наименование: 'Главный склад' })
      fake.remove(fir!.ref)
      const second = await runSync(store.writer, { source: fake.url, once: true })
      assert.equal(second.code, 0, second.err.join('\n'))
      assert.deepEqual(await changesSince(token), {
        data: [{ Код: '000000001', Наименование: 'Главный склад', ЭтоГруппа: false }],
        removed: [{ Код: 'A-1' }],
        errors: [],
      })
      // A cycle with nothing new re-prints nothing.
      const now = await tokenNow()
      const third = await runSync(store.writer, { source: fake.url, once: true })
      assert.equal(third.code, 0, third.err.join('\n'))
      assert.deepEqual(await changesSince(now), { data: [], removed: [], errors: [] })
    })
  })
