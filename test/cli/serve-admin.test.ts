// `docgate serve --admin-port`: the admin listener beside the public port, the access log
// on stdout, and /ready turning 503 when SIGTERM starts the drain.
import assert from 'node:assert/strict'
import { Agent, request } from 'node:http'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { hashPassword } from '../../src/auth/password.js'
import { openWritable } from '../../src/app/store.js'
import { putUser } from '../../src/users/store.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { basic, importFixture, tempDir } from '../support/app.js'
import { refusal, startServe } from '../support/serve-process.js'

async function store(): Promise<string> {
  const db = join(tempDir(), 'serve.db')
  const sql = await openWritable(db)
  assert.equal((await importFixture(sql, warehousesFixture)).ok, true)
  await putUser(sql, 'оператор', await hashPassword('пароль', { logN: 10 }), ['*'])
  await sql.close()
  return db
}

const start = startServe

function get(url: string, agent: Agent, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode!))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('docgate serve --admin-port', () => {
  it('serves /live, /ready and /metrics; logs each request; /ready is 503 while draining after SIGTERM', async () => {
    const db = await store()
    const server = start(['--db', db, '--port', '0', '--admin-port', '0'])
    const [, url] = await server.until(/^listening on (http:\/\/127\.0\.0\.1:\d+)$/m)
    const [, admin] = await server.until(/^admin \(live, ready, metrics\) on (http:\/\/127\.0\.0\.1:\d+)$/m)
    assert.equal((await fetch(`${admin}/live`)).status, 200)
    assert.equal((await fetch(`${admin}/ready`)).status, 200)

    // A keep-alive connection held open keeps the server draining after SIGTERM.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    assert.equal(await get(`${url}/main/hs/warehouses/get?code=1`, agent, { ...basic('оператор', 'пароль'), 'x-request-id': 'cli-1' }), 200)
    const [line] = await server.until(/^\{.*"reqId":"cli-1".*\}$/m)
    const logged = JSON.parse(line)
    assert.deepEqual([logged.service, logged.user, logged.status, logged.params], ['warehouses', 'оператор', 200, ['code']])

    const families = parsePrometheusTextFormat(await (await fetch(`${admin}/metrics`)).text())
    const requests = families.find((f) => f.name === 'docgate_http_requests_total')!
    assert.deepEqual(requests.metrics, [{ labels: { service: 'warehouses', status: '200' }, value: '1' }])

    server.child.kill('SIGTERM')
    let ready = await fetch(`${admin}/ready`)
    for (let i = 0; i < 50 && ready.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 20))
      ready = await fetch(`${admin}/ready`)
    }
    assert.equal(ready.status, 503)
    assert.deepEqual(await ready.json(), { ready: false, reason: 'draining' })
    agent.destroy()
    const [code] = await server.exited
    assert.equal(code, 0)
  })

  it('keeps an answer asked again (counted in /metrics) and, with --answer-cache 0, none', async () => {
    const db = await store()
    const askThrice = async (args: string[]) => {
      const server = start(['--db', db, '--port', '0', '--admin-port', '0', '--access-log', 'off', ...args])
      const [, url] = await server.until(/^listening on (http:\/\/127\.0\.0\.1:\d+)$/m)
      const [, admin] = await server.until(/^admin \(live, ready, metrics\) on (http:\/\/127\.0\.0\.1:\d+)$/m)
      const bodies: string[] = []
      for (let i = 0; i < 3; i++)
        bodies.push(await (await fetch(`${url}/main/hs/warehouses/get?code=1`, { headers: basic('оператор', 'пароль') })).text())
      assert.deepEqual(new Set(bodies).size, 1)
      const families = parsePrometheusTextFormat(await (await fetch(`${admin}/metrics`)).text())
      const value = (name: string) => families.find((f) => f.name === name)?.metrics[0]?.value
      const seen = [
        value('docgate_answer_cache_hits_total'),
        value('docgate_answer_cache_misses_total'),
        value('docgate_answer_cache_bytes'),
      ]
      server.child.kill('SIGTERM')
      assert.deepEqual(await server.exited, [0, null])
      return { seen, bytes: Buffer.byteLength(bodies[0]!) }
    }
    const kept = await askThrice([])
    assert.deepEqual(kept.seen, ['1', '1', String(kept.bytes + 1)])
    assert.deepEqual((await askThrice(['--answer-cache', '0'])).seen, [undefined, undefined, undefined])
  })

  it('--access-log off writes no access line; bad flag values are refused', async () => {
    const db = await store()
    const server = start(['--db', db, '--port', '0', '--access-log', 'off'])
    const [, url] = await server.until(/^listening on (http:\/\/127\.0\.0\.1:\d+)$/m)
    const res = await fetch(`${url}/main/hs/warehouses/get`, { headers: { ...basic('оператор', 'пароль'), 'x-request-id': 'silent' } })
    assert.equal(res.status, 200)
    await res.arrayBuffer()
    server.child.kill('SIGTERM')
    assert.deepEqual(await server.exited, [0, null])
    assert.equal(server.output().includes('silent'), false)

    for (const [flag, value, message] of [
      ['--access-log', 'maybe', 'docgate: --access-log must be on or off, got "maybe"'],
      ['--max-lag', 'soon', 'docgate: --max-lag must be a duration such as 900, 90s, 15m or 1h, got "soon"'],
      ['--admin-port', '70000', 'docgate: --admin-port must be 0..65535, got "70000"'],
      ['--answer-cache', '1.5', 'docgate: --answer-cache must be 0..65536 (MiB), got "1.5"'],
    ] as const) {
      assert.deepEqual(await refusal(['--db', db, '--port', '0', flag, value]), { code: 1, line: message })
    }
  })
})
