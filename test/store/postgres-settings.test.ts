// What docgate sets on PostgreSQL for speed. Ready pages and ready answers are written once
// and read whole by every request: where the engine compresses large values on its own,
// their columns are kept uncompressed, and a migration alters a column only when it is not
// so yet. Its sessions run without JIT compilation.
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { writeDemo } from '../../src/cli/demo.js'
import { migrate } from '../../src/views/migrate.js'
import type { SqlPort } from '../../src/store/sql.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { VIEWS } from '../../src/endpoints/index.js'

const storage = (sql: SqlPort) =>
  sql.all<{ col: string; storage: string }>(
    "SELECT c.relname || '.' || a.attname AS col, a.attstorage AS storage FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid " +
      "WHERE c.relname IN ('ready_pages', 'ready_answers') AND a.attname IN ('body', 'chunk') ORDER BY 1",
  )

for (const backend of BACKENDS.filter((b) => b !== 'sqlite'))
  describe(`${backend}: ready bytes stored uncompressed`, () => {
    let store: TestStore
    beforeEach(async () => {
      store = await createTestStore(backend)
    })
    afterEach(async () => {
      await store.writer.close()
      await store.cleanup()
    })

    it('keeps ready_pages.body and ready_answers.chunk EXTERNAL, so no stored page is compressed', async () => {
      const sql = store.writer
      assert.deepEqual(await storage(sql), [
        { col: 'ready_answers.chunk', storage: 'e' },
        { col: 'ready_pages.body', storage: 'e' },
      ])
      await writeDemo(sql, 0.1, 1, true)
      const [pages] = await sql.all<{ large: number; compressed: number }>(
        'SELECT count(*) FILTER (WHERE octet_length(body) > 2048) AS large, count(pg_column_compression(body)) AS compressed FROM ready_pages',
      )
      assert.ok(Number(pages!.large) > 0, 'the demo stores pages over the 2 KB a value is compressed from')
      assert.equal(Number(pages!.compressed), 0)
      const [answers] = await sql.all<{ n: number; compressed: number }>(
        'SELECT count(*) AS n, count(pg_column_compression(chunk)) AS compressed FROM ready_answers',
      )
      assert.ok(Number(answers!.n) > 0)
      assert.equal(Number(answers!.compressed), 0)
    })

    it('alters a column back to EXTERNAL once, and leaves one already so alone', async () => {
      const sql = store.writer
      await sql.exec('ALTER TABLE ready_pages ALTER COLUMN body SET STORAGE EXTENDED')
      const altered: string[] = []
      const exec = async (script: string) => {
        if (script.includes('SET STORAGE')) altered.push(script)
        await sql.exec(script)
      }
      const spy = new Proxy(sql, {
        get: (target, key) => {
          if (key === 'exec') return exec
          const value: unknown = Reflect.get(target, key)
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
      await sql.transaction(() => migrate(spy, VIEWS))
      assert.deepEqual(altered, ['ALTER TABLE ready_pages ALTER COLUMN body SET STORAGE EXTERNAL'])
      assert.deepEqual(
        (await storage(sql)).map((r) => r.storage),
        ['e', 'e'],
      )
      await sql.transaction(() => migrate(spy, VIEWS))
      assert.equal(altered.length, 1)
    })
  })

// The import's statements over unanalysed temp tables are estimated at many times their
// rows; with JIT on, PostgreSQL spent 20–30 ms compiling each of them (store/open.ts).
// Read-model forms are compressed on their way into the table; lz4 does it at a fraction of
// pglz's cost (store/open.ts). The server of these tests is built with lz4, as Debian's is.
if (BACKENDS.includes('postgres'))
  describe('postgres: sessions that compile no statement; the writing one compresses with lz4', () => {
    let store: TestStore
    beforeEach(async () => {
      store = await createTestStore('postgres')
    })
    afterEach(async () => {
      await store.writer.close()
      await store.cleanup()
    })

    /** `query` on a serving session, opened as `docgate serve` opens it. */
    const serving = async (query: string) => {
      const reader = await store.openReader()
      try {
        return await reader.all(query)
      } finally {
        await reader.close()
      }
    }

    it('the writing and the serving session both run with jit off', async () => {
      const [writing] = await store.writer.all<{ jit: string }>('SHOW jit')
      assert.deepEqual(writing, { jit: 'off' })
      assert.deepEqual(await serving('SHOW jit'), [{ jit: 'off' }])
    })

    it('the writing session, and it alone, costs a random page read at 1.1 (its pages are in memory)', async () => {
      assert.deepEqual(await store.writer.all('SHOW random_page_cost'), [{ random_page_cost: '1.1' }])
      const sibling = await store.writer.sibling!()
      try {
        assert.deepEqual(await sibling.all('SHOW random_page_cost'), [{ random_page_cost: '1.1' }])
      } finally {
        await sibling.close()
      }
      assert.deepEqual(await serving('SHOW random_page_cost'), [{ random_page_cost: '4' }])
    })

    it('stores the compressed full forms of an import as lz4', async () => {
      const sql = store.writer
      assert.deepEqual(await sql.all('SHOW default_toast_compression'), [{ default_toast_compression: 'lz4' }])
      await writeDemo(sql, 0.1, 1, true)
      const methods = await sql.all<{ method: string }>(
        'SELECT DISTINCT pg_column_compression(full_form) AS method FROM api_orders WHERE pg_column_compression(full_form) IS NOT NULL',
      )
      assert.deepEqual(methods, [{ method: 'lz4' }])
    })
  })
