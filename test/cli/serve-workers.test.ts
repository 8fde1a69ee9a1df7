// `docgate serve --workers N --request-timeout D`: the data requests answered by the pool
// with their rows in the access log and metrics; `--workers 0` answers the same in-process;
// bad values are refused in one line.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { hashPassword } from '../../src/auth/password.js'
import { openWritable } from '../../src/app/store.js'
import { putUser } from '../../src/users/store.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { basic, importFixture, tempDir } from '../support/app.js'
import { LISTENING, refusal, startServe } from '../support/serve-process.js'

const AUTH = basic('оператор', 'пароль')

async function store(): Promise<string> {
  const db = join(tempDir(), 'serve.db')
  const sql = await openWritable(db)
  assert.equal((await importFixture(sql, warehousesFixture)).ok, true)
  await putUser(sql, 'оператор', await hashPassword('пароль', { logN: 10 }), ['*'])
  await sql.close()
  return db
}

async function metric(admin: string, name: string): Promise<{ labels: Record<string, string>; value?: string; count?: string }[]> {
  const families = parsePrometheusTextFormat(await (await fetch(`${admin}/metrics`)).text())
  return (families.find((f) => f.name === name)?.metrics ?? []) as { labels: Record<string, string>; value?: string; count?: string }[]
}

describe('docgate serve --workers', () => {
  it('answers through the worker pool: rows reach the access log and metrics, store reads the query histogram', async () => {
    const db = await store()
    const server = startServe(['--db', db, '--port', '0', '--admin-port', '0', '--workers', '2', '--request-timeout', '10s'])
    const [, url] = await server.until(LISTENING)
    const [, admin] = await server.until(/^admin \(live, ready, metrics\) on (http:\/\/127\.0\.0\.1:\d+)$/m)
    const queries = async () => Number((await metric(admin!, 'docgate_store_query_duration_seconds'))[0]?.count ?? 0)
    const before = await queries()
    // Two characters: no trigram index to count the rows by, so a worker answers.
    const res = await fetch(`${url}/main/hs/warehouses/get?name=ск`, { headers: { ...AUTH, 'x-request-id': 'pooled-1' } })
    assert.equal(res.status, 200)
    const body = (await res.json()) as { data: { Код: string }[] }
    assert.deepEqual(body.data.map((w) => w.Код).sort(), [
      '000000001',
      '000000002',
      '000000010',
      '000000011',
      '000000012',
      '00_%\\1',
      'A-1',
    ])
    const [line] = await server.until(/^\{.*"reqId":"pooled-1".*\}$/m)
    assert.deepEqual([JSON.parse(line).status, JSON.parse(line).rows], [200, 7])
    assert.deepEqual(await metric(admin!, 'docgate_http_response_rows_total'), [{ labels: { service: 'warehouses' }, value: '7' }])
    assert.ok((await queries()) > before, 'the workers report their store reads')
    server.child.kill('SIGTERM')
    assert.deepEqual(await server.exited, [0, null])
  })

  it('--workers 0 serves in-process with the same answer', async () => {
    const db = await store()
    const server = startServe(['--db', db, '--port', '0', '--workers', '0', '--access-log', 'off'])
    const [, url] = await server.until(LISTENING)
    const res = await fetch(`${url}/main/hs/warehouses/get?code=A-1`, { headers: AUTH })
    assert.equal(res.status, 200)
    assert.deepEqual(
      ((await res.json()) as { data: { Наименование: string }[] }).data.map((w) => w.Наименование),
      ['Ёлочный склад'],
    )
    server.child.kill('SIGTERM')
    assert.deepEqual(await server.exited, [0, null])
  })

  it('refuses bad --workers and --request-timeout values in one line', async () => {
    const db = await store()
    for (const [flag, value, message] of [
      ['--workers', 'many', 'docgate: --workers must be 0..256, got "many"'],
      ['--workers', '1.5', 'docgate: --workers must be 0..256, got "1.5"'],
      ['--request-timeout', '25h', 'docgate: --request-timeout must be at most 24h (0: no limit), got "25h"'],
      ['--request-timeout', 'soon', 'docgate: --request-timeout must be a duration such as 900, 90s, 15m or 1h, got "soon"'],
    ] as const) {
      assert.deepEqual(await refusal(['--db', db, '--port', '0', flag, value]), { code: 1, line: message })
    }
  })
})
