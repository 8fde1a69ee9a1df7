// The worker pool behind the API: the same bytes as in-process, a time limit that answers
// 500 and leaves the server answering, a client gone stopping its request's work, a lost
// worker replaced, and a store the workers cannot write.
import assert from 'node:assert/strict'
import { inProcessExecutor } from '../../src/serving/in-process.js'
import { randomBytes } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { Authenticator } from '../../src/auth/authenticator.js'
import { hashPassword } from '../../src/auth/password.js'
import { writeDemo } from '../../src/cli/demo.js'
import { buildServer } from '../../src/http/server.js'
import { WorkerPool } from '../../src/serving/pool.js'
import { answerCache } from '../../src/serving/answer-cache.js'
import { compressing } from '../../src/serving/compress.js'
import type { Executor } from '../../src/serving/executor.js'
import type { PoolOptions } from '../../src/serving/pool.js'
import type { SqlPort } from '../../src/store/sql.js'
import { UserSnapshot } from '../../src/users/directory.js'
import { putUser } from '../../src/users/store.js'
import { basic, importFixture } from '../support/app.js'
import { uuid } from '../support/refs.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { Backend, TestStore } from '../support/stores.js'

const NOW = new Date('2026-11-20T12:00:00Z')
const AUTH = basic('оператор', 'пароль')
const HOOKED = new URL('./hooked-worker.js', import.meta.url)
const ATTACHMENT_BYTES = 6 * 1024 * 1024
// Base64 of the attachment alone: the big answer is at least this long.
const BIG_ANSWER = (ATTACHMENT_BYTES / 3) * 4
const REQUEST = 'Документ.ЗаявкаНаРасходованиеСредств'

// Besides the demo set: 3,000 warehouses (a list streamed over several pages) and an
// expense request carrying a 6 MB attachment (its full form is an 8 MB stream).
const extra = [
  ...Array.from({ length: 3000 }, (_, i) => ({
    type: 'Справочник.Склады',
    ref: uuid(`pool-w${i}`),
    Код: `П${String(i).padStart(8, '0')}`,
    Наименование: `Склад пула ${i}`,
  })),
  {
    type: REQUEST,
    ref: uuid('pool-big'),
    Номер: 'ЗР-99999',
    Дата: '2026-11-10T10:00:00',
    ДатаРасхода: '2026-11-12',
    СуммаДокумента: 1,
    Проведен: true,
  },
  {
    type: 'Справочник.ХранилищеДополнительнойИнформации',
    ref: uuid('pool-big-file'),
    Наименование: 'скан.bin',
    Объект: { type: REQUEST, ref: uuid('pool-big') },
    ИмяФайла: 'скан.bin',
    Данные: randomBytes(ATTACHMENT_BYTES).toString('base64'),
  },
]

const BIG = '/main/hs/payments/get?full=true&from=2026-11-01&to=2026-11-30'

interface Served {
  readonly url: string
  readonly inject: (path: string) => Promise<{ status: number; type: string; body: Buffer }>
  close(): Promise<void>
}

async function serveWith(store: SqlPort, executor?: Executor): Promise<Served> {
  const users = new UserSnapshot(store)
  await users.start()
  const auth = new Authenticator({ users, dummyHash: await hashPassword('dummy', { logN: 10 }) })
  const app = buildServer({ sql: store, auth, logger: false, now: () => NOW, executor: executor ?? inProcessExecutor(store, 0) })
  await app.listen({ host: '127.0.0.1', port: 0 })
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    async inject(path) {
      const res = await app.inject({ method: 'GET', url: path, headers: AUTH })
      return { status: res.statusCode, type: String(res.headers['content-type']), body: res.rawPayload }
    },
    async close() {
      users.stop()
      await app.close()
    },
  }
}

async function demoStore(backend: Backend): Promise<TestStore> {
  const store = await createTestStore(backend)
  await writeDemo(store.writer, 0.1, 1, true)
  const report = await importFixture(store.writer, extra)
  assert.equal(report.ok, true, JSON.stringify(report.invalid))
  await putUser(store.writer, 'оператор', await hashPassword('пароль', { logN: 10 }), ['*'])
  await store.writer.close()
  return store
}

interface Got {
  readonly status: number
  readonly body: Buffer
  /** The body arrived whole (a cut connection leaves it false). */
  readonly complete: boolean
}

/** GET over a socket; `hold` lets the test decide when the body is read (or that it never is). */
function get(
  url: string,
  hold?: (res: { pause(): void; resume(): void; destroy(): void }) => Promise<'read' | 'drop'>,
  headers: Record<string, string> = {},
): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { ...AUTH, ...headers } }, async (res) => {
      const parts: Buffer[] = []
      res.on('data', (c: Buffer) => parts.push(c))
      res.on('error', () => {})
      res.once('close', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts), complete: res.complete }))
      if (!hold) return
      res.pause()
      if ((await hold(res)) === 'drop') req.destroy()
      else res.resume()
    })
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)))
    req.end()
  })
}

/** Waits (bounded) until `ready` holds: the pool's counters move when its workers report. */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !ready(); i++) await new Promise((r) => setTimeout(r, 10))
  assert.ok(ready(), `timed out waiting for ${what}`)
}

const errorOf = (got: Got): string => (JSON.parse(got.body.toString()) as { error: string }).error

const start = (store: TestStore, options: Partial<PoolOptions>) =>
  WorkerPool.start({ db: store.location, size: 1, timeLimitMs: 0, entry: HOOKED, ...options })

for (const backend of BACKENDS.filter((b) => b !== 'pglite')) {
  describe(`worker pool (${backend})`, () => {
    let store: TestStore
    let reader: SqlPort
    before(async () => {
      store = await demoStore(backend)
      reader = await store.openReader()
    })
    after(async () => {
      await reader.close()
      await store.cleanup()
    })

    it('answers every request with the same status and bytes as the in-process path', async () => {
      const pool = await WorkerPool.start({ db: store.location, size: 2, timeLimitMs: 30_000 })
      const here = await serveWith(reader)
      const there = await serveWith(reader, pool)
      try {
        const paths = [
          '/main/hs/warehouses/get',
          '/main/hs/warehouses/get?code=П00000007',
          '/main/hs/payments/get',
          BIG,
          '/main/hs/payments/get?full=maybe',
          '/main/hs/orders/get?full=true&from=2026-13-45&to=2026-11-30',
          '/main/hs/orders/get?full=true',
          '/main/hs/receipts/get?full=true&from=yesterday',
          '/main/hs/sorders/get?full=true',
          '/main/hs/specifications/get',
          '/main/hs/materials/get',
          '/main/hs/cashflows/get',
          '/main/hs/cashflows/get?totals=true',
          '/main/hs/nosuch/get',
        ]
        let withErrors = 0
        let biggest = 0
        for (const path of paths) {
          const [a, b] = await Promise.all([here.inject(path), there.inject(path)])
          assert.deepEqual([b.status, b.type], [a.status, a.type], path)
          assert.ok(b.body.equals(a.body), `${path}: ${b.body.length} bytes against ${a.body.length}`)
          if (/"errors":\["/.test(a.body.subarray(-2000).toString())) withErrors++
          biggest = Math.max(biggest, a.body.length)
        }
        // The set covers answers with `errors` entries and one streamed over many chunks.
        assert.ok(withErrors >= 2, `answers with errors entries: ${withErrors}`)
        assert.ok(biggest > BIG_ANSWER, `biggest answer: ${biggest}`)
        assert.deepEqual(pool.stats, { served: paths.length - 1, stopped: 0, failed: 0, replaced: 0 })
      } finally {
        await there.close()
        await here.close()
        await pool.close()
      }
    })

    it('a request over the time limit gets 500 naming the limit; the server keeps answering', async () => {
      const pool = await start(store, { timeLimitMs: 100, graceMs: 60_000 })
      const server = await serveWith(reader, pool)
      try {
        const late = await get(`${server.url}${BIG}&hook=sleep`)
        assert.equal(late.status, 500)
        assert.match(
          errorOf(late),
          /^request stopped: it ran longer than the time limit of 100 ms \(serve --request-timeout\); request id [\w-]+$/,
        )
        assert.equal((await get(`${server.url}/main/hs/health`)).status, 200)
        const next = await get(`${server.url}/main/hs/warehouses/get?code=П00000007`)
        assert.equal(next.status, 200)
        assert.equal((JSON.parse(next.body.toString()) as { data: unknown[] }).data.length, 1)
        assert.deepEqual(pool.stats, { served: 1, stopped: 1, failed: 0, replaced: 0 })
      } finally {
        await server.close()
        await pool.close()
      }
    })

    it('a limit reached while streaming cuts the connection: no valid-looking truncated body', async () => {
      const pool = await start(store, { timeLimitMs: 300, graceMs: 60_000 })
      const server = await serveWith(reader, pool)
      try {
        // The client takes nothing after the headers, so the worker waits for credit until the limit.
        const got = await get(`${server.url}${BIG}`, async () => {
          await until(() => pool.stats.stopped === 1, 'the stopped request')
          return 'read'
        })
        assert.equal(got.status, 200)
        assert.equal(got.complete, false)
        assert.ok(got.body.length < BIG_ANSWER, `received ${got.body.length} bytes`)
        assert.throws(() => JSON.parse(got.body.toString()))
        assert.equal((await get(`${server.url}/main/hs/health`)).status, 200)
        assert.deepEqual(pool.stats, { served: 0, stopped: 1, failed: 0, replaced: 0 })
      } finally {
        await server.close()
        await pool.close()
      }
    })

    it("a streamed answer's chunk buffers go back to the worker once written; those the cache keeps or a compressor takes do not", async () => {
      const pool = await start(store, {})
      const here = await serveWith(reader)
      const served = await serveWith(reader, pool)
      const cached = await serveWith(reader, answerCache(pool, reader, { bytes: 256 * 1024 * 1024 }))
      const zipped = await serveWith(reader, compressing(pool))
      try {
        const want = (await here.inject(BIG)).body
        assert.ok(want.length > BIG_ANSWER, `answer of ${want.length} bytes`)
        const first = await get(`${served.url}${BIG}`)
        assert.ok(first.body.equals(want), 'the first answer')
        // Pieces of 256 KiB, filled across the answer's chunks (all full but the last), each
        // given back once written.
        const { lent } = pool.lending
        assert.equal(lent, Math.ceil(want.length / (256 * 1024)), `chunks lent for ${want.length} bytes`)
        await until(() => pool.lending.back === lent, 'every written chunk given back')

        // The answer cache keeps an answer asked a second time: the first passes through and
        // its chunks go back; the kept one's do not, and its bytes stay right while the next
        // answer fills the given-back buffers again.
        const passed = await get(`${cached.url}${BIG}`)
        assert.ok(passed.body.equals(want), 'the answer the cache lets pass')
        await until(() => pool.lending.back === 2 * lent, 'the passed answer given back')
        const kept = await get(`${cached.url}${BIG}`)
        assert.ok(kept.body.equals(want), 'the answer the cache keeps')
        assert.deepEqual(pool.lending, { lent: 3 * lent, back: 2 * lent })
        const again = await get(`${served.url}${BIG}`)
        assert.ok(again.body.equals(want), 'an answer through given-back buffers')
        await until(() => pool.lending.back === 3 * lent, 'the next answer given back')
        const fromCache = await get(`${cached.url}${BIG}`)
        assert.ok(fromCache.body.equals(want), 'the kept answer, after its buffers could have been reused')
        assert.deepEqual(pool.lending, { lent: 4 * lent, back: 3 * lent })

        // Compressed: the compressor reads the chunks, the socket writes its output.
        const gz = await get(`${zipped.url}${BIG}`, undefined, { 'accept-encoding': 'gzip' })
        assert.ok(gunzipSync(gz.body).equals(want), 'the compressed answer')
        assert.deepEqual(pool.lending, { lent: 5 * lent, back: 3 * lent })
      } finally {
        await zipped.close()
        await cached.close()
        await served.close()
        await here.close()
        await pool.close()
      }
    })

    it('a client that disconnects mid-stream stops the work; the same worker takes the next request', async () => {
      const pool = await start(store, {})
      const server = await serveWith(reader, pool)
      try {
        const [thread] = pool.threads
        const got = await get(`${server.url}${BIG}`, async () => 'drop')
        assert.equal(got.complete, false)
        await until(() => pool.stats.stopped === 1, 'the stopped request')
        assert.deepEqual(pool.stats, { served: 0, stopped: 1, failed: 0, replaced: 0 })
        const next = await get(`${server.url}/main/hs/warehouses/get?code=П00000007`)
        assert.equal(next.status, 200)
        assert.deepEqual(pool.threads, [thread])
        assert.deepEqual(pool.stats, { served: 1, stopped: 1, failed: 0, replaced: 0 })
      } finally {
        await server.close()
        await pool.close()
      }
    })

    it('a worker stuck past the limit and its grace is terminated and replaced; its request gets 500', async () => {
      const pool = await start(store, { timeLimitMs: 100, graceMs: 100 })
      const server = await serveWith(reader, pool)
      try {
        const [thread] = pool.threads
        const stuck = await get(`${server.url}/main/hs/warehouses/get?hook=stuck`)
        assert.equal(stuck.status, 500)
        assert.match(
          errorOf(stuck),
          /^request stopped: it ran longer than the time limit of 100 ms \(serve --request-timeout\); request id /,
        )
        // The replacement starts (module loading, its store) in longer than this pool's 100 ms limit.
        await until(() => pool.threads.length === 1, 'the replacement worker')
        const next = await get(`${server.url}/main/hs/warehouses/get?code=П00000007`)
        assert.equal(next.status, 200)
        assert.equal(pool.threads.length, 1)
        assert.notEqual(pool.threads[0], thread)
        assert.deepEqual(pool.stats, { served: 1, stopped: 1, failed: 0, replaced: 1 })
      } finally {
        await server.close()
        await pool.close()
      }
    })

    it('a crashed worker is replaced; its in-flight request gets 500 with the request id', async () => {
      const pool = await start(store, {})
      const server = await serveWith(reader, pool)
      try {
        const [thread] = pool.threads
        const crashed = await get(`${server.url}/main/hs/warehouses/get?hook=crash`)
        assert.equal(crashed.status, 500)
        assert.match(errorOf(crashed), /^the serving worker stopped unexpectedly \(worker crashed on purpose\); request id [\w-]+$/)
        const next = await get(`${server.url}/main/hs/warehouses/get?code=П00000007`)
        assert.equal(next.status, 200)
        assert.notEqual(pool.threads[0], thread)
        assert.deepEqual(pool.stats, { served: 1, stopped: 0, failed: 1, replaced: 1 })
      } finally {
        await server.close()
        await pool.close()
      }
    })

    it("a worker's store is read-only: a write from the serving path throws and changes nothing", async () => {
      const pool = await start(store, {})
      const server = await serveWith(reader, pool)
      try {
        const write = await get(`${server.url}/main/hs/warehouses/get?hook=write`)
        assert.equal(write.status, 500)
        assert.match(errorOf(write), /read-?only/i)
        assert.deepEqual(await reader.all('SELECT name FROM users'), [{ name: 'оператор' }])
        assert.deepEqual(pool.stats, { served: 0, stopped: 0, failed: 1, replaced: 0 })
      } finally {
        await server.close()
        await pool.close()
      }
    })
  })
}

describe('worker pool heap', () => {
  it("bounds each worker's old generation at 512 MiB (560 with the young generation)", async () => {
    const store = await createTestStore('sqlite')
    await store.writer.close()
    const pool = await start(store, {})
    try {
      const signal = new AbortController().signal
      await assert.rejects(pool.execute({ service: 'warehouses', query: 'hook=heap', now: NOW }, { signal }), /^Error: heap limit 560 MiB$/)
    } finally {
      await pool.close()
      await store.cleanup()
    }
  })
})

describe('worker pool start', () => {
  it('fails with one line when the store cannot be opened', async () => {
    await assert.rejects(WorkerPool.start({ db: '/nonexistent/docgate.db', size: 2, timeLimitMs: 0 }), {
      message: 'store missing: /nonexistent/docgate.db',
    })
  })
})
