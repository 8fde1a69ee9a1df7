import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { BACKENDS, READER, basic, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { failingReads } from '../support/failing-sql.js'
import { filledStore, listenLive } from '../support/live.js'
import type { LiveServer } from '../support/live.js'

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

for (const backend of BACKENDS)
  describe(`${backend}: HTTP: authentication, headers, health, errors`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(warehousesFixture, {
        backend,
        users: [READER, CYRILLIC, PAYMENTS_ONLY, WAREHOUSES_ONLY, NO_METHODS, { name: 'уволенный', password: 'x' }],
      })
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
      const headers = {
        origin: 'https://bi.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      }
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
      for (const path of [
        '/main/hs/nothing/get',
        '/main/hs/__proto__/get',
        '/main/hs/constructor/get',
        '/main/hs/warehouses/get/x',
        '/metrics',
      ]) {
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

/** Sends `bytes` as they are on a new connection (fetch and inject would percent-encode) and reads until the server closes. */
function rawRequest(url: string, bytes: Buffer): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = connect(Number(port), hostname, () => socket.end(bytes))
    socket
      .on('data', (c: Buffer) => chunks.push(c))
      .on('error', reject)
      .on('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
}

describe("HTTP: a request the HTTP parser refuses gets the API's error shape", () => {
  let server: LiveServer
  before(async () => {
    server = await listenLive(await filledStore('sqlite', warehousesFixture, [READER]))
  })
  after(() => server.close())

  const answer = (raw: string) => {
    const [head, body] = raw.split('\r\n\r\n') as [string, string]
    const [status, ...lines] = head.split('\r\n')
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
    return { status, headers, body }
  }
  const auth = basic(READER.name, READER.password).authorization

  it('raw UTF-8 in the query: 400 {"error"} with the percent-encoding hint and every answer\'s headers', async () => {
    const raw = await rawRequest(
      server.url,
      Buffer.from(`GET /main/hs/warehouses/get?name=склад HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n\r\n`, 'utf8'),
    )
    const { status, headers, body } = answer(raw)
    assert.equal(status, 'HTTP/1.1 400 Bad Request')
    assert.equal(
      body,
      '{"error":"the request target is not valid: percent-encode query values (UTF-8), e.g. name=%D1%81%D0%BA%D0%BB%D0%B0%D0%B4"}',
    )
    assert.equal(headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(headers['content-length'], String(Buffer.byteLength(body)))
    assert.equal(headers['cache-control'], 'no-store')
    assert.equal(headers['x-content-type-options'], 'nosniff')
    assert.match(headers['x-request-id']!, /^[0-9a-f-]{36}$/)
    assert.equal(headers.connection, 'close')
    // Sent percent-encoded, the same query is an ordinary request.
    const encoded = await fetch(`${server.url}/main/hs/warehouses/get?name=%D1%81%D0%BA%D0%BB%D0%B0%D0%B4`, {
      headers: basic(READER.name, READER.password),
    })
    assert.equal(encoded.status, 200)
  })

  it('raw UTF-8 in the path and a raw space in the target: 400 {"error"} too', async () => {
    const path = answer(await rawRequest(server.url, Buffer.from('GET /main/hs/склад/get HTTP/1.1\r\nHost: x\r\n\r\n', 'utf8')))
    assert.equal(path.status, 'HTTP/1.1 400 Bad Request')
    assert.equal(
      JSON.parse(path.body).error,
      'the request target is not valid: percent-encode query values (UTF-8), e.g. name=%D1%81%D0%BA%D0%BB%D0%B0%D0%B4',
    )
    const space = answer(await rawRequest(server.url, Buffer.from('GET /main/hs/warehouses/get?name=a b HTTP/1.1\r\nHost: x\r\n\r\n')))
    assert.equal(space.status, 'HTTP/1.1 400 Bad Request')
    assert.equal(
      space.body,
      '{"error":"the request is not valid HTTP/1.1: percent-encode spaces and non-ASCII characters in the request target (UTF-8)"}',
    )
    assert.equal(space.headers['cache-control'], 'no-store')
  })

  it('headers over the limit: 431 {"error"}', async () => {
    const raw = await rawRequest(server.url, Buffer.from(`GET /main/hs/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`))
    const { status, body, headers } = answer(raw)
    assert.equal(status, 'HTTP/1.1 431 Request Header Fields Too Large')
    assert.equal(body, '{"error":"the request headers are too large"}')
    assert.equal(headers['x-content-type-options'], 'nosniff')
  })
})

describe("HTTP: a 500 caused by the store or the network says so in the API's words", () => {
  const CASES: [string, string][] = [
    ['connect ECONNREFUSED 127.0.0.1:5432', 'the store is unavailable'],
    ['connect ETIMEDOUT 10.0.0.7:5432', 'the store is unavailable'],
    ['getaddrinfo ENOTFOUND db.internal.example', 'the store is unavailable'],
    ['terminating connection due to administrator command', 'the store is unavailable'],
    ['Connection terminated unexpectedly', 'the store is unavailable'],
    ['timeout exceeded when trying to connect', 'the store is unavailable'],
    ['password authentication failed for user "docgate"', 'the store is unavailable'],
    ['database is locked', 'the store is busy'],
    // Any other failure keeps its message (paths cut), as before.
    ['database disk image is malformed', 'database disk image is malformed'],
  ]
  for (const [driver, api] of CASES) {
    it(`${driver} → ${api}`, async () => {
      const app = await startApp(warehousesFixture, { wrapSql: failingReads(() => true, driver) })
      try {
        const data = await app.get('/main/hs/warehouses/get', { ...basic(READER.name, READER.password), 'x-request-id': 'r-1' })
        assert.equal(data.status, 500)
        assert.deepEqual(data.json, { error: `${api}; request id r-1` })
        const health = await app.get('/main/hs/health', { ...basic(READER.name, READER.password), 'x-request-id': 'r-2' })
        assert.equal(health.status, 500)
        assert.equal(health.body, `${api}; request id r-2`)
      } finally {
        await app.close()
      }
    })
  }
})
