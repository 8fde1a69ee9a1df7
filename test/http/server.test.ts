import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { BACKENDS, READER, basic, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'

const REALM = 'Basic realm="docgate", charset="UTF-8"'
const CYRILLIC = { name: 'Иванов Иван', password: 'пароль№1' }
const PAYMENTS_ONLY = { name: 'кассир', password: 'секрет', methods: ['payments'] }
const WAREHOUSES_ONLY = { name: 'кладовщик', password: 'секрет', methods: ['warehouses'] }
const NO_METHODS = { name: 'без прав', password: 'секрет', methods: [] }

// Single-byte encodings of the Cyrillic letters used above, by hand (no iconv needed).
const CP1251: Record<string, number> = Object.fromEntries(
  [...'АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдежзийклмнопрстуфхцчшщъыьэюя'].map((c, i) => [c, 0xc0 + i]),
)
const cp1251 = (text: string) => Buffer.from([...text].map((c) => CP1251[c] ?? (c === '№' ? 0xb9 : c.charCodeAt(0))))
const latin1 = (text: string) => Buffer.from([...text].map((c) => c.charCodeAt(0) & 0xff))
const header = (bytes: Buffer) => ({ authorization: `Basic ${bytes.toString('base64')}` })

for (const backend of BACKENDS) describe(`${backend}: HTTP: authentication, headers, health, errors`, () => {
  let app: TestApp
  before(async () => {
    app = await startApp(warehousesFixture, { backend, users: [READER, CYRILLIC, PAYMENTS_ONLY, WAREHOUSES_ONLY, NO_METHODS, { name: 'уволенный', password: 'x' }] })
  })
  after(() => app.close())

  const expect401 = async (headers: Record<string, string>, path = '/main/hs/warehouses/get') => {
    const res = await app.get(path, headers)
    assert.equal(res.status, 401)
    assert.equal(res.headers['www-authenticate'], REALM)
    assert.equal(res.headers['access-control-allow-origin'], undefined)
    assert.equal(res.body, '{"error":"Unauthorized"}')
  }

  it('a Cyrillic user name and password encoded as UTF-8 get 200', async () => {
    const res = await app.get('/main/hs/warehouses/get', basic(CYRILLIC.name, CYRILLIC.password))
    assert.equal(res.status, 200)
  })

  it('the same credentials as cp1251 bytes get 401', () => expect401(header(cp1251(`${CYRILLIC.name}:${CYRILLIC.password}`))))
  it('the same credentials as per-character Latin-1 get 401', () => expect401(header(latin1(`${CYRILLIC.name}:${CYRILLIC.password}`))))
  it('malformed Base64 gets 401', () => expect401({ authorization: 'Basic !!cmVhZGVy0L/QsNGA0L7Qu9GM' }))
  it('a missing Authorization header gets 401', () => expect401({}))
  it('a wrong password gets 401', () => expect401(basic(READER.name, 'не тот')))
  it('an unknown user gets 401', () => expect401(basic('никто', 'пароль')))
  it('a user not granted the service gets 401, and 200 where granted', async () => {
    await expect401(basic(PAYMENTS_ONLY.name, PAYMENTS_ONLY.password))
    assert.equal((await app.get('/main/hs/warehouses/get', basic(WAREHOUSES_ONLY.name, WAREHOUSES_ONLY.password))).status, 200)
  })
  it('two Authorization headers get 401', async () => {
    const res = await app.get('/main/hs/warehouses/get', { ...basic(READER.name, READER.password), Authorization: 'Basic eDp5' })
    // inject folds same-named headers into one; either way it must not be a 200
    assert.equal(res.status, 401)
  })

  it('a revoked user gets 401 within one second', async () => {
    const cred = basic('уволенный', 'x')
    assert.equal((await app.get('/main/hs/warehouses/get', cred)).status, 200)
    await app.write('DELETE FROM users WHERE name = ?', ['уволенный'])
    await new Promise((r) => setTimeout(r, 1000))
    await expect401(cred)
  })

  it('health answers 200 {"Статус":"API доступен"} without CORS', async () => {
    const res = await app.api('/main/hs/health')
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(res.headers['access-control-allow-origin'], undefined)
    assert.equal(res.body, '{"Статус":"API доступен"}')
  })

  it('health answers any issued user whatever their methods, and 401 to a wrong password', async () => {
    for (const u of [PAYMENTS_ONLY, NO_METHODS]) {
      const res = await app.get('/main/hs/health', basic(u.name, u.password))
      assert.equal(res.status, 200)
      assert.equal(res.body, '{"Статус":"API доступен"}')
    }
    assert.equal((await app.get('/main/hs/warehouses/get', basic(NO_METHODS.name, NO_METHODS.password))).status, 401)
    await expect401(basic(NO_METHODS.name, 'не тот'), '/main/hs/health')
    await expect401({}, '/main/hs/health')
  })

  it('answers a CORS preflight for data endpoints, never for health', async () => {
    const headers = { origin: 'https://bi.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' }
    const pre = await app.request('OPTIONS', '/main/hs/payments/get', headers)
    assert.equal(pre.status, 204)
    assert.equal(pre.headers['access-control-allow-origin'], '*')
    assert.equal(pre.headers['access-control-allow-methods'], 'GET')
    assert.equal(pre.headers['access-control-allow-headers'], 'Authorization')
    assert.equal(pre.headers['access-control-allow-credentials'], undefined)
    assert.equal((await app.request('OPTIONS', '/main/hs/health', headers)).status, 404)
    assert.equal((await app.request('OPTIONS', '/main/hs/nothing/get', headers)).status, 404)
  })

  it('write methods are 404 on every route', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await app.request(method, '/main/hs/payments/get', basic(READER.name, READER.password))
      assert.equal(res.status, 404, method)
    }
  })

  it('unknown services and paths are 404 without business data', async () => {
    for (const path of ['/main/hs/nothing/get', '/main/hs/__proto__/get', '/main/hs/constructor/get', '/main/hs/warehouses/get/x', '/metrics']) {
      const res = await app.api(path)
      assert.equal(res.status, 404, path)
      assert.equal(res.body, '{"error":"Not Found"}')
    }
  })

  it('the server cannot write through its store handle', async () => {
    const readOnly = /readonly|read-only/
    await assert.rejects(app.sql.run("INSERT INTO meta (key, value) VALUES ('x', 'y')"), readOnly)
    await assert.rejects(app.sql.exec('CREATE TABLE evil (x TEXT)'), readOnly)
    await assert.rejects(app.sql.exec('DELETE FROM users'), readOnly)
  })

  // Last: it closes the store under the running server.
  it('an unexpected store failure is 500 {"error"} for data and text/plain for health', async () => {
    await app.sql.close()
    const data = await app.api('/main/hs/warehouses/get')
    assert.equal(data.status, 500)
    assert.equal(data.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(Object.keys(data.json), ['error'])
    assert.equal(typeof data.json.error, 'string')
    const health = await app.api('/main/hs/health')
    assert.equal(health.status, 500)
    assert.equal(health.headers['content-type'], 'text/plain; charset=utf-8')
    assert.ok(health.body.length > 0)
    assert.throws(() => JSON.parse(health.body))
  })
})
