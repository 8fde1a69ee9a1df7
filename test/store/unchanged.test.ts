// store/unchanged.ts: a read a serving connection keeps while it sees no commit. SQLite's
// read-only connections count the commits of others (PRAGMA data_version); elsewhere, and on a
// connection that writes, every call reads.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { SqlPort } from '../../src/store/sql.js'
import { whileUnchanged } from '../../src/store/unchanged.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

for (const backend of BACKENDS)
  describe(`${backend}: a read kept while the connection sees no commit`, () => {
    let store: TestStore
    let reader: SqlPort
    before(async () => {
      store = await createTestStore(backend)
      await store.writer.exec(`CREATE TABLE kept_t (k ${store.writer.dialect.types.text} PRIMARY KEY, v ${store.writer.dialect.types.int})`)
      await store.writer.run('INSERT INTO kept_t (k, v) VALUES (?, ?)', ['a', 1])
      await store.writer.close()
      reader = await store.openReader()
    })
    after(async () => {
      await reader.close()
      await store.cleanup()
    })

    it('reads once until another connection commits, then once more', async () => {
      let reads = 0
      const value = () =>
        whileUnchanged(reader, 'kept_t:a', async () => {
          reads++
          const [row] = await reader.all<{ v: number }>('SELECT v FROM kept_t WHERE k = ?', ['a'])
          return Number(row?.v)
        })
      assert.equal(await value(), 1)
      assert.equal(await value(), 1)
      assert.equal(reads, backend === 'sqlite' ? 1 : 2)
      await store.write('UPDATE kept_t SET v = ? WHERE k = ?', [2, 'a'])
      assert.equal(await value(), 2)
      assert.equal(await value(), 2)
      assert.equal(reads, backend === 'sqlite' ? 2 : 4)
      // Another key is kept apart.
      assert.equal(await whileUnchanged(reader, 'kept_t:other', async () => 'other'), 'other')
      assert.equal(await value(), 2)
      assert.equal(reads, backend === 'sqlite' ? 2 : 5)
    })
  })
