import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { hashPassword } from '../../src/auth/password.js'
import { openWritable } from '../../src/app/store.js'
import { putUser } from '../../src/users/store.js'
import { basic, importFixture, tempDir } from '../support/app.js'
import { uuid } from '../support/refs.js'
import { LISTENING, refusal, startServe } from '../support/serve-process.js'

const WAREHOUSES = 3000

describe('docgate serve', () => {
  it('prints the listening line, serves, and on SIGTERM finishes the in-flight request and exits 0', async () => {
    const db = join(tempDir(), 'serve.db')
    const sql = await openWritable(db)
    const fixture = Array.from({ length: WAREHOUSES }, (_, i) => ({
      type: 'Справочник.Склады',
      ref: uuid(`w${i}`),
      Код: String(i).padStart(9, '0'),
      Наименование: `Склад номер ${i} с длинным названием для объёма ответа`,
    }))
    assert.equal((await importFixture(sql, fixture)).ok, true)
    await putUser(sql, 'оператор', await hashPassword('пароль', { logN: 10 }), ['*'])
    await sql.close()

    const server = startServe(['--db', db, '--port', '0'])
    const [, url] = await server.until(LISTENING)
    const auth = basic('оператор', 'пароль')
    const health = await fetch(`${url}/main/hs/health`, { headers: auth })
    assert.equal(health.status, 200)
    assert.deepEqual(await health.json(), { Статус: 'API доступен' })

    const inflight = fetch(`${url}/main/hs/warehouses/get`, { headers: auth })
    await new Promise((r) => setTimeout(r, 5))
    server.child.kill('SIGTERM')
    const res = await inflight
    assert.equal(res.status, 200)
    const body = (await res.json()) as { data: unknown[]; errors: unknown[] }
    assert.equal(body.data.length, WAREHOUSES)
    const [code] = await server.exited
    assert.equal(code, 0)
    await assert.rejects(fetch(`${url}/main/hs/health`, { headers: auth }))
  })

  it('writes one time format: the access log and the other log lines carry ISO times', async () => {
    const db = join(tempDir(), 'times.db')
    const sql = await openWritable(db)
    await putUser(sql, 'оператор', await hashPassword('пароль', { logN: 10 }), ['*'])
    await sql.close()
    const server = startServe(['--db', db, '--port', '0'], { DOCGATE_LOG_LEVEL: 'info' })
    const [, url] = await server.until(LISTENING)
    assert.equal((await fetch(`${url}/main/hs/health`, { headers: basic('оператор', 'пароль') })).status, 200)
    server.child.kill('SIGTERM')
    assert.equal((await server.exited)[0], 0)
    const lines = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    const access = lines.find((l) => l.service === 'health' && l.status === 200)
    const stopping = lines.find((l) => l.msg === 'stopping: finishing in-flight requests')
    assert.ok(access && stopping, server.output())
    const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
    assert.match(String(access.time), ISO)
    assert.match(String(stopping.time), ISO)
  })

  it('refuses a store whose read models an earlier docgate wrote, naming the command that updates it', async () => {
    const db = join(tempDir(), 'old.db')
    const sql = await openWritable(db)
    await putUser(sql, 'оператор', await hashPassword('пароль', { logN: 10 }), ['*'])
    // As an earlier definition of the payments read model would have left it.
    await sql.run("UPDATE meta SET value = 'earlier' WHERE key = 'read_model:api_payments'")
    await sql.close()

    const { code, line } = await refusal(['--db', db, '--port', '0'])
    assert.equal(code, 1)
    assert.equal(
      line,
      `docgate: the store predates its stored forms (api_payments); run \`docgate users list --db ${db}\` (any writing command) once to bring it up to date`,
    )

    // Any writing command migrates it; then it serves.
    await (await openWritable(db)).close()
    const server = startServe(['--db', db, '--port', '0'])
    const [, url] = await server.until(LISTENING)
    const res = await fetch(`${url}/main/hs/warehouses/get`, { headers: basic('оператор', 'пароль') })
    assert.equal(res.status, 200)
    assert.deepEqual(await res.json(), { data: [], errors: [] })
    server.child.kill('SIGTERM')
    assert.equal((await server.exited)[0], 0)
  })
})
