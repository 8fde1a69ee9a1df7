// Conditional GET (decision "Answers tagged by the store's generation"): every 200 of a data
// endpoint carries a strong ETag made of the store's answers generation and the request;
// If-None-Match with it is 304 while the store is unchanged.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { BACKENDS, READER, basic, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { loggedReads } from '../support/failing-sql.js'
import type { LoggedRead } from '../support/failing-sql.js'
import { uuid } from '../support/refs.js'

const AUTH = basic(READER.name, READER.password)
const PATH = '/main/hs/warehouses/get?name=%D1%86%D0%B5%D0%BD%D1%82%D1%80'
const CENTRAL = '{"data":[{"Код":"000000012","Наименование":"ЦЕНТРАЛЬНЫЙ СКЛАД","ЭтоГруппа":false}],"errors":[]}'
const TWO_CENTRAL =
  '{"data":[{"Код":"000000012","Наименование":"ЦЕНТРАЛЬНЫЙ СКЛАД","ЭтоГруппа":false},{"Код":"000000013","Наименование":"Центральный склад №2","ЭтоГруппа":false}],"errors":[]}'
const STRONG = /^"[\w-]{27}"$/
const NEW_WAREHOUSE = {
  type: 'Справочник.Склады',
  ref: uuid('w7'),
  Код: '000000013',
  Наименование: 'Центральный склад №2',
  ЭтоГруппа: false,
}

for (const backend of BACKENDS)
  describe(`${backend}: conditional GET`, () => {
    let app: TestApp
    let day = new Date(2024, 2, 14, 12)
    before(async () => {
      app = await startApp(warehousesFixture, { backend, now: () => day })
    })
    after(() => app.close())

    it('a 200 carries a strong ETag, Cache-Control no-store still; the same tag gets 304 with no body; after an import 200 with a new tag', async () => {
      const first = await app.get(PATH, AUTH)
      assert.equal(first.status, 200)
      assert.equal(first.body, CENTRAL)
      assert.equal(first.headers['cache-control'], 'no-store')
      const tag = String(first.headers.etag)
      assert.match(tag, STRONG)
      assert.equal((await app.get(PATH, AUTH)).headers.etag, tag, 'the same request under the same store has the same tag')

      const same = await app.get(PATH, { ...AUTH, 'if-none-match': tag })
      assert.equal(same.status, 304)
      assert.equal(same.body, '')
      assert.equal(same.headers.etag, tag)
      assert.equal(same.headers['cache-control'], 'no-store')
      assert.equal(same.headers['content-type'], undefined)
      assert.equal((await app.get(PATH, { ...AUTH, 'if-none-match': `"foreign", ${tag}` })).status, 304, 'a list that names it')

      const report = await app.importMore([NEW_WAREHOUSE])
      assert.equal(report.ok, true)
      const changed = await app.get(PATH, { ...AUTH, 'if-none-match': tag })
      assert.equal(changed.status, 200)
      assert.equal(changed.body, TWO_CENTRAL)
      const newTag = String(changed.headers.etag)
      assert.match(newTag, STRONG)
      assert.notEqual(newTag, tag)
      assert.equal((await app.get(PATH, { ...AUTH, 'if-none-match': newTag })).status, 304)
    })

    it('a weak, foreign or malformed tag gets 200 with the whole answer', async () => {
      const tag = String((await app.get(PATH, AUTH)).headers.etag)
      // The tag with its last character changed (to one it is not: the tags are random).
      const altered = `${tag.slice(0, -2)}${tag.at(-2) === 'x' ? 'y' : 'x'}"`
      for (const sent of [`W/${tag}`, '"AAAAAAAAAAAAAAAAAAAAAAAAAAA"', tag.slice(1, -1), '*', altered]) {
        const res = await app.get(PATH, { ...AUTH, 'if-none-match': sent })
        assert.equal(res.status, 200, sent)
        assert.equal(res.body, TWO_CENTRAL)
        assert.equal(res.headers.etag, tag)
      }
    })

    it('another query, another service or the next day is another tag', async () => {
      const tag = String((await app.get(PATH, AUTH)).headers.etag)
      assert.notEqual((await app.get(`${PATH}&code=1`, AUTH)).headers.etag, tag)
      assert.equal((await app.get('/main/hs/transfers/get', { ...AUTH, 'if-none-match': tag })).status, 200)
      day = new Date(2024, 2, 15, 9)
      const next = await app.get(PATH, { ...AUTH, 'if-none-match': tag })
      assert.equal(next.status, 200)
      assert.notEqual(next.headers.etag, tag)
      day = new Date(2024, 2, 15, 23)
      assert.equal((await app.get(PATH, { ...AUTH, 'if-none-match': String(next.headers.etag) })).status, 304, 'later the same day')
    })

    it('a 401 is a 401 whatever tag is sent', async () => {
      const tag = String((await app.get(PATH, AUTH)).headers.etag)
      const res = await app.get(PATH, { 'if-none-match': tag })
      assert.equal(res.status, 401)
      assert.equal(res.headers.etag, undefined)
    })
  })

for (const backend of BACKENDS)
  describe(`${backend}: conditional GET with the answer cache`, () => {
    let app: TestApp
    const log: LoggedRead[] = []
    before(async () => {
      app = await startApp(warehousesFixture, { backend, answerCacheBytes: 1 << 20, wrapSql: loggedReads(log) })
    })
    after(() => app.close())

    it('a plain request reads no generation but the cache’s own; a conditional one reads it once, and the cache uses that read', async () => {
      const generationReads = () => log.filter((r) => r.text.includes('FROM meta')).length
      // A SQLite reader keeps what it read while it sees no commit (decision "Store reads kept
      // while the connection sees no commit"): each read once, until an import.
      const kept = backend === 'sqlite'
      const reads: number[] = []
      for (let i = 0; i < 3; i++) {
        const before = generationReads()
        const res = await app.get(PATH, AUTH)
        assert.equal(res.body, CENTRAL)
        reads.push(generationReads() - before)
      }
      // First asking: remembered only; then the cache reads the generation to find its answer.
      assert.deepEqual(reads, kept ? [0, 1, 0] : [0, 1, 1])
      const tag = String((await app.get(PATH, AUTH)).headers.etag)
      let before = log.length
      assert.equal((await app.get(PATH, { ...AUTH, 'if-none-match': tag })).status, 304)
      assert.deepEqual(
        log.slice(before).map((r) => r.text.includes('FROM meta')),
        kept ? [] : [true],
        'a 304 reads the generation and nothing else',
      )
      before = generationReads()
      const other = await app.get(`${PATH}&code=0`, { ...AUTH, 'if-none-match': tag })
      assert.equal(other.status, 200)
      assert.equal(generationReads() - before, kept ? 0 : 1, 'a conditional 200 reads it once, the cache uses that read')
    })

    it('a plain answer begun before an import carries the old tag; a conditional request reads the store and is never a 304 over changed data', async () => {
      const tag = String((await app.get(PATH, AUTH)).headers.etag)
      assert.equal((await app.importMore([NEW_WAREHOUSE])).ok, true)
      // This process has not read the generation since: a plain, first-asked answer is tagged with the one it knows.
      const plain = await app.get(`${PATH}&x=1`, AUTH)
      assert.equal(plain.body, TWO_CENTRAL)
      const revalidated = await app.get(PATH, { ...AUTH, 'if-none-match': tag })
      assert.equal(revalidated.status, 200)
      assert.equal(revalidated.body, TWO_CENTRAL)
      assert.notEqual(revalidated.headers.etag, tag)
      assert.equal(
        (await app.get(`${PATH}&x=1`, { ...AUTH, 'if-none-match': String(plain.headers.etag) })).status,
        200,
        'the stale tag matches nothing',
      )
    })
  })

for (const backend of BACKENDS)
  describe(`${backend}: conditional GET without the answer cache`, () => {
    let app: TestApp
    const log: LoggedRead[] = []
    before(async () => {
      app = await startApp(warehousesFixture, { backend, wrapSql: loggedReads(log) })
    })
    after(() => app.close())

    it('a plain request reads only its answer; the generation was read when the server started', async () => {
      const before = log.length
      const res = await app.get(PATH, AUTH)
      assert.equal(res.body, CENTRAL)
      assert.match(String(res.headers.etag), STRONG)
      assert.equal(log.slice(before).filter((r) => r.text.includes('FROM meta')).length, 0)
      assert.equal((await app.get(PATH, { ...AUTH, 'if-none-match': String(res.headers.etag) })).status, 304)
    })
  })
