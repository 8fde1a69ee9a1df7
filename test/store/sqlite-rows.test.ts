// SqliteStore reads rows as arrays and fills them into objects itself (store/sqlite.ts
// #rows): what every reader gets must be what better-sqlite3's own row objects held.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { SqliteStore } from '../../src/store/sqlite.js'

describe('sqlite: rows read as objects', () => {
  let dir: string
  let sql: SqliteStore
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docgate-rows-'))
    sql = new SqliteStore(join(dir, 'rows.db'))
    await sql.exec('CREATE TABLE t (k TEXT PRIMARY KEY, s TEXT, r REAL, i INTEGER, b BLOB)')
    await sql.insertRows(
      't',
      ['k', 's', 'r', 'i', 'b'],
      [
        ['a', 'строка', 1.5, 7, Buffer.from([0, 255])],
        ['b', null, null, null, null],
      ],
    )
  })
  afterEach(async () => {
    await sql.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('names each value by its column, with its type, the same on every read of the statement', async () => {
    const read = () => sql.all('SELECT k, s, r, i, b, length(s) AS n FROM t ORDER BY k')
    const expected = [
      { k: 'a', s: 'строка', r: 1.5, i: 7, b: Buffer.from([0, 255]), n: 6 },
      { k: 'b', s: null, r: null, i: null, b: null, n: null },
    ]
    assert.deepEqual(await read(), expected)
    assert.deepEqual(await read(), expected)
    assert.deepEqual(Object.keys((await read())[0]!), ['k', 's', 'r', 'i', 'b', 'n'])
    assert.deepEqual(await sql.all('SELECT k FROM t WHERE k = ?', ['z']), [])
  })

  it('keeps the last of two columns of one name, as better-sqlite3 does', async () => {
    assert.deepEqual(await sql.all("SELECT k AS x, s AS x FROM t WHERE k = 'a'"), [{ x: 'строка' }])
    assert.deepEqual(sql.db.prepare("SELECT k AS x, s AS x FROM t WHERE k = 'a'").all(), [{ x: 'строка' }])
  })

  it('treats a column named __proto__ as better-sqlite3 does (an assignment, no own property)', async () => {
    const text = "SELECT k AS __proto__, i FROM t WHERE k = 'a'"
    const [row] = await sql.all<Record<string, unknown>>(text)
    assert.deepEqual(row, sql.db.prepare(text).get())
    assert.equal(Object.getPrototypeOf(row), Object.prototype)
    assert.deepEqual(Object.keys(row!), ['i'])
  })

  it('returns the rows of a RETURNING statement and of one-key reads as objects', async () => {
    assert.deepEqual(await sql.selectIn('t', ['k', 'i'], 'k', ['b', 'a', 'b']), [
      { k: 'b', i: null },
      { k: 'a', i: 7 },
    ])
    assert.deepEqual(await sql.deleteIn('t', 'k', ['a', 'zz'], ['k', 's']), [{ k: 'a', s: 'строка' }])
    assert.deepEqual(await sql.all('SELECT k FROM t'), [{ k: 'b' }])
  })

  it('refuses a statement that returns no rows, as before', async () => {
    await assert.rejects(sql.all("UPDATE t SET s = 'x'"), /does not return data/)
    assert.deepEqual(await sql.all("SELECT s FROM t WHERE k = 'a'"), [{ s: 'строка' }])
  })
})
