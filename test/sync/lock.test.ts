// The one-writer lock of sync.md §2: taken once, refused to a second run, renewed while the
// run lives — and a renewal due while a batch's transaction is open is not undone with it
// where the store has a second connection (PostgreSQL).
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { SyncLock } from '../../src/sync/state/store.js'
import { ensureSyncTables } from '../../src/sync/state/tables.js'
import type { SqlPort } from '../../src/store/sql.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

for (const backend of BACKENDS)
  describe(`${backend}: the sync lock`, () => {
    let store: TestStore
    let sql: SqlPort
    beforeEach(async () => {
      store = await createTestStore(backend)
      sql = store.writer
      await ensureSyncTables(sql)
    })
    afterEach(async () => {
      await sql.close()
      await store.cleanup()
    })

    const held = async () =>
      JSON.parse((await sql.all<{ value: string }>("SELECT value FROM sync_meta WHERE key = 'lock'"))[0]!.value) as {
        pid: number
        at: number
      }

    it('is taken once, named to a second run, renewed, and gone after release', async () => {
      const first = new SyncLock(sql)
      assert.equal(await first.acquire(), undefined)
      const taken = await held()
      assert.equal(taken.pid, process.pid)
      const second = new SyncLock(sql)
      assert.equal((await second.acquire())?.pid, process.pid)
      await sleep(5)
      await first.renew()
      assert.ok((await held()).at > taken.at)
      await first.release()
      assert.deepEqual(await sql.all("SELECT value FROM sync_meta WHERE key = 'lock'"), [])
      await second.release()
    })

    if (backend === 'postgres')
      it('a renewal during a batch that rolls back stays renewed', async () => {
        const lock = new SyncLock(sql)
        assert.equal(await lock.acquire(), undefined)
        const taken = await held()
        await sleep(5)
        await assert.rejects(
          sql.transaction(async () => {
            await lock.renew()
            throw new Error('the batch failed')
          }),
          /the batch failed/,
        )
        assert.ok((await held()).at > taken.at)
        await lock.release()
      })
  })
