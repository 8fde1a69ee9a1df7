// A sync into an SQLite store: its checkpoints run in a thread of their own, and the
// writer's own automatic checkpoint waits until the WAL holds 256 MiB (src/sync/checkpoints.ts).
import * as assert from 'node:assert/strict'
import { rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import { SqliteStore } from '../../src/store/sqlite.js'
import { backgroundCheckpoints } from '../../src/sync/checkpoints.js'
import { tempDir } from '../support/stores.js'

test('the writer checkpoints only at 16384 WAL pages; the thread copies the committed pages into the database meanwhile', async () => {
  const dir = tempDir()
  const path = join(dir, 'store.db')
  const store = new SqliteStore(path)
  const checkpoints = await backgroundCheckpoints(path, store)
  try {
    assert.deepEqual(store.db.pragma('wal_autocheckpoint'), [{ wal_autocheckpoint: 16384 }])
    const before = statSync(path).size
    await store.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)')
    // 20 batches of 64 pages' worth: 1,280 WAL pages, far under the writer's mark.
    for (let b = 0; b < 20; b++) {
      await store.transaction(async () => {
        for (let i = 0; i < 64; i++) await store.run('INSERT INTO t (v) VALUES (?)', [Buffer.alloc(16000, b)])
      })
    }
    // The thread's tick is 200 ms.
    for (let waited = 0; statSync(path).size < 20 * 64 * 16384 && waited < 5000; waited += 100) await sleep(100)
    assert.ok(statSync(path).size >= 20 * 64 * 16384, `the database file holds ${statSync(path).size} bytes, was ${before}`)
  } finally {
    await checkpoints.stop()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
