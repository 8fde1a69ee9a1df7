import { createApp } from '../../src/app/create.js'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import Database from 'better-sqlite3'

import { openReadOnly } from '../../src/store/open.js'
import { openWritable } from '../../src/app/store.js'
import type { SqliteStore } from '../../src/store/sqlite.js'
import { importFixture, tempDir } from '../support/app.js'
import { warehousesFixture } from '../fixtures/warehouses.js'

const allow = { authenticate: async () => ({ ok: true as const, user: 't' }) }

describe('effective configuration (reliability battery CFG1)', () => {
  it('sets header, request, keep-alive and socket timeouts', async () => {
    const db = join(tempDir(), 'c.db')
    await (await openWritable(db)).close()
    const sql = await openReadOnly(db)
    const app = await createApp({ sql, auth: allow, logger: false })
    await app.ready()
    assert.equal(app.server.headersTimeout, 10_000)
    assert.equal(app.server.requestTimeout, 30_000)
    assert.equal(app.server.keepAliveTimeout, 5_000)
    assert.equal(app.server.timeout, 120_000)
    assert.equal((app.server as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval, 1_000)
    await app.close()
    await sql.close()
  })

  it('while draining, every answer closes its connection', async () => {
    const db = join(tempDir(), 'c.db')
    await (await openWritable(db)).close()
    const sql = await openReadOnly(db)
    const app = await createApp({ sql, auth: allow, logger: false })
    assert.equal((await app.inject({ method: 'GET', url: '/main/hs/health' })).headers.connection, 'keep-alive')
    app.draining = true
    const res = await app.inject({ method: 'GET', url: '/main/hs/warehouses/get' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers.connection, 'close')
    await app.close()
    await sql.close()
  })

  it('opens the serving store read-only with a short busy timeout', async () => {
    const db = join(tempDir(), 'c.db')
    await (await openWritable(db)).close()
    const sql = (await openReadOnly(db)) as SqliteStore
    assert.equal(sql.db.readonly, true)
    assert.equal(sql.db.pragma('busy_timeout', { simple: true }), 200)
    await sql.close()
  })

  it('creates a new SQLite store in WAL mode with 16 KiB pages', async () => {
    const db = join(tempDir(), 'c.db')
    await (await openWritable(db)).close()
    const sql = (await openReadOnly(db)) as SqliteStore
    assert.equal(sql.db.pragma('page_size', { simple: true }), 16384)
    assert.equal(sql.db.pragma('journal_mode', { simple: true }), 'wal')
    await sql.close()
  })

  it('a locked database file gives a quick 500, not a frozen server', async () => {
    const db = join(tempDir(), 'locked.db')
    const writer = await openWritable(db)
    await importFixture(writer, warehousesFixture)
    await writer.close()
    // A rollback-journal file: a writer's exclusive lock blocks readers (WAL would not).
    const locker = new Database(db)
    locker.pragma('journal_mode = DELETE')
    const sql = await openReadOnly(db)
    const app = await createApp({ sql, auth: allow, logger: false })
    locker.exec('BEGIN EXCLUSIVE')
    const started = Date.now()
    const res = await app.inject({ method: 'GET', url: '/main/hs/warehouses/get', headers: { 'x-request-id': 'locked-1' } })
    const elapsed = Date.now() - started
    assert.equal(res.statusCode, 500)
    // The driver's `database is locked` stays in the log (decision "First hour").
    assert.deepEqual(JSON.parse(res.body), { error: 'the store is busy; request id locked-1' })
    assert.ok(elapsed < 2000, `took ${elapsed} ms`)
    locker.exec('ROLLBACK')
    assert.equal((await app.inject({ method: 'GET', url: '/main/hs/warehouses/get' })).statusCode, 200)
    locker.close()
    await app.close()
    await sql.close()
  })
})
