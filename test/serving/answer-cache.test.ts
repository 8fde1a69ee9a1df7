// Repeated answers kept by the store's answers generation (serving/answer-cache.ts): kept from
// the second asking, given again without running the request while no write names another
// generation, never kept with an `errors` entry, per day, whole streams only.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Readable } from 'node:stream'
import { Metrics } from '../../src/admin/metrics.js'
import { answerCache } from '../../src/serving/answer-cache.js'
import type { DataRequest, Execution, Executor } from '../../src/serving/executor.js'
import { inProcessExecutor } from '../../src/serving/in-process.js'
import { answersGen } from '../../src/views/generation.js'
import { migrate } from '../../src/views/migrate.js'
import type { SqlPort } from '../../src/store/sql.js'
import { uuid } from '../support/refs.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { VIEWS } from '../../src/endpoints/index.js'

const now = new Date(2026, 10, 20, 12)
const req = (service: string, query = '', at = now): DataRequest => ({ service, query, now: at })
const text = async (body: Buffer | Readable): Promise<string> =>
  (Buffer.isBuffer(body) ? body : Buffer.concat(await body.toArray())).toString()

/** `inner` counting the requests it runs. */
function counting(inner: Executor): Executor & { runs: number } {
  const counted = {
    runs: 0,
    execute(request: DataRequest, how: Execution) {
      counted.runs++
      return inner.execute(request, how)
    },
    close: () => inner.close(),
  }
  return counted
}

const payment = (n: number, number = `ЗР-${String(n).padStart(6, '0')}`) => ({
  type: 'Документ.ЗаявкаНаРасходованиеСредств',
  ref: uuid(`зр-${n}`),
  Номер: number,
  Дата: '2026-11-02T10:00:00',
  ДатаРасхода: '2026-11-03',
})

for (const backend of BACKENDS)
  describe(`answers kept by the store's generation (${backend})`, () => {
    let store: TestStore
    let sql: SqlPort
    before(async () => {
      store = await createTestStore(backend)
      await store.writer.close()
      assert.equal((await store.importMore([payment(1), payment(2), payment(3)])).ok, true)
      sql = await store.openReader()
    })
    after(async () => {
      await sql.close()
      await store.cleanup()
    })

    it('keeps an answer from its second asking and gives it until an import changes the generation', async () => {
      const inner = counting(inProcessExecutor(sql, 0))
      const cache = answerCache(inner, sql, { bytes: 1024 * 1024 })
      let rows = -1
      const how = { signal: new AbortController().signal, rows: (n: number) => (rows = n) }
      const first = await text(await cache.execute(req('payments', 'code=00000'), how))
      // The list's order: newest first, then by number descending.
      assert.match(first, /^\{"data":\[\{"Номер":"ЗР-000003".*\{"Номер":"ЗР-000002".*\{"Номер":"ЗР-000001".*\],"errors":\[\]\}$/)
      assert.equal(await text(await cache.execute(req('payments', 'code=00000'), how)), first)
      assert.equal(inner.runs, 2)
      rows = -1
      assert.equal(await text(await cache.execute(req('payments', 'code=00000'), how)), first)
      assert.equal(inner.runs, 2)
      // The rows of a kept answer are still told (access log, metrics).
      assert.equal(rows, 3)

      const before = await answersGen(sql)
      assert.equal((await store.importMore([payment(2, 'ЗР-000099')])).ok, true)
      assert.notEqual(await answersGen(sql), before)
      const changed = await text(await cache.execute(req('payments', 'code=00000'), how))
      assert.equal(inner.runs, 3)
      assert.match(changed, /^\{"data":\[\{"Номер":"ЗР-000003".*\{"Номер":"ЗР-000001".*\],"errors":\[\]\}$/)
      assert.doesNotMatch(changed, /ЗР-000002/)
      assert.equal(rows, 2)
      // The new answer is kept under the new generation.
      assert.equal(await text(await cache.execute(req('payments', 'code=00000'), how)), changed)
      assert.equal(inner.runs, 3)
      assert.deepEqual(cache.stats, { hits: 2, misses: 2, bytes: Buffer.byteLength(changed) + 1 })
    })

    it('never keeps an answer with an `errors` entry, and keeps each day apart', async () => {
      const inner = counting(inProcessExecutor(sql, 0))
      const cache = answerCache(inner, sql, { bytes: 1024 * 1024 })
      const how = { signal: new AbortController().signal }
      for (let i = 0; i < 3; i++) {
        const answer = await text(await cache.execute(req('payments', 'from=32.11.2026'), how))
        assert.match(answer, /"errors":\["Неверный формат даты в параметре from: \\"32\.11\.2026\\"/)
      }
      assert.equal(inner.runs, 3)
      // A cash statement without `to` ends today: the next day is another answer.
      for (let i = 0; i < 3; i++) await cache.execute(req('cashflows'), how)
      assert.equal(inner.runs, 5)
      await cache.execute(req('cashflows', '', new Date(2026, 10, 21, 9)), how)
      await cache.execute(req('cashflows', '', new Date(2026, 10, 21, 18)), how)
      assert.equal(inner.runs, 7)
      await cache.execute(req('cashflows', '', new Date(2026, 10, 21, 23)), how)
      assert.equal(inner.runs, 7)
    })
  })

for (const backend of BACKENDS)
  describe(`the answers generation (${backend})`, () => {
    it('is drawn anew by a migration', async () => {
      const store = await createTestStore(backend)
      try {
        const first = await answersGen(store.writer)
        assert.match(first, /^\d+$/)
        await store.writer.transaction(() => migrate(store.writer, VIEWS))
        assert.notEqual(await answersGen(store.writer), first)
      } finally {
        await store.writer.close()
        await store.cleanup()
      }
    })
  })

describe('answers kept from streams', () => {
  const chunks = (parts: readonly string[], fail = false): Readable =>
    Readable.from(
      (async function* () {
        for (const p of parts) yield Buffer.from(p)
        if (fail) throw new Error('read failed')
      })(),
      { objectMode: false },
    )
  const ENDING = ',"errors":[]}'
  /** A store whose generation never changes: only `meta` is read. */
  const still = { all: async () => [{ value: '7' }] } as unknown as SqlPort
  const how = { signal: new AbortController().signal }

  it('keeps a stream that ended whole, within a quarter of the room', async () => {
    let answer = ['{"data":[{"a":1}', ',{"a":2}]', ENDING]
    const inner = { runs: 0, execute: async () => (inner.runs++, chunks(answer)), close: async () => {} }
    const cache = answerCache(inner, still, { bytes: 4 * 64 })
    assert.equal(await text(await cache.execute(req('payments'), how)), '{"data":[{"a":1},{"a":2}],"errors":[]}')
    assert.equal(await text(await cache.execute(req('payments'), how)), '{"data":[{"a":1},{"a":2}],"errors":[]}')
    const kept = await cache.execute(req('payments'), how)
    assert.equal(Buffer.isBuffer(kept), true)
    assert.equal(kept.toString(), '{"data":[{"a":1},{"a":2}],"errors":[]}')
    assert.equal(inner.runs, 2)
    // 65 bytes: more than a quarter of 256.
    answer = ['{"data":[{"a":"', 'x'.repeat(34), '"}]', ENDING]
    for (let i = 0; i < 3; i++) assert.equal((await text(await cache.execute(req('orders'), how))).length, 65)
    assert.equal(inner.runs, 5)
  })

  it('does not keep a stream that failed', async () => {
    const inner = { runs: 0, execute: async () => (inner.runs++, chunks(['{"data":[{"a":1}'], true)), close: async () => {} }
    const cache = answerCache(inner, still, { bytes: 1024 })
    for (let i = 0; i < 3; i++) await assert.rejects(text(await cache.execute(req('payments'), how)), /read failed/)
    assert.equal(inner.runs, 3)
  })

  it('when full, keeps a new answer only in place of answers unused for a minute or of less build time together; a new generation empties it', async () => {
    // Every answer is 40 bytes (41 counted) and takes no time to build: six fill 256.
    const answerOf = (query: string) => Buffer.from(`{"data":[{"a":"${query.padEnd(9, '.')}"}]${ENDING}`)
    const inner = { runs: 0, execute: async (r: DataRequest) => (inner.runs++, answerOf(r.query)), close: async () => {} }
    let gen = '7'
    const store = { all: async () => [{ value: gen }] } as unknown as SqlPort
    let at = 0
    const cache = answerCache(inner, store, { bytes: 256, clock: () => at })
    const ask = async (query: string) =>
      assert.equal((await cache.execute(req('payments', query), how)).toString(), answerOf(query).toString())
    for (const q of ['a', 'b', 'c', 'd', 'e', 'f']) for (let i = 0; i < 3; i++) await ask(q)
    assert.equal(inner.runs, 12)
    at = 59_000
    await ask('a')
    // `g` is worth no more than any of them: built at each asking.
    for (let i = 0; i < 3; i++) await ask('g')
    assert.equal(inner.runs, 15)
    // `b` was last used at 0: more than a minute ago at 60,001, and gives way.
    at = 60_001
    for (let i = 0; i < 2; i++) await ask('g')
    assert.equal(inner.runs, 16)
    for (const q of ['a', 'g', 'c', 'd', 'e', 'f']) await ask(q)
    assert.equal(inner.runs, 16)
    // Every answer kept is of generation 7, and was used just now: the new generation's take their room.
    gen = '8'
    for (const q of ['a', 'b', 'c', 'd', 'e']) await ask(q)
    assert.equal(inner.runs, 21)
    for (const q of ['a', 'b', 'c', 'd', 'e']) await ask(q)
    assert.equal(inner.runs, 21)
  })

  it('keeps a heavy answer asked again though cheaper answers used within the minute fill the room, by build time per byte', async () => {
    // The sequence in small: full orders of random periods (110 bytes, 5 ms each) fill
    // the room, then the specifications of a material (240 bytes, 200 ms) and the warehouses
    // (240 bytes, 1 ms) are asked again. Room 1,000 bytes; each answer counts one byte more.
    const answers: Record<string, { size: number; ms: number }> = { spec: { size: 240, ms: 200 }, warehouses: { size: 240, ms: 1 } }
    for (let i = 1; i <= 9; i++) answers[`o${i}`] = { size: 110, ms: 5 }
    const answerOf = (query: string) => {
      const body = Buffer.from(`{"data":[{"q":"${query}","x":""}]${ENDING}`)
      const pad = answers[query]!.size - body.length
      return Buffer.from(`{"data":[{"q":"${query}","x":"${'x'.repeat(pad)}"}]${ENDING}`)
    }
    let at = 0
    const built: string[] = []
    const inner = {
      execute: async (r: DataRequest) => {
        built.push(r.query)
        at += answers[r.query]!.ms
        return answerOf(r.query)
      },
      close: async () => {},
    }
    const cache = answerCache(inner, still, { bytes: 1000, clock: () => at })
    const ask = async (query: string) => {
      assert.equal((await text(await cache.execute(req('any', query), how))).length, answers[query]!.size)
    }
    for (let i = 1; i <= 8; i++) for (let n = 0; n < 2; n++) await ask(`o${i}`)
    assert.equal(cache.stats.bytes, 888)
    // Its second asking takes the place of o1 and o2: 10 ms of builds for 200.
    for (let n = 0; n < 3; n++) await ask('spec')
    assert.equal(cache.stats.bytes, 6 * 111 + 241)
    // The warehouses would take the place of o3 and o4 (10 ms) and save 1 ms: not kept.
    for (let n = 0; n < 3; n++) await ask('warehouses')
    // o9 is worth what o3 is (5 ms for 111 bytes): equals do not replace each other.
    for (let n = 0; n < 3; n++) await ask('o9')
    // A minute on, only the specification and o5–o8 were used since: o3 and o4 give way to the warehouses.
    at += 30_000
    for (const q of ['spec', 'o5', 'o6', 'o7', 'o8']) await ask(q)
    at += 30_001
    await ask('warehouses')
    // Kept: the specification, the warehouses and o5–o8; built again: the others.
    built.length = 0
    for (const q of ['spec', 'warehouses', 'o5', 'o6', 'o7', 'o8']) await ask(q)
    assert.deepEqual(built, [])
    assert.equal(cache.stats.bytes, 4 * 111 + 2 * 241)
    for (const q of ['o1', 'o2', 'o3', 'o4', 'o9']) await ask(q)
    assert.deepEqual(built, ['o1', 'o2', 'o3', 'o4', 'o9'])
  })

  it('counts its hits, its misses and the bytes it keeps in the metrics', async () => {
    const inner = { execute: async () => Buffer.from(`{"data":[]${ENDING}`), close: async () => {} }
    const cache = answerCache(inner, still, { bytes: 1024 })
    const metrics = new Metrics()
    metrics.watchAnswerCache(() => cache.stats)
    for (let i = 0; i < 4; i++) await cache.execute(req('payments'), how)
    const text = await metrics.text()
    assert.match(text, /^docgate_answer_cache_hits_total 2$/m)
    assert.match(text, /^docgate_answer_cache_misses_total 1$/m)
    assert.match(text, /^docgate_answer_cache_bytes 24$/m)
  })

  it('refuses a cache with no room (serve then uses the executor itself)', () => {
    const inner = { execute: async () => Buffer.alloc(0), close: async () => {} }
    assert.throws(() => answerCache(inner, still, { bytes: 0 }), {
      name: 'RangeError',
      message: 'an answer cache of 0 bytes keeps nothing',
    })
  })
})
