// The writer buffers a file's objects and record sets and writes them a batch at a time;
// within one file, later lines must still see earlier ones, on every engine.
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { cashTurnovers } from '../../src/views/cash/turnovers.js'
import type { SqlPort, SqlValue } from '../../src/store/sql.js'
import { recordSet } from '../fixtures/cashflows.js'
import { importFixture } from '../support/app.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { uuid } from '../support/refs.js'

const W = 'Справочник.Склады'
const FILE = 'Справочник.ХранилищеДополнительнойИнформации'
const wh = (key: string, name: string) => ({ type: W, ref: uuid(key), Код: key, Наименование: name })
const demand = (key: string, quantities: number[]) => ({
  type: 'Документ.ТребованиеНакладная',
  ref: uuid(key),
  Номер: `ТН-${key}`,
  Дата: '2024-03-05T10:00:00',
  Материалы: quantities.map((q) => ({ Количество: q })),
})
/** `sql` whose insertRows first calls `see` (which may throw, failing that write). */
const beforeInsert = (sql: SqlPort, see: (table: string, rows: readonly (readonly SqlValue[])[]) => void): SqlPort =>
  new Proxy(sql, {
    get(target, key) {
      if (key === 'insertRows') {
        return async (table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]) => {
          see(table, rows)
          return target.insertRows(table, columns, rows)
        }
      }
      const value: unknown = Reflect.get(target, key, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
const shorts = async (sql: SqlPort, table: string) =>
  (await sql.all<{ short: Buffer }>(`SELECT short FROM ${table} ORDER BY ref`)).map((r) => JSON.parse(r.short.toString()) as unknown)

for (const backend of BACKENDS)
  describe(`${backend}: one file writes as its lines say, in order`, () => {
    let store: TestStore
    let sql: SqlPort
    beforeEach(async () => {
      store = await createTestStore(backend)
      sql = store.writer
    })
    afterEach(async () => {
      await sql.close()
      await store.cleanup()
    })

    it('the same object twice in one file: the later line wins, tabular rows included', async () => {
      const report = await importFixture(sql, [wh('a', 'Первое'), demand('t', [1, 2, 3]), wh('a', 'Второе'), demand('t', [7])])
      assert.equal(report.ok, true)
      assert.deepEqual(report.counts, { [W]: 2, 'Документ.ТребованиеНакладная': 2 })
      assert.deepEqual(await sql.all('SELECT name FROM cat_warehouses'), [{ name: 'Второе' }])
      assert.deepEqual(await sql.all('SELECT line, quantity FROM doc_demands_materials'), [{ line: 1, quantity: 7 }])
      assert.deepEqual(await sql.all('SELECT COUNT(*) AS n FROM objects'), [{ n: 2 }])
      assert.deepEqual(await shorts(sql, 'api_warehouses'), [{ Код: 'a', Наименование: 'Второе', ЭтоГруппа: false }])
    })

    it('a delete after an upsert in one file removes it; an upsert after the delete stores it again', async () => {
      await importFixture(sql, [wh('a', 'А'), demand('t', [1, 2]), { type: W, ref: uuid('a'), deleted: true }, wh('b', 'Б')])
      assert.deepEqual(await sql.all('SELECT name FROM cat_warehouses'), [{ name: 'Б' }])
      assert.deepEqual(await sql.all('SELECT ref FROM api_warehouses'), [{ ref: uuid('b') }])
      await importFixture(sql, [
        { type: 'Документ.ТребованиеНакладная', ref: uuid('t'), deleted: true },
        demand('t', [5]),
        { type: W, ref: uuid('b'), deleted: true },
      ])
      assert.deepEqual(await sql.all('SELECT line, quantity FROM doc_demands_materials'), [{ line: 1, quantity: 5 }])
      assert.deepEqual(await sql.all('SELECT ref FROM cat_warehouses'), [])
      assert.deepEqual(await sql.all('SELECT ref FROM objects'), [{ ref: uuid('t') }])
    })

    it('an object that changes type in one file leaves nothing of the old type', async () => {
      await importFixture(sql, [wh('x', 'Склад'), { type: 'Справочник.Кассы', ref: uuid('x'), Код: 'x', Наименование: 'Касса' }])
      assert.deepEqual(await sql.all('SELECT ref FROM cat_warehouses'), [])
      assert.deepEqual(await sql.all('SELECT ref FROM api_warehouses'), [])
      assert.deepEqual(await sql.all('SELECT type FROM objects'), [{ type: 'Справочник.Кассы' }])
    })

    it('an attachment moved in one file ends with its last document, its content stored once', async () => {
      const file = (owner: string) => ({
        type: FILE,
        ref: uuid('f'),
        Объект: { type: 'Документ.ТребованиеНакладная', ref: uuid(owner) },
        ИмяФайла: 'скан.pdf',
        Данные: 'AAEC',
      })
      await importFixture(sql, [demand('t1', [1]), demand('t2', [1]), file('t1'), file('t2')])
      assert.deepEqual(await sql.all('SELECT object FROM cat_attachments'), [{ object: uuid('t2') }])
      assert.deepEqual(await sql.all('SELECT owner, seq, chunk FROM cat_attachments_data'), [
        { owner: uuid('f'), seq: 0, chunk: Buffer.from([0, 1, 2]) },
      ])
    })

    it('sends attachment content up to 8 MiB per statement, small files many to one', async () => {
      const sizes: number[][] = []
      const spy = beforeInsert(sql, (table, rows) => {
        if (table === 'cat_attachments_data') sizes.push(rows.map((r) => (r[2] as Buffer).length))
      })
      const file = (key: string, bytes: number) => ({
        type: FILE,
        ref: uuid(key),
        Объект: { type: 'Документ.ТребованиеНакладная', ref: uuid('t') },
        ИмяФайла: `${key}.bin`,
        Данные: Buffer.alloc(bytes, key).toString('base64'),
      })
      // 30 files of 3 KB: one statement. Three of 3 MiB, 4 chunks of 768 KiB each: 10 chunks
      // (7.5 MiB) fill the first statement, the 11th would pass 8 MiB.
      const small = Array.from({ length: 30 }, (_, i) => file(`s${i}`, 3000))
      assert.equal((await importFixture(spy, [demand('t', [1]), ...small])).ok, true)
      assert.deepEqual(sizes, [Array.from({ length: 30 }, () => 3000)])
      sizes.length = 0
      const big = ['b1', 'b2', 'b3'].map((k) => file(k, 3 * 1024 * 1024))
      assert.equal((await importFixture(spy, big)).ok, true)
      assert.deepEqual(sizes, [Array.from({ length: 10 }, () => 786_432), [786_432, 786_432]])
      assert.deepEqual(
        await sql.all('SELECT COUNT(*) AS n, SUM(length(chunk)) AS bytes FROM cat_attachments_data WHERE owner = ?', [uuid('b2')]),
        [{ n: 4, bytes: 3 * 1024 * 1024 }],
      )
    })

    it('a record set replaced twice in one file keeps the last, and the turnovers equal a rebuild', async () => {
      const report = await importFixture(sql, [
        recordSet('p1', [
          ['2024-01-10T12:00:00', 'Приход', 'org', 'ba-1', 10, 10],
          ['2024-02-10T12:00:00', 'Расход', 'org', 'ba-1', 4, 4],
        ]),
        recordSet('p2', [['2024-01-11T12:00:00', 'Приход', 'org', 'ba-1', 100, 100]]),
        recordSet('p1', [['2024-03-10T12:00:00', 'Приход', 'org', 'ba-2', 30, 30]]),
        recordSet('p2', []),
      ])
      assert.equal(report.ok, true)
      assert.deepEqual(await sql.all('SELECT recorder, line, amount FROM reg_cash ORDER BY recorder, line'), [
        { recorder: uuid('p1'), line: 1, amount: 30 },
      ])
      const turnovers = () => sql.all('SELECT * FROM cash_turnovers ORDER BY organization, account, account_type, level, start')
      const incremental = await turnovers()
      assert.equal(incremental.length, 3)
      await sql.transaction(() => cashTurnovers.update(sql, 'all'))
      assert.deepEqual(incremental, await turnovers())
    })

    it('a write that fails while the next lines are read fails the whole file and leaves nothing', async () => {
      // The tabular rows of one document cannot be written; the buffer holding them is written
      // while the file goes on (PostgreSQL) and its error must still reach the caller.
      const failing = beforeInsert(sql, (table) => {
        if (table === 'doc_demands_materials') throw new Error('диск недоступен')
      })
      const lines = [demand('t', [1]), ...Array.from({ length: 25_000 }, (_, i) => wh(`w${i}`, `Склад ${i}`))]
      await assert.rejects(importFixture(failing, lines), { message: 'диск недоступен' })
      assert.deepEqual(await sql.all('SELECT COUNT(*) AS n FROM objects'), [{ n: 0 }])
      assert.deepEqual(await sql.all('SELECT COUNT(*) AS n FROM cat_warehouses'), [{ n: 0 }])
      assert.equal((await importFixture(sql, [wh('a', 'А')])).ok, true)
      assert.deepEqual(await sql.all('SELECT name FROM cat_warehouses'), [{ name: 'А' }])
    })

    it('a file whose rows need more than 65,535 parameters in one batch stores every row', async () => {
      const many = Array.from({ length: 9000 }, (_, i) => wh(`w${i}`, `Склад ${i}`))
      const moves = Array.from({ length: 6000 }, (_, i) => ['2024-01-10T12:00:00', 'Приход', 'org', 'ba-1', i + 1, 0] as const)
      const report = await importFixture(sql, [...many, recordSet('big', moves)])
      assert.equal(report.ok, true)
      assert.deepEqual(await sql.all('SELECT COUNT(*) AS n, COUNT(DISTINCT name) AS names FROM cat_warehouses'), [{ n: 9000, names: 9000 }])
      assert.deepEqual(await sql.all('SELECT COUNT(*) AS n FROM api_warehouses'), [{ n: 9000 }])
      assert.deepEqual(await sql.all('SELECT COUNT(*) AS n, SUM(amount) AS total FROM reg_cash'), [{ n: 6000, total: 18_003_000 }])
      assert.deepEqual(await sql.all("SELECT receipt FROM cash_turnovers WHERE level = 'y'"), [{ receipt: 18_003_000 }])
    })

    // views/rebuild.ts builds 2,000 rows a batch and reads the next batch while it renders this one.
    it('a read model built in several batches keeps each document its own full form', async () => {
      const batches: number[] = []
      const spy = beforeInsert(sql, (table, rows) => {
        if (table === 'api_demands') batches.push(rows.length)
      })
      const demands = Array.from({ length: 2050 }, (_, i) => demand(`d${i}`, [i + 1]))
      assert.equal((await importFixture(spy, demands)).ok, true)
      assert.deepEqual(batches, [2000, 50])
      const forms = await sql.all<{ ref: string; full_form: Buffer }>('SELECT ref, full_form FROM api_demands')
      assert.equal(forms.length, 2050)
      const quantity = new Map(demands.map((d, i) => [d.ref, i + 1]))
      for (const { ref, full_form } of forms) {
        const form = JSON.parse(full_form.toString()) as { Материалы: { Количество: number }[] }
        assert.deepEqual(
          form.Материалы.map((m) => m.Количество),
          [quantity.get(ref)],
          ref,
        )
      }
    })

    it('a read-model write that fails in a later batch fails the file and leaves nothing', async () => {
      let calls = 0
      const failing = beforeInsert(sql, (table) => {
        if (table === 'api_demands' && ++calls === 2) throw new Error('диск недоступен')
      })
      const demands = Array.from({ length: 2050 }, (_, i) => demand(`d${i}`, [i + 1]))
      await assert.rejects(importFixture(failing, demands), { message: 'диск недоступен' })
      assert.deepEqual(await sql.all('SELECT COUNT(*) AS n FROM api_demands'), [{ n: 0 }])
      assert.deepEqual(await sql.all('SELECT COUNT(*) AS n FROM doc_demands'), [{ n: 0 }])
      assert.equal((await importFixture(sql, demands.slice(0, 3))).ok, true)
      assert.deepEqual(await sql.all('SELECT COUNT(*) AS n FROM api_demands'), [{ n: 3 }])
    })
  })
