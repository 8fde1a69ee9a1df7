// Operations (issue 11): /ready follows the store, draining and the sync's lag; /metrics
// parses as Prometheus text and its counters move by exactly the requests sent; request
// ids are kept or made, answered and logged; a 500 ends with its request id.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { tableDdl } from '../../src/store/schema.js'
import { SYNC_TABLES } from '../../src/sync/state/tables.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { BACKENDS, READER, basic } from '../support/app.js'
import { scrape, startOps } from './support.js'
import type { OpsApp } from './support.js'

const WAREHOUSES = '/main/hs/warehouses/get'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const reader = basic(READER.name, READER.password)

async function ready(ops: OpsApp): Promise<{ status: number; body: string }> {
  const res = await fetch(`${ops.admin}/ready`)
  return { status: res.status, body: await res.text() }
}

for (const backend of BACKENDS) {
  describe(`${backend}: admin listener: /live and /ready`, () => {
    let ops: OpsApp
    before(async () => {
      ops = await startOps(warehousesFixture, { backend })
    })
    after(() => ops.close())

    it('/live answers 200; unknown paths 404; other methods 405', async () => {
      const live = await fetch(`${ops.admin}/live`)
      assert.equal(live.status, 200)
      assert.equal(await live.text(), '{"live":true}')
      assert.equal((await fetch(`${ops.admin}/nothing`)).status, 404)
      assert.equal((await fetch(`${ops.admin}/ready`, { method: 'POST' })).status, 405)
    })

    it('/ready turns 503 when the store goes away and back to 200 when it returns', async () => {
      assert.deepEqual(await ready(ops), { status: 200, body: '{"ready":true}' })
      ops.away = true
      const down = await ready(ops)
      assert.equal(down.status, 503)
      assert.equal(down.body.includes('\n'), false)
      assert.deepEqual(JSON.parse(down.body), { ready: false, reason: 'store not answering: connect ECONNREFUSED 127.0.0.1:5432' })
      // The public API fails at the same time, and says which request failed.
      const data = await ops.app.get(WAREHOUSES, { ...reader, 'x-request-id': 'report-42' })
      assert.equal(data.status, 500)
      // In the API's words: where the store lives is for the operator (/ready, the log), not for any client.
      assert.deepEqual(data.json, { error: 'the store is unavailable; request id report-42' })
      const health = await ops.app.get('/main/hs/health', { ...reader, 'x-request-id': 'report-43' })
      assert.equal(health.status, 500)
      assert.equal(health.body, 'the store is unavailable; request id report-43')
      ops.away = false
      assert.deepEqual(await ready(ops), { status: 200, body: '{"ready":true}' })
    })

    it('/ready is 503 while the server drains', async () => {
      ops.app.server.draining = true
      try {
        assert.deepEqual(await ready(ops), { status: 503, body: '{"ready":false,"reason":"draining"}' })
      } finally {
        ops.app.server.draining = false
      }
      assert.equal((await ready(ops)).status, 200)
    })
  })

  describe(`${backend}: /ready and /metrics follow the sync's state in the store`, () => {
    let ops: OpsApp
    before(async () => {
      ops = await startOps(warehousesFixture, { backend, maxLagMs: 15 * 60_000 })
    })
    after(() => ops.close())

    it('no sync ever: ready, and the sync gauges say NaN', async () => {
      assert.equal((await ready(ops)).status, 200)
      const m = await scrape(ops.admin)
      assert.ok(Number.isNaN(m.value('docgate_sync_lag_seconds')))
      assert.ok(Number.isNaN(m.value('docgate_sync_last_success_timestamp_seconds')))
    })

    it('a sync that has run: ready only while its last complete cycle is younger than --max-lag', async () => {
      for (const t of SYNC_TABLES.filter((t) => t.name === 'sync_cycles' || t.name === 'sync_sets'))
        await ops.app.write(tableDdl(t, ops.app.sql.dialect))
      assert.equal((await ready(ops)).status, 200, 'tables without a cycle: no sync has run yet')

      const old = new Date(Date.now() - 20 * 60_000).toISOString()
      await ops.app.write("INSERT INTO sync_cycles (id, started_at, ended_at, status) VALUES (1, ?, '', 'running')", [old])
      assert.deepEqual(await ready(ops), {
        status: 503,
        body: '{"ready":false,"reason":"sync has run on this store but no cycle has completed"}',
      })
      assert.equal((await scrape(ops.admin)).value('docgate_sync_lag_seconds'), Infinity)

      await ops.app.write("UPDATE sync_cycles SET ended_at = ?, status = 'complete' WHERE id = 1", [old])
      const stale = await ready(ops)
      assert.equal(stale.status, 503)
      assert.match(JSON.parse(stale.body).reason, /^last complete sync cycle ended 120\d s ago \(max lag 900 s\)$/)

      const fresh = new Date().toISOString()
      await ops.app.write("INSERT INTO sync_cycles (id, started_at, ended_at, status) VALUES (2, ?, ?, 'complete')", [fresh, fresh])
      await ops.app.write("INSERT INTO sync_cycles (id, started_at, ended_at, status) VALUES (3, ?, ?, 'failed')", [fresh, fresh])
      assert.deepEqual(await ready(ops), { status: 200, body: '{"ready":true}' })

      await ops.app.write(
        "INSERT INTO sync_sets (entity_set, type, written_total, errors_total, last_error_at) VALUES ('Catalog_Склады', 'catalog', 7, 2, '2026-11-01T10:00:00.000Z'), ('Document_ПлатежноеПоручение', 'document', 40, 0, '')",
      )
      const m = await scrape(ops.admin)
      assert.equal(m.value('docgate_sync_last_success_timestamp_seconds'), Date.parse(fresh) / 1000)
      assert.ok(m.value('docgate_sync_lag_seconds')! < 60)
      assert.equal(m.value('docgate_sync_objects_written_total', { entity_set: 'Catalog_Склады' }), 7)
      assert.equal(m.value('docgate_sync_objects_written_total', { entity_set: 'Document_ПлатежноеПоручение' }), 40)
      assert.equal(m.value('docgate_sync_errors_total', { entity_set: 'Catalog_Склады' }), 2)
      assert.equal(m.value('docgate_sync_errors_total', { entity_set: 'Document_ПлатежноеПоручение' }), 0)
      assert.equal(
        m.value('docgate_sync_last_error_timestamp_seconds', { entity_set: 'Catalog_Склады' }),
        Date.parse('2026-11-01T10:00:00.000Z') / 1000,
      )
      assert.equal(m.value('docgate_sync_last_error_timestamp_seconds', { entity_set: 'Document_ПлатежноеПоручение' }), undefined)
    })
  })

  describe(`${backend}: /metrics`, () => {
    let ops: OpsApp
    before(async () => {
      ops = await startOps(warehousesFixture, { backend, users: [READER, { name: 'мишень', password: 'верный' }] })
    })
    after(() => ops.close())

    it('parses as Prometheus text, with the families and types promised', async () => {
      const m = await scrape(ops.admin)
      const expected: Record<string, string> = {
        docgate_http_requests_total: 'COUNTER',
        docgate_http_request_duration_seconds: 'HISTOGRAM',
        docgate_http_response_bytes_total: 'COUNTER',
        docgate_http_response_rows_total: 'COUNTER',
        docgate_http_requests_in_flight: 'GAUGE',
        docgate_auth_outcomes_total: 'COUNTER',
        docgate_auth_kdf_runs_total: 'COUNTER',
        docgate_auth_kdf_queue_length: 'GAUGE',
        docgate_store_query_duration_seconds: 'HISTOGRAM',
        docgate_sync_last_success_timestamp_seconds: 'GAUGE',
        docgate_sync_objects_written_total: 'COUNTER',
        docgate_sync_errors_total: 'COUNTER',
        nodejs_eventloop_lag_seconds: 'GAUGE',
        process_cpu_user_seconds_total: 'COUNTER',
        process_resident_memory_bytes: 'GAUGE',
      }
      for (const [name, type] of Object.entries(expected)) assert.equal(m.types.get(name), type, name)
    })

    it('counters move by exactly the requests sent', async () => {
      const before = await scrape(ops.admin)
      const base = (name: string, labels?: Record<string, string>) => before.value(name, labels) ?? 0
      const baseCount = (name: string, labels?: Record<string, string>) => before.count(name, labels) ?? 0

      const ok = await Promise.all([1, 2, 3].map(() => ops.app.get(WAREHOUSES, reader)))
      const refused = [
        await ops.app.get(WAREHOUSES, basic(READER.name, 'не тот')),
        await ops.app.get(WAREHOUSES, basic(READER.name, 'не тот')),
      ]
      const unknown = await ops.app.get('/main/hs/nope/get', reader)
      const health = await ops.app.get('/main/hs/health', reader)
      const preflight = await ops.app.request('OPTIONS', WAREHOUSES)
      assert.deepEqual(
        [...ok, ...refused, unknown, health, preflight].map((r) => r.status),
        [200, 200, 200, 401, 401, 404, 200, 204],
      )

      const m = await scrape(ops.admin)
      const delta = (name: string, labels?: Record<string, string>) => (m.value(name, labels) ?? 0) - base(name, labels)
      assert.equal(delta('docgate_http_requests_total', { service: 'warehouses', status: '200' }), 3)
      assert.equal(delta('docgate_http_requests_total', { service: 'warehouses', status: '401' }), 2)
      assert.equal(delta('docgate_http_requests_total', { service: 'warehouses', status: '204' }), 1)
      assert.equal(delta('docgate_http_requests_total', { service: 'unknown', status: '404' }), 1)
      assert.equal(delta('docgate_http_requests_total', { service: 'health', status: '200' }), 1)
      assert.equal(
        (m.count('docgate_http_request_duration_seconds', { service: 'warehouses' }) ?? 0) -
          baseCount('docgate_http_request_duration_seconds', { service: 'warehouses' }),
        6,
      )
      assert.equal(
        (m.count('docgate_http_request_duration_seconds', { service: 'health' }) ?? 0) -
          baseCount('docgate_http_request_duration_seconds', { service: 'health' }),
        1,
      )
      const okBytes = Buffer.byteLength(ok[0]!.body)
      assert.equal(
        delta('docgate_http_response_bytes_total', { service: 'warehouses' }),
        3 * okBytes + 2 * Buffer.byteLength('{"error":"Unauthorized"}'),
      )
      assert.equal(delta('docgate_http_response_rows_total', { service: 'warehouses' }), 3 * ok[0]!.json.data.length)
      assert.equal(delta('docgate_auth_outcomes_total', { outcome: 'granted' }), 4)
      assert.equal(delta('docgate_auth_outcomes_total', { outcome: 'refused' }), 2)
      assert.equal(delta('docgate_auth_outcomes_total', { outcome: 'throttled' }), 0)
      // One KDF for the reader (three concurrent requests share it, the rest hit the cache), one per wrong password.
      assert.equal(delta('docgate_auth_kdf_runs_total'), 3)
      assert.equal(m.value('docgate_http_requests_in_flight'), 0)
      assert.equal(m.value('docgate_auth_kdf_queue_length'), 0)
      // The list is one query per request; health's probe is one.
      assert.equal((m.count('docgate_store_query_duration_seconds') ?? 0) - baseCount('docgate_store_query_duration_seconds'), 4)
    })

    it('a refusal with Retry-After counts as throttled', async () => {
      const before = await scrape(ops.admin)
      const answers = []
      for (let i = 0; i < 12; i++) answers.push(await ops.app.get(WAREHOUSES, basic('мишень', `неверный ${i}`)))
      const withRetry = answers.filter((a) => a.headers['retry-after'] !== undefined).length
      const m = await scrape(ops.admin)
      const delta = (outcome: string) =>
        m.value('docgate_auth_outcomes_total', { outcome })! - before.value('docgate_auth_outcomes_total', { outcome })!
      assert.equal(withRetry, 3)
      assert.equal(delta('throttled'), 3)
      assert.equal(delta('refused'), 9)
    })
  })

  describe(`${backend}: request ids and the access log`, () => {
    let ops: OpsApp
    before(async () => {
      ops = await startOps(warehousesFixture, { backend })
    })
    after(() => ops.close())

    const lineOf = (id: string) => ops.access.lines.filter((l) => l.reqId === id)

    it('an X-Request-Id sent is echoed and is the id of the access-log line', async () => {
      const res = await ops.app.get(`${WAREHOUSES}?code=000000001&Full=true`, { ...reader, 'x-request-id': 'client-7f3a:ab/CD' })
      assert.equal(res.status, 200)
      assert.equal(res.headers['x-request-id'], 'client-7f3a:ab/CD')
      const lines = lineOf('client-7f3a:ab/CD')
      assert.equal(lines.length, 1)
      const { time, ms, ...line } = lines[0]!
      assert.equal(typeof time, 'number')
      assert.equal(typeof ms, 'number')
      assert.deepEqual(line, {
        level: 30,
        reqId: 'client-7f3a:ab/CD',
        method: 'GET',
        service: 'warehouses',
        params: ['code', 'Full'],
        user: 'reader',
        auth: 'granted',
        ip: '127.0.0.1',
        status: 200,
        rows: res.json.data.length,
        bytes: Buffer.byteLength(res.body),
      })
    })

    it('ids of 1..128 visible ASCII characters are kept; anything else is replaced by a UUID', async () => {
      const longest = 'x'.repeat(128)
      assert.equal((await ops.app.get('/nothing', { 'x-request-id': longest })).headers['x-request-id'], longest)
      for (const bad of ['x'.repeat(129), 'two words', 'идентификатор', '']) {
        const id = (await ops.app.get('/nothing', { 'x-request-id': bad })).headers['x-request-id']
        assert.match(String(id), UUID, JSON.stringify(bad))
      }
    })

    it('a path the router cannot decode still gets its id, its log line and its count', async () => {
      const before = await scrape(ops.admin)
      const res = await ops.app.get('/main/hs/%E4%E0/get', { 'x-request-id': 'undecodable' })
      assert.equal(res.status, 404)
      assert.equal(res.headers['x-request-id'], 'undecodable')
      await new Promise((r) => setImmediate(r))
      assert.deepEqual(
        lineOf('undecodable').map((l) => [l.service, l.status, l.bytes]),
        [['unknown', 404, Buffer.byteLength('{"error":"Not Found"}')]],
      )
      const m = await scrape(ops.admin)
      const labels = { service: 'unknown', status: '404' }
      assert.equal((m.value('docgate_http_requests_total', labels) ?? 0) - (before.value('docgate_http_requests_total', labels) ?? 0), 1)
    })

    it("a generated id is unique across 10,000 requests, and each is its access-log line's", async () => {
      const from = ops.access.lines.length
      const ids: string[] = []
      for (let batch = 0; batch < 100; batch++) {
        const answers = await Promise.all(Array.from({ length: 100 }, () => ops.app.get('/nothing')))
        for (const a of answers) ids.push(String(a.headers['x-request-id']))
      }
      assert.equal(ids.length, 10_000)
      assert.equal(new Set(ids).size, 10_000)
      assert.ok(ids.every((id) => UUID.test(id)))
      const logged = ops.access.lines.slice(from).map((l) => String(l.reqId))
      assert.deepEqual(new Set(logged), new Set(ids))
    })
  })
}
