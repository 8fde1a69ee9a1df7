// SqlPort.readBytes: large stored bytes read by key. On a PostgreSQL server it is a binary
// COPY whose parameters are written into the statement (a string other than a key only as
// the hex of its bytes); elsewhere it is `all`. Every engine gives the same rows.
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import pg from 'pg'
import { copyRows, inlineParams, pgCopy } from '../../src/store/pg-copy.js'
import { PgStore } from '../../src/store/postgres.js'
import type { SqlPort } from '../../src/store/sql.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

const BYTES = [
  Buffer.from([0, 1, 2, 0xff, 0x2c, 0x5c, 0x27]),
  Buffer.alloc(0),
  Buffer.from('{"Номер":"ЦБ-0001","a":"\\\\"}'),
  Buffer.alloc(70_000, 0xab),
]

for (const backend of BACKENDS)
  describe(`${backend}: readBytes`, () => {
    let store: TestStore
    let sql: SqlPort
    beforeEach(async () => {
      store = await createTestStore(backend)
      sql = store.writer
      const t = sql.dialect.types
      await sql.exec(`CREATE TABLE bytes_t (k ${t.text} PRIMARY KEY, seq ${t.int}, body ${t.blob}, note ${t.text})`)
      await sql.run(
        'INSERT INTO bytes_t (k, seq, body, note) VALUES (?, ?, ?, ?), (?, ?, ?, ?), (?, ?, ?, ?), (?, ?, ?, ?), (?, ?, ?, ?)',
        [
          'api_x:full',
          1,
          BYTES[0]!,
          'строка, с запятой',
          'api_x',
          2,
          BYTES[1]!,
          '',
          '2025-11-29',
          -3,
          BYTES[2]!,
          "it's \\ \t",
          '2025-11-30T24',
          9_007_199_254_740_991,
          BYTES[3]!,
          '😀',
          'k.none',
          0,
          null,
          null,
        ],
      )
    })
    afterEach(async () => {
      await sql.close()
      await store.cleanup()
    })

    it('gives text, integers, bytes and NULLs as `all` stores them, in order', async () => {
      const rows = await sql.readBytes<{ k: string; seq: number; body: Buffer | null; note: string | null }>(
        'SELECT k, seq, body, note FROM bytes_t WHERE k >= ? AND seq <> ? ORDER BY k',
        ['2025-11-29', 42],
        { k: 'text', seq: 'int', body: 'bytes', note: 'text' },
      )
      assert.deepEqual(
        rows.map((r) => ({ ...r, body: r.body === null ? null : Buffer.from(r.body).toString('hex') })),
        [
          { k: '2025-11-29', seq: -3, body: BYTES[2]!.toString('hex'), note: "it's \\ \t" },
          { k: '2025-11-30T24', seq: 9_007_199_254_740_991, body: BYTES[3]!.toString('hex'), note: '😀' },
          { k: 'api_x', seq: 2, body: '', note: '' },
          { k: 'api_x:full', seq: 1, body: BYTES[0]!.toString('hex'), note: 'строка, с запятой' },
          { k: 'k.none', seq: 0, body: null, note: null },
        ],
      )
      assert.ok(rows.every((r) => r.body === null || Buffer.isBuffer(r.body)))
      assert.deepEqual(await sql.readBytes('SELECT body FROM bytes_t WHERE k = ?', ['absent'], { body: 'bytes' }), [])
    })

    it('compares request text as the text it is', async () => {
      for (const note of ["it's \\ \t", 'строка, с запятой', "x' OR '1'='1"]) {
        const rows = await sql.readBytes<{ k: string }>('SELECT k FROM bytes_t WHERE note = ? ORDER BY k', [note], { k: 'text' })
        assert.deepEqual(
          rows.map((r) => r.k),
          note.startsWith('x') ? [] : note.startsWith('it') ? ['2025-11-29'] : ['api_x:full'],
        )
      }
    })
  })

describe('inlineParams: the parameters of a COPY written into it', () => {
  it('writes keys, numbers, NULL and booleans as literals, and leaves a ? inside a quoted literal alone', () => {
    assert.equal(
      inlineParams("SELECT body FROM t WHERE model = ? AND bucket >= ? AND seq = ? AND n > ? AND x IS ? AND y = ? AND z = '?'", [
        'api_orders:full',
        '2025-11-29',
        3,
        -1.5,
        null,
        true,
      ]),
      "SELECT body FROM t WHERE model = 'api_orders:full' AND bucket >= '2025-11-29' AND seq = (3) AND n > (-1.5) AND x IS NULL AND y = 1 AND z = '?'",
    )
    assert.equal(inlineParams('SELECT 1 WHERE a = ?', ['']), "SELECT 1 WHERE a = ''")
  })

  it('writes any other string only as the hex of its bytes', () => {
    assert.equal(
      inlineParams('SELECT 1 WHERE a = ? AND b = ?', ["x' OR '1'='1", 'ЗР-1']),
      "SELECT 1 WHERE a = convert_from(decode('7827204f52202731273d2731', 'hex'), 'UTF8') AND b = convert_from(decode('d097d0a02d31', 'hex'), 'UTF8')",
    )
  })

  it('refuses bytes, non-finite numbers and a count that does not match', () => {
    assert.throws(() => inlineParams('SELECT 1 WHERE a = ?', [Buffer.from('x')]), /cannot inline bytes/)
    assert.throws(() => inlineParams('SELECT 1 WHERE a = ?', [Number.NaN]), /cannot inline NaN/)
    assert.throws(() => inlineParams('SELECT 1 WHERE a = ? AND b = ?', ['a']), /2 placeholders for 1 parameters/)
  })

  it('a binary COPY answer that is not one is refused', () => {
    assert.throws(() => copyRows(Buffer.from('PGCOPY\n'), { a: 'text' }), /not a binary COPY answer/)
  })
})

if (BACKENDS.includes('postgres'))
  describe('postgres: a COPY cut off by the client read timeout', () => {
    it('rejects with the timeout, leaves no exception behind and the pool keeps answering', async () => {
      const pool = new pg.Pool({ connectionString: process.env.DOCGATE_TEST_PG_URL, query_timeout: 300, max: 1 })
      const sql = new PgStore(pool, { readonly: true, named: true, copy: pgCopy(pool), close: () => pool.end() })
      try {
        await assert.rejects(sql.readBytes("SELECT 'late'::text AS t FROM pg_sleep(1)", [], { t: 'text' }), /Query read timeout/)
        // The statement goes on at the server and its answer arrives after the timeout.
        await new Promise((r) => setTimeout(r, 1200))
        assert.deepEqual(await sql.readBytes('SELECT ?::text AS t', ['again'], { t: 'text' }), [{ t: 'again' }])
        assert.deepEqual(await sql.all('SELECT 1 AS one'), [{ one: 1 }])
      } finally {
        await sql.close()
      }
    })
  })
