// Needs a real PostgreSQL server (DOCGATE_TEST_PG_URL); `.ci/run` provides one.
import { createApp } from '../../src/app/create.js'
import assert from 'node:assert/strict'
import { createConnection, createServer } from 'node:net'
import type { Server, Socket } from 'node:net'
import { describe, it } from 'node:test'
import { checkReadiness } from '../../src/admin/readiness.js'
import { Authenticator } from '../../src/auth/authenticator.js'
import { hashPassword } from '../../src/auth/password.js'

import { openReadOnly, servingPool } from '../../src/store/open.js'
import { UserSnapshot } from '../../src/users/directory.js'
import { putUser } from '../../src/users/store.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { basic, importFixture } from '../support/app.js'
import { createTestStore } from '../support/stores.js'

/** A TCP relay the test can cut and restore, standing in for a database that goes away. */
class Relay {
  #sockets = new Set<Socket>()
  #server: Server | undefined
  constructor(
    readonly port: number,
    readonly target: { host: string; port: number },
  ) {}

  async open(): Promise<void> {
    this.#server = createServer((client) => {
      const upstream = createConnection(this.target)
      for (const s of [client, upstream]) {
        this.#sockets.add(s)
        s.on('close', () => this.#sockets.delete(s))
        s.on('error', () => {})
      }
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>((resolve) => this.#server!.listen(this.port, '127.0.0.1', resolve))
  }

  async cut(): Promise<void> {
    for (const s of this.#sockets) s.destroy()
    await new Promise<void>((resolve) => this.#server!.close(() => resolve()))
  }
}

const freePort = async (): Promise<number> => {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const port = (s.address() as { port: number }).port
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

describe('postgres: the database goes away and comes back', { skip: !process.env.DOCGATE_TEST_PG_URL }, () => {
  it('answers 500 {"error"} (text/plain on health) while it is unreachable and recovers by itself', async () => {
    const store = await createTestStore('postgres')
    assert.equal((await importFixture(store.writer, warehousesFixture)).ok, true)
    await putUser(store.writer, 'reader', await hashPassword('пароль', { logN: 10 }), ['*'])
    await store.writer.close()
    const url = new URL(store.location)
    const relay = new Relay(await freePort(), { host: url.hostname, port: Number(url.port || 5432) })
    await relay.open()
    url.hostname = '127.0.0.1'
    url.port = String(relay.port)
    const sql = await openReadOnly(url.toString())
    const users = new UserSnapshot(sql)
    await users.start()
    const app = await createApp({
      sql,
      auth: new Authenticator({ users, dummyHash: await hashPassword('x', { logN: 10 }) }),
      logger: false,
    })
    const get = (path: string) => app.inject({ method: 'GET', url: path, headers: basic('reader', 'пароль') })
    const ready = () => checkReadiness({ sql, draining: () => app.draining, maxLagMs: 15 * 60_000 })
    try {
      assert.equal((await get('/main/hs/warehouses/get')).statusCode, 200)
      assert.deepEqual(await ready(), { ready: true })

      await relay.cut()
      const started = Date.now()
      const down = await get('/main/hs/warehouses/get')
      assert.equal(down.statusCode, 500)
      assert.equal(down.headers['content-type'], 'application/json; charset=utf-8')
      // In the API's words, naming neither the relay's host nor its port (the log has them).
      assert.match(JSON.parse(down.body).error, /^the store is unavailable; request id [\w-]+$/)
      const health = await get('/main/hs/health')
      assert.equal(health.statusCode, 500)
      assert.equal(health.headers['content-type'], 'text/plain; charset=utf-8')
      assert.match(health.body, /^the store is unavailable; request id [\w-]+$/)
      assert.ok(Date.now() - started < 5000, 'answers come quickly while the database is away')
      assert.equal((await ready()).ready, false)

      await relay.open()
      let status = 0
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await get('/main/hs/warehouses/get')).statusCode
        if (status !== 200) await new Promise((r) => setTimeout(r, 100))
      }
      assert.equal(status, 200)
      assert.equal((await get('/main/hs/health')).statusCode, 200)
      assert.deepEqual(await ready(), { ready: true })
    } finally {
      users.stop()
      await app.close()
      await sql.close()
      await relay.cut().catch(() => {})
      await store.cleanup()
    }
  })
})

describe('postgres: serving pool configuration (reliability battery CFG1)', () => {
  it('the serving pool has bounded waits and a read-only session that compiles no statement (jit off) and plans each once', () => {
    const pool = servingPool('postgres://127.0.0.1:1/none')
    const o = pool.options as unknown as Record<string, unknown>
    assert.equal(o.connectionTimeoutMillis, 1000)
    assert.equal(o.query_timeout, 5000)
    assert.equal(o.statement_timeout, 5000)
    assert.equal(o.idle_in_transaction_session_timeout, 10_000)
    assert.equal(o.max, 10)
    assert.equal(o.options, '-c default_transaction_read_only=on -c jit=off -c plan_cache_mode=force_generic_plan')
    void pool.end()
  })
})

describe('postgres: serving sessions', { skip: !process.env.DOCGATE_TEST_PG_URL }, () => {
  it('are read-only, compile nothing and keep one plan per statement for any values', async () => {
    const sql = await openReadOnly(process.env.DOCGATE_TEST_PG_URL!)
    try {
      const [row] = await sql.all<Record<string, string>>(
        "SELECT current_setting('default_transaction_read_only') AS ro, current_setting('jit') AS jit, current_setting('plan_cache_mode') AS plans",
      )
      assert.deepEqual({ ...row }, { ro: 'on', jit: 'off', plans: 'force_generic_plan' })
    } finally {
      await sql.close()
    }
  })
})
