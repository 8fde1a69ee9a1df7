// Planner statistics renewed inside an import batch (store/statistics.ts). On PostgreSQL a
// table the batch filled is analyzed before the read models read it joined, and so is the
// key list a cash-turnover rebuild joins the register with; a table the batch changed by
// less than a fifth of its size as last counted (or that is under 64 KB) is left to
// autovacuum. SQLite plans by its indexes and is given nothing to run.
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import pg from 'pg'
import { demoFiles } from '../../src/demo/generate.js'
import { renewStatistics } from '../../src/store/statistics.js'
import type { SqlPort } from '../../src/store/sql.js'
import { importFixture } from '../support/app.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

const demo = new Map([...demoFiles({ scale: 1, seed: 1 })].map((f) => [f.name, [...f.objects()]]))
const file = (name: string): unknown[] => demo.get(name)!

/** The row count PostgreSQL plans `table` by: -1 until it is first analyzed. */
async function counted(sql: SqlPort, table: string): Promise<number> {
  const [row] = await sql.all<{ n: number }>('SELECT reltuples::bigint AS n FROM pg_class WHERE oid = to_regclass(?)', [table])
  return Number(row!.n)
}

const count = async (sql: SqlPort, table: string): Promise<number> =>
  Number((await sql.all<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n)

for (const backend of BACKENDS.filter((b) => b !== 'sqlite'))
  describe(`${backend}: statistics renewed inside an import batch`, () => {
    let store: TestStore
    beforeEach(async () => {
      store = await createTestStore(backend)
    })
    afterEach(async () => {
      await store.writer.close()
      await store.cleanup()
    })

    it('analyzes the tables a batch filled before its read models read them, and leaves a small change alone', async () => {
      const sql = store.writer
      assert.equal((await importFixture(sql, file('catalogues'))).ok, true)
      assert.equal(await counted(sql, 'doc_supplier_orders_goods'), -1)
      assert.equal((await importFixture(sql, file('supplier-orders'))).ok, true)
      // 300 orders with 2,022 rows of Товары, counted as the batch left them.
      assert.equal(await count(sql, 'doc_supplier_orders_goods'), 2022)
      assert.equal(await counted(sql, 'doc_supplier_orders_goods'), 2022)
      assert.equal(await counted(sql, 'doc_supplier_orders'), 300)
      // Ten more orders: far under a fifth of the counted rows, so the count stays.
      const more = (file('supplier-orders') as { ref: string }[])
        .slice(0, 10)
        .map((o, i) => ({ ...o, ref: `0000000${i}-0000-4000-8000-000000000001` }))
      assert.equal((await importFixture(sql, more)).ok, true)
      assert.ok((await count(sql, 'doc_supplier_orders_goods')) > 2022)
      assert.equal(await counted(sql, 'doc_supplier_orders_goods'), 2022)
    })

    it('analyzes the key list of a cash-turnover rebuild once it is filled', async () => {
      const sql = store.writer
      assert.equal((await importFixture(sql, file('catalogues'))).ok, true)
      assert.equal((await importFixture(sql, file('register-cash'))).ok, true)
      const keys = await count(sql, '_cash_touched')
      assert.ok(keys > 500, `${keys} keys`)
      assert.equal(await counted(sql, '_cash_touched'), keys)
    })
  })

if (BACKENDS.includes('postgres'))
  describe('postgres: statistics renewed beside another writer', () => {
    it('skips a table another transaction is analyzing rather than wait for its commit', async () => {
      const store = await createTestStore('postgres')
      const other = new pg.Client({ connectionString: store.location })
      await other.connect()
      try {
        assert.equal((await importFixture(store.writer, file('catalogues'))).ok, true)
        await other.query('BEGIN')
        await other.query('ANALYZE doc_supplier_orders_goods')
        const imported = importFixture(store.writer, file('supplier-orders')).then((r) => r.ok)
        const waited = new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 20 s'), 20_000).unref())
        assert.equal(await Promise.race([imported, waited]), true)
        await other.query('ROLLBACK')
        // Not the batch's 2,022 rows: the count stays the one the other transaction took of the
        // empty table (PostgreSQL writes counts in place; its rollback keeps them).
        assert.equal(await counted(store.writer, 'doc_supplier_orders_goods'), 0)
        assert.equal(await counted(store.writer, 'doc_supplier_orders'), 300)
      } finally {
        await other.end()
        await store.writer.close()
        await store.cleanup()
      }
    })
  })

describe('sqlite: statistics renewed inside an import batch', () => {
  it('runs nothing: the engine plans by its indexes', async () => {
    const store = await createTestStore('sqlite')
    const statements: string[] = []
    const spy = new Proxy(store.writer, {
      get: (target, key) => {
        if (key === 'all' || key === 'run' || key === 'exec') return (text: string) => void statements.push(text)
        return Reflect.get(target, key) as unknown
      },
    })
    await renewStatistics(spy)
    await renewStatistics(spy, ['_cash_touched'])
    assert.deepEqual(statements, [])
    await store.writer.close()
    await store.cleanup()
  })
})
