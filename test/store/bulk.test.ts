// The store port's bulk writes (import): every engine stores exactly the values it is given,
// whichever way it sends them (PostgreSQL: arrays through unnest(), VALUES lists for binary rows).
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import pg from 'pg'
import { pgCopy } from '../../src/store/pg-copy.js'
import { PgStore } from '../../src/store/postgres.js'
import type { PgQueryable } from '../../src/store/postgres.js'
import type { SqlPort, SqlValue } from '../../src/store/sql.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

// Text that array literals and SQL must carry through as it is.
const AWKWARD = ['', 'NULL', 'null', '{a,b}', 'a"b', 'a\\b', "it's", ' spaced ', 'строка, с запятой', '😀', '$1', '?']

for (const backend of BACKENDS)
  describe(`${backend}: bulk writes of the store port`, () => {
    let store: TestStore
    let sql: SqlPort
    beforeEach(async () => {
      store = await createTestStore(backend)
      sql = store.writer
      const t = sql.dialect.types
      await sql.exec(`CREATE TABLE bulk_t (k ${t.text} PRIMARY KEY, s ${t.text}, r ${t.real}, i ${t.int}, b ${t.blob})`)
    })
    afterEach(async () => {
      await sql.close()
      await store.cleanup()
    })

    const all = () =>
      sql.all<{ k: string; s: string | null; r: number | null; i: number | null; b: Buffer | null }>(
        'SELECT k, s, r, i, b FROM bulk_t ORDER BY k',
      )

    it('inserts, upserts and claims rows with awkward text, nulls and numbers as given', async () => {
      const rows: SqlValue[][] = AWKWARD.map((s, n) => [`k${String(n).padStart(2, '0')}`, s, n + 0.25, n === 3 ? null : -n - 1, null])
      await sql.transaction(() =>
        sql.insertRows(
          'bulk_t',
          ['k', 's', 'r', 'i'],
          rows.map((r) => r.slice(0, 4)),
        ),
      )
      assert.deepEqual(
        await all(),
        rows.map(([k, s, r, i, b]) => ({ k, s, r, i, b })),
      )

      const inserted = await sql.transaction(() =>
        sql.insertNew(
          'bulk_t',
          ['k', 's'],
          [
            ['k00', 'never'],
            ['new', 'x'],
            ['k05', 'never'],
          ],
        ),
      )
      assert.deepEqual([...inserted], ['new'])
      await sql.transaction(() =>
        sql.upsertRows(
          'bulk_t',
          ['k', 's', 'i'],
          ['k'],
          [
            ['k00', 'replaced', 7],
            ['k99', '{"x"}', true],
          ],
        ),
      )
      const after = await all()
      assert.deepEqual(
        after.find((r) => r.k === 'k00'),
        { k: 'k00', s: 'replaced', r: 0.25, i: 7, b: null },
      )
      assert.deepEqual(
        after.find((r) => r.k === 'k99'),
        { k: 'k99', s: '{"x"}', r: null, i: 1, b: null },
      )
      assert.deepEqual(
        after.find((r) => r.k === 'new'),
        { k: 'new', s: 'x', r: null, i: null, b: null },
      )
      assert.equal(after.length, AWKWARD.length + 2)
    })

    it('inserts only the rows whose key of two columns is new, and names them by its last column', async () => {
      const t = sql.dialect.types
      await sql.exec(`CREATE TABLE bulk_pair (g ${t.text} NOT NULL, k ${t.text} NOT NULL, PRIMARY KEY (g, k))`)
      const add = (rows: string[][]) => sql.transaction(() => sql.insertNew('bulk_pair', ['g', 'k'], rows, ['g', 'k']))
      assert.deepEqual(
        [
          ...(await add([
            ['a', 'x'],
            ['a', 'y'],
          ])),
        ].sort(),
        ['x', 'y'],
      )
      // ('b', 'x') is new beside ('a', 'x'); ('a', 'y') is stored already.
      assert.deepEqual(
        [
          ...(await add([
            ['a', 'y'],
            ['b', 'x'],
            ['a', "it's"],
          ])),
        ].sort(),
        ["it's", 'x'],
      )
      assert.deepEqual(await sql.all('SELECT g, k FROM bulk_pair ORDER BY g, k'), [
        { g: 'a', k: "it's" },
        { g: 'a', k: 'x' },
        { g: 'a', k: 'y' },
        { g: 'b', k: 'x' },
      ])
    })

    it('fills a temp key table with exactly the refs given, again and again, and empties it for none', async () => {
      const keys = () => sql.all<{ ref: string }>('SELECT ref FROM _bulk_keys ORDER BY ref').then((rows) => rows.map((r) => r.ref))
      await sql.transaction(() => sql.fillKeys('_bulk_keys', new Set(AWKWARD)))
      assert.deepEqual(
        await keys(),
        [...AWKWARD].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1)),
      )
      await sql.transaction(() => sql.fillKeys('_bulk_keys', ['one']))
      assert.deepEqual(await keys(), ['one'])
      await sql.transaction(() => sql.fillKeys('_bulk_keys', []))
      assert.deepEqual(await keys(), [])
    })

    // PostgreSQL looks the keys up and COPYs the others: a key another writer stores in between
    // fails the COPY, which a savepoint takes back before the statement that skips stored keys.
    if (backend === 'postgres')
      it('claims rows when a key is stored between its lookup and its COPY', async () => {
        const client = new pg.Client({ connectionString: store.location })
        await client.connect()
        const db: PgQueryable = {
          async query(text, params) {
            const result = await client.query(text, params)
            // Right after the lookup, as a writer beside this one would.
            if (/= ANY/.test(text)) await client.query("INSERT INTO bulk_t (k, s) VALUES ('b', 'stored in between')")
            return result
          },
        }
        const racing = new PgStore(db, { copy: pgCopy(client), close: () => client.end() })
        try {
          await racing.insertRows('bulk_t', ['k', 's'], [['a', 'stored before']])
          const inserted = await racing.transaction(() =>
            racing.insertNew(
              'bulk_t',
              ['k', 's'],
              [
                ['a', 'new'],
                ['b', 'new'],
                ['c', 'new'],
              ],
            ),
          )
          assert.deepEqual([...inserted], ['c'])
          assert.deepEqual(
            (await all()).map((r) => [r.k, r.s]),
            [
              ['a', 'stored before'],
              ['b', 'stored in between'],
              ['c', 'new'],
            ],
          )
        } finally {
          await racing.close()
        }
      })

    it('selects and deletes by a list of keys, returning what it deleted', async () => {
      await sql.insertRows(
        'bulk_t',
        ['k', 's', 'i'],
        [
          ['a', 'x', 1],
          ['b', 'x', 2],
          ['c', 'y', 3],
          ["d'", 'y', 4],
        ],
      )
      assert.deepEqual(await sql.selectIn('bulk_t', ['k', 'i'], 's', ['y', 'none']), [
        { k: 'c', i: 3 },
        { k: "d'", i: 4 },
      ])
      assert.deepEqual(await sql.selectIn('bulk_t', ['k'], 's', []), [])
      const gone = await sql.deleteIn('bulk_t', 'k', ['a', "d'", 'missing'], ['k', 'i'])
      assert.deepEqual(
        gone.sort((x, y) => String(x.k).localeCompare(String(y.k))),
        [
          { k: 'a', i: 1 },
          { k: "d'", i: 4 },
        ],
      )
      assert.deepEqual(await sql.deleteIn('bulk_t', 's', ['x']), [])
      assert.deepEqual(
        (await all()).map((r) => r.k),
        ['c'],
      )
    })

    it('a bulk insert past 65,535 parameters stores every row, binary ones included', async () => {
      const text: SqlValue[][] = Array.from({ length: 20_000 }, (_, n) => [`t${n}`, `s${n}`, n / 2, n, null])
      const binary: SqlValue[][] = Array.from({ length: 14_000 }, (_, n) => [`b${n}`, null, null, n, Buffer.from([n % 256, 0, 255])])
      await sql.transaction(async () => {
        await sql.insertRows('bulk_t', ['k', 's', 'r', 'i', 'b'], text)
        await sql.insertRows('bulk_t', ['k', 's', 'r', 'i', 'b'], binary)
      })
      assert.deepEqual(await sql.all('SELECT COUNT(*) AS n, MAX(i) AS i, SUM(r) AS r FROM bulk_t WHERE k LIKE ?', ['t%']), [
        { n: 20_000, i: 19_999, r: 99_995_000 },
      ])
      assert.deepEqual(await sql.all('SELECT COUNT(*) AS n, MAX(i) AS i FROM bulk_t WHERE k LIKE ?', ['b%']), [{ n: 14_000, i: 13_999 }])
      assert.deepEqual(await sql.all('SELECT b FROM bulk_t WHERE k = ?', ['b13999']), [{ b: Buffer.from([13999 % 256, 0, 255]) }])
    })
  })
