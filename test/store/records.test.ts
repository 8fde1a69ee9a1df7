// Dialect.concatRecords and splitRecords: many rows read as one value, each row's fields
// kept apart (a NULL as empty), in the order asked, the same on every engine.
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { RECORD, UNIT, splitRecords } from '../../src/store/records.js'
import type { SqlPort } from '../../src/store/sql.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

describe('splitRecords', () => {
  it('gives each record its fields as views, none for null or empty, and refuses another width', () => {
    const blob = Buffer.from(`a${String.fromCharCode(UNIT)}{"x":1}${String.fromCharCode(RECORD)}${String.fromCharCode(UNIT)}`)
    assert.deepEqual(
      splitRecords(blob, 2).map((r) => r.map((f) => f.toString())),
      [
        ['a', '{"x":1}'],
        ['', ''],
      ],
    )
    assert.equal(splitRecords(blob, 2)[0]![1]!.buffer, blob.buffer)
    assert.deepEqual(splitRecords(null, 2), [])
    assert.deepEqual(splitRecords(Buffer.alloc(0), 3), [])
    assert.throws(() => splitRecords(blob, 3), /does not have 3 fields/)
    assert.throws(() => splitRecords(blob, 1), /does not have 1 fields/)
  })
})

for (const backend of BACKENDS)
  describe(`${backend}: concatRecords`, () => {
    let store: TestStore
    let sql: SqlPort
    beforeEach(async () => {
      store = await createTestStore(backend)
      sql = store.writer
      const t = sql.dialect.types
      await sql.exec(`CREATE TABLE records_t (k ${t.text} PRIMARY KEY, pos ${t.int}, body ${t.blob})`)
      await sql.run('INSERT INTO records_t (k, pos, body) VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?)', [
        'Щ-2',
        2,
        Buffer.from('{"Код":"С-002"}'),
        'a-1',
        1,
        null,
        'b-3',
        3,
        Buffer.from('[1,2]'),
      ])
    })
    afterEach(async () => {
      await sql.close()
      await store.cleanup()
    })

    it('joins the rows of a subquery in its order, text and bytes, a NULL as empty (none on PostgreSQL)', async () => {
      const d = sql.dialect
      if (!d.concatRecords) {
        // node-pg receives a bytea as text whatever its size: the rows are read one by one.
        assert.equal(d.name, 'postgres')
        return
      }
      assert.equal(d.name, 'sqlite')
      const records = d.concatRecords([{ text: 'k' }, { bytes: 'body' }])
      const read = async (where: string) => {
        const [row] = await sql.all<{ body: unknown }>(
          `SELECT ${d.bytes.select(records)} AS body FROM (SELECT k, body, pos FROM records_t ${where} ORDER BY pos) AS page`,
        )
        return splitRecords(d.bytes.value(row!.body), 2).map(([k, body]) => [k!.toString(), body!.toString()])
      }
      assert.deepEqual(await read(''), [
        ['a-1', ''],
        ['Щ-2', '{"Код":"С-002"}'],
        ['b-3', '[1,2]'],
      ])
      assert.deepEqual(await read('WHERE pos > 5'), [])
    })
  })
