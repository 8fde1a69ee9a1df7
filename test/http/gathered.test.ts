// An answer read whole from ready pages is kept as its pieces and leaves the route in one
// gathered write on the raw response (http/gathered.ts): its Content-Length, the headers
// every answer gets, never chunked, the same bytes as any other way of reading it
// (decision "An answer of ready pages is sent as its pieces").
import assert from 'node:assert/strict'
import { request } from 'node:http'
import type { IncomingHttpHeaders } from 'node:http'
import { gunzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { answer } from '../../src/pipeline/run.js'
import { WholeAnswer } from '../../src/serving/answer-stream.js'
import { inProcessExecutor } from '../../src/serving/in-process.js'
import type { SqlPort } from '../../src/store/sql.js'
import { READER, basic } from '../support/app.js'
import { filledStore, listenLive } from '../support/live.js'
import type { LiveServer } from '../support/live.js'
import { uuid } from '../support/refs.js'
import { BACKENDS } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

const now = new Date('2026-11-20T12:00:00Z')
const PERIOD = '/main/hs/payments/get?from=01.11.2026&to=03.11.2026'
// 30 payments whose expense dates spread over ten days: three a day, a ready page each.
const payments = Array.from({ length: 30 }, (_, i) => ({
  type: 'Документ.ЗаявкаНаРасходованиеСредств',
  ref: uuid(`зр-${i + 1}`),
  Номер: `ЗР-${String(i + 1).padStart(6, '0')}`,
  Дата: '2026-11-02T10:00:00',
  ДатаРасхода: `2026-11-${String(1 + (i % 10)).padStart(2, '0')}`,
}))

interface Got {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

function get(url: string, method = 'GET', headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...basic(READER.name, READER.password), ...headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.once('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.once('error', reject)
    })
    req.once('error', reject)
    req.end()
  })
}

for (const backend of BACKENDS)
  describe(`an answer of ready pages sent as its pieces (${backend})`, () => {
    let store: TestStore
    let server: LiveServer
    let sql: SqlPort
    before(async () => {
      store = await filledStore(backend, payments, [READER])
      server = await listenLive(store)
      sql = await store.openReader()
    })
    after(async () => {
      await sql.close()
      await server.close()
    })

    it('is the envelope and the period’s three pages (newest first), unjoined, the bytes the pipeline gives', async () => {
      const loop = inProcessExecutor(sql, 0)
      const body = await loop.attempt(
        { service: 'payments', query: 'from=01.11.2026&to=03.11.2026', now },
        { signal: new AbortController().signal },
      )
      assert.ok(body instanceof WholeAnswer)
      // `{"data":[`, a page, `,`, a page, `,`, a page, `],"errors":[]}`
      assert.equal(body.parts.length, 7)
      assert.equal(body.parts[0]!.toString(), '{"data":[')
      assert.equal(body.parts.at(-1)!.toString(), '],"errors":[]}')
      const joined = Buffer.concat(body.parts)
      assert.equal(body.length, joined.length)
      // Read as a stream (the answer cache, a compressor, MCP) it gives the same bytes.
      assert.deepEqual(Buffer.concat(await body.toArray()), joined)
      const whole = await answer('payments', 'from=01.11.2026&to=03.11.2026', { sql, now: () => now })
      const chunks: Buffer[] = []
      for await (const chunk of Buffer.isBuffer(whole) ? [whole] : whole) chunks.push(chunk)
      assert.deepEqual(Buffer.concat(chunks), joined)
      assert.deepEqual(
        JSON.parse(joined.toString()).data.map((p: { Номер: string }) => p.Номер),
        ['ЗР-000023', 'ЗР-000013', 'ЗР-000003', 'ЗР-000022', 'ЗР-000012', 'ЗР-000002', 'ЗР-000021', 'ЗР-000011', 'ЗР-000001'],
      )
    })

    it('goes out with its Content-Length and every answer’s headers, never chunked; HEAD and gzip too', async () => {
      const res = await get(server.url + PERIOD)
      assert.equal(res.status, 200)
      assert.equal(res.headers['content-length'], String(res.body.length))
      assert.equal(res.headers['transfer-encoding'], undefined)
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(res.headers['cache-control'], 'no-store')
      assert.equal(res.headers['x-content-type-options'], 'nosniff')
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/)
      assert.match(String(res.headers.etag), /^"[^"]+"$/)
      assert.equal(JSON.parse(res.body.toString()).data.length, 9)

      const head = await get(server.url + PERIOD, 'HEAD')
      assert.equal(head.status, 200)
      assert.equal(head.headers['content-length'], String(res.body.length))
      assert.equal(head.body.length, 0)

      const zipped = await get(server.url + PERIOD, 'GET', { 'accept-encoding': 'gzip' })
      assert.equal(zipped.headers['content-encoding'], 'gzip')
      assert.deepEqual(gunzipSync(zipped.body), res.body)
    })
  })
