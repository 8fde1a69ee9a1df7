// store/unchanged.ts: a read a serving connection keeps while it sees no commit. SQLite's
// read-only connections count the commits of others (PRAGMA data_version); elsewhere, and on a
// connection that writes, every call reads, and calls made during a read share the next one.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { SqlPort } from '../../src/store/sql.js'
import { sharedRead, whileUnchanged } from '../../src/store/unchanged.js'
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
    let reads = 0
    /** Row `a`'s value kept under `key`, counting the reads in `reads`. */
    const valueUnder = (key: string) =>
      whileUnchanged(reader, key, async () => {
        reads++
        const [row] = await reader.all<{ v: number }>('SELECT v FROM kept_t WHERE k = ?', ['a'])
        return Number(row?.v)
      })

    it('reads once until another connection commits, then once more', async () => {
      reads = 0
      const value = () => valueUnder('kept_t:a')
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

    it('gives calls made at once one read on the engines without a commit count', async () => {
      reads = 0
      const value = () => valueUnder('kept_t:at once')
      assert.deepEqual(await Promise.all([value(), value(), value()]), [2, 2, 2])
      // SQLite keeps the first read; elsewhere the first call reads, the two made during it share the next.
      assert.equal(reads, backend === 'sqlite' ? 1 : 2)
    })
  })

describe('a read shared by the calls made while another is under way', () => {
  const port = {} as SqlPort
  /** Reads that end when the test says, in the order they started. */
  function reads() {
    const started: { end(value: string): void; fail(err: Error): void }[] = []
    const read = () =>
      new Promise<string>((resolve, reject) => {
        started.push({ end: resolve, fail: reject })
      })
    return { started, read }
  }

  it('starts a call alone at once, and the calls made during it one read after it ends', async () => {
    const { started, read } = reads()
    const first = sharedRead(port, 'k', read)
    assert.equal(started.length, 1)
    const second = sharedRead(port, 'k', read)
    const third = sharedRead(port, 'k', read)
    // The read under way may have begun before the later calls: they wait for the next one.
    assert.equal(started.length, 1)
    started[0]!.end('one')
    assert.equal(await first, 'one')
    await new Promise((r) => setImmediate(r))
    assert.equal(started.length, 2)
    // A call made during the second read waits for a third, not for the second.
    const fourth = sharedRead(port, 'k', read)
    started[1]!.end('two')
    assert.deepEqual(await Promise.all([second, third]), ['two', 'two'])
    await new Promise((r) => setImmediate(r))
    assert.equal(started.length, 3)
    started[2]!.end('three')
    assert.equal(await fourth, 'three')
    // Nothing under way: the next call reads at once, and another key never waits for this one.
    const fifth = sharedRead(port, 'k', read)
    const other = sharedRead(port, 'other', read)
    assert.equal(started.length, 5)
    started[3]!.end('four')
    started[4]!.end('five')
    assert.deepEqual(await Promise.all([fifth, other]), ['four', 'five'])
  })

  it('gives a failed read to its own calls only', async () => {
    const { started, read } = reads()
    const first = sharedRead(port, 'f', read)
    const second = sharedRead(port, 'f', read)
    started[0]!.fail(new Error('connection lost'))
    await assert.rejects(first, /connection lost/)
    await new Promise((r) => setImmediate(r))
    assert.equal(started.length, 2)
    started[1]!.end('after')
    assert.equal(await second, 'after')
  })
})
