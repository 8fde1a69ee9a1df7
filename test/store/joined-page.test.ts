// A page of ready forms a request reads, joined by the engine (SQLite) or by the client from
// the page's rows (PostgreSQL, Dialect.pageJoin): the same bytes, row count and special rows.
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { QueryPlan } from '../../src/store/plan.js'
import { compileJoinedPage, compileJoinedRows, joinRows } from '../../src/store/select.js'
import type { SqlPort } from '../../src/store/sql.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

const PLAN: QueryPlan = {
  source: 'page_t',
  columns: [],
  where: [],
  orderBy: [
    { column: 'd', dir: 'asc' },
    { column: 'ref', dir: 'asc' },
  ],
}
const FULL = { form: 'form', special: ['issue', 'blobs'] }
const COLUMNS = { form: 'bytes', issue: 'text', blobs: 'text' } as const

for (const backend of BACKENDS)
  describe(`${backend}: a joined page`, () => {
    let store: TestStore
    let sql: SqlPort
    beforeEach(async () => {
      store = await createTestStore(backend)
      sql = store.writer
      const t = sql.dialect.types
      await sql.exec(`CREATE TABLE page_t (ref ${t.text} PRIMARY KEY, d ${t.text}, form ${t.blob}, issue ${t.text}, blobs ${t.text})`)
      const rows = [
        ['r4', '2025-01-02', Buffer.from('{"n":4}'), '', ''],
        ['r1', '2025-01-01', Buffer.from('{"n":1,"т":"а,б"}'), '', ''],
        ['r3', '2025-01-01', null, 'r3: left out', ''],
        ['r2', '2025-01-01', Buffer.from('{"n":2}'), '', '[[0,"x"]]'],
        ['r5', '2025-01-03', Buffer.from('{"n":5}'), '', ''],
      ]
      for (const row of rows) await sql.run('INSERT INTO page_t (ref, d, form, issue, blobs) VALUES (?, ?, ?, ?, ?)', row)
    })
    afterEach(async () => {
      await sql.close()
      await store.cleanup()
    })

    it(`is joined by ${backend === 'sqlite' ? 'the engine' : 'the client'}`, () => {
      assert.equal(sql.dialect.pageJoin, backend === 'sqlite' ? 'engine' : 'client')
    })

    for (const how of ['engine', 'client'] as const)
      it(`joined by the ${how}: forms in order, a NULL form skipped with its comma, special rows counted`, async () => {
        const page = async (after?: string[]) => {
          const options = { ...FULL, ...(after ? { after } : {}) }
          if (how === 'client') {
            const q = compileJoinedRows(PLAN, sql.dialect, 4, options)
            // A first page is read as stored bytes (PostgreSQL: a binary COPY), a later one bound.
            const rows = after ? await sql.all(q.sql, q.params) : await sql.readBytes(q.sql, q.params, COLUMNS)
            return joinRows(rows, options)
          }
          const q = compileJoinedPage(PLAN, sql.dialect, 4, { ...options, encoded: true })
          const [row] = await sql.all(q.sql, q.params)
          return { body: sql.dialect.bytes.value(row?.body), n: Number(row?.n), special: Number(row?.special) }
        }
        const first = await page()
        assert.equal(first.body?.toString(), '{"n":1,"т":"а,б"},{"n":2},{"n":4}')
        assert.equal(first.n, 4)
        assert.equal(first.special, 2)
        const rest = await page(['2025-01-02', 'r4'])
        assert.equal(rest.body?.toString(), '{"n":5}')
        assert.deepEqual([rest.n, rest.special], [1, 0])
        const none = await page(['2025-01-03', 'r5'])
        assert.deepEqual(none, { body: null, n: 0, special: 0 })
      })
  })
