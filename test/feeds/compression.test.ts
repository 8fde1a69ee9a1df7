// Answers compressed when asked (decision "Answers compressed when asked, kept compressed"):
// `Accept-Encoding: br` or `gzip` codes JSON answers of 1 KiB or more, streamed ones too; a
// request without it gets the identity bytes; the answer cache keeps the coded bytes, so an
// answer asked again is not compressed again.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { acceptedCoding } from '../../src/serving/compress.js'
import type { AnswerCache } from '../../src/serving/answer-cache.js'
import { BACKENDS, READER, basic, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { uuid } from '../support/refs.js'

const AUTH = basic(READER.name, READER.password)
const code = (i: number) => `W${String(i).padStart(4, '0')}`
/** 1,200 warehouses, `Склад 0001` … in name order as in code order. */
const fixture = Array.from({ length: 1200 }, (_, i) => ({
  type: 'Справочник.Склады',
  ref: uuid(`склад-${i + 1}`),
  Код: code(i + 1),
  Наименование: `Склад ${String(i + 1).padStart(4, '0')}`,
  ЭтоГруппа: false,
}))
const row = (i: number) => `{"Код":"${code(i)}","Наименование":"Склад ${String(i).padStart(4, '0')}","ЭтоГруппа":false}`
const answerOf = (numbers: readonly number[]) => `{"data":[${numbers.map(row).join(',')}],"errors":[]}`
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

/** Every warehouse (1,200 rows, over 500: streamed page by page) — 92 KB. */
const ALL = '/main/hs/warehouses/get?name=%D1%81%D0%BA%D0%BB%D0%B0%D0%B4'
/** W0100 … W0109: 10 rows, 700 bytes: under 1 KiB. */
const SMALL = '/main/hs/warehouses/get?code=W010'
/** W1000 … W1200: 201 rows, 12 KB, whole. */
const WHOLE = '/main/hs/warehouses/get?code=W1'

const decoded = (coding: string, bytes: Buffer) => (coding === 'br' ? brotliDecompressSync(bytes) : gunzipSync(bytes)).toString()

describe('Accept-Encoding', () => {
  it('br when acceptable, else gzip, else none; q=0 refuses; a greater q is preferred', () => {
    assert.equal(acceptedCoding(undefined), undefined)
    assert.equal(acceptedCoding(''), undefined)
    assert.equal(acceptedCoding('identity'), undefined)
    assert.equal(acceptedCoding('gzip, deflate, br, zstd'), 'br')
    assert.equal(acceptedCoding('gzip'), 'gzip')
    assert.equal(acceptedCoding('GZIP;Q=1'), 'gzip')
    assert.equal(acceptedCoding('br;q=0, gzip'), 'gzip')
    assert.equal(acceptedCoding('br;q=0.5, gzip;q=0.8'), 'gzip')
    assert.equal(acceptedCoding('gzip;q=0'), undefined)
    assert.equal(acceptedCoding('*'), 'br')
    assert.equal(acceptedCoding('*, br;q=0'), 'gzip')
    assert.equal(acceptedCoding('x-gzip'), 'gzip')
  })
})

for (const backend of BACKENDS)
  describe(`${backend}: compressed answers`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(fixture, { backend })
    })
    after(() => app.close())

    const raw = async (path: string, headers: Record<string, string> = {}) => {
      const res = await app.server.inject({ method: 'GET', url: path, headers: { ...AUTH, ...headers } })
      return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload }
    }

    it('without Accept-Encoding: the identity bytes, no Content-Encoding, Vary: accept-encoding', async () => {
      for (const [path, rows] of [
        [ALL, range(1, 1200)],
        [WHOLE, range(1000, 1200)],
        [SMALL, range(100, 109)],
      ] as const) {
        const res = await raw(path)
        assert.equal(res.status, 200)
        assert.equal(res.headers['content-encoding'], undefined)
        assert.equal(res.headers.vary, 'accept-encoding, accept')
        assert.equal(res.bytes.toString(), answerOf(rows))
      }
    })

    for (const coding of ['br', 'gzip']) {
      it(`${coding}: a whole answer and a streamed one decompress to the plain answer`, async () => {
        const whole = await raw(WHOLE, { 'accept-encoding': coding })
        assert.equal(whole.status, 200)
        assert.equal(whole.headers['content-encoding'], coding)
        assert.equal(whole.headers.vary, 'accept-encoding, accept')
        assert.equal(whole.headers['content-type'], 'application/json; charset=utf-8')
        assert.ok(whole.bytes.length < 12_000 / 4, `${whole.bytes.length} bytes`)
        assert.equal(decoded(coding, whole.bytes), answerOf(range(1000, 1200)))

        const streamed = await raw(ALL, { 'accept-encoding': coding })
        assert.equal(streamed.headers['content-encoding'], coding)
        assert.equal(streamed.headers['content-length'], undefined, 'sent as it was compressed')
        assert.equal(decoded(coding, streamed.bytes), answerOf(range(1, 1200)))
      })
    }

    it('an answer under 1 KiB goes as it is, Vary still said', async () => {
      const res = await raw(SMALL, { 'accept-encoding': 'br, gzip' })
      assert.equal(res.headers['content-encoding'], undefined)
      assert.equal(res.headers.vary, 'accept-encoding, accept')
      assert.equal(res.bytes.toString(), answerOf(range(100, 109)))
    })

    it('a coded answer has a tag of its own; If-None-Match with either names the answer', async () => {
      const plain = await raw(WHOLE)
      const br = await raw(WHOLE, { 'accept-encoding': 'br' })
      const tag = String(plain.headers.etag)
      assert.equal(br.headers.etag, `${tag.slice(0, -1)}-br"`)
      const revalidated = await raw(WHOLE, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) })
      assert.equal(revalidated.status, 304)
      assert.equal(revalidated.headers.etag, br.headers.etag)
      assert.equal(revalidated.bytes.length, 0)
      assert.equal((await raw(WHOLE, { 'if-none-match': `${tag.slice(0, -1)}-zstd"` })).status, 200)
    })
  })

for (const backend of BACKENDS)
  describe(`${backend}: compressed answers kept by the answer cache`, () => {
    let app: TestApp
    let cache: AnswerCache
    before(async () => {
      app = await startApp(fixture, { backend, answerCacheBytes: 8 << 20 })
      cache = app.server.executor as AnswerCache
    })
    after(() => app.close())

    const raw = async (path: string, headers: Record<string, string> = {}) => {
      const res = await app.server.inject({ method: 'GET', url: path, headers: { ...AUTH, ...headers } })
      return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload }
    }

    for (const [label, path, rows] of [
      ['whole', WHOLE, range(1000, 1200)],
      ['streamed', ALL, range(1, 1200)],
    ] as const) {
      it(`a kept ${label} answer is given compressed again and again with no compression`, async () => {
        const start = cache.compressions
        // First asking: remembered only, compressed; second: compressed and kept.
        for (let i = 0; i < 2; i++) assert.equal(decoded('br', (await raw(path, { 'accept-encoding': 'br' })).bytes), answerOf(rows))
        assert.equal(cache.compressions - start, 2)
        const hits = cache.stats.hits
        const third = await raw(path, { 'accept-encoding': 'br' })
        const fourth = await raw(path, { 'accept-encoding': 'br' })
        assert.equal(cache.compressions - start, 2, 'given as kept')
        assert.equal(cache.stats.hits - hits, 2)
        assert.equal(third.headers['content-encoding'], 'br')
        assert.deepEqual(fourth.bytes, third.bytes)
        assert.equal(decoded('br', fourth.bytes), answerOf(rows))
        // Each coding is its own entry; the plain answer is untouched.
        for (let i = 0; i < 3; i++) assert.equal(decoded('gzip', (await raw(path, { 'accept-encoding': 'gzip' })).bytes), answerOf(rows))
        assert.equal(cache.compressions - start, 4)
        for (let i = 0; i < 3; i++) {
          const plain = await raw(path)
          assert.equal(plain.headers['content-encoding'], undefined)
          assert.equal(plain.bytes.toString(), answerOf(rows))
        }
        assert.equal(cache.compressions - start, 4)
      })
    }

    it('the kept coded bytes are counted in the room', async () => {
      const before = cache.stats.bytes
      for (let i = 0; i < 3; i++) await raw(`${WHOLE}1`, { 'accept-encoding': 'gzip' })
      const coded = (await raw(`${WHOLE}1`, { 'accept-encoding': 'gzip' })).bytes
      assert.equal(cache.stats.bytes - before, coded.length + 1)
    })
  })
