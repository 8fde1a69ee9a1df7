// A page of `limit` rows cut out of the ready pages a connection keeps (decision "A page cut
// out of kept pages"): the same bytes and cursor as the rows give, one statement once the
// pages are kept, and never bytes of a page rebuilt since.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { pagedList } from '../../src/endpoints/define.js'
import { payments } from '../../src/endpoints/payments.js'
import { warehouses } from '../../src/endpoints/warehouses.js'
import { runList } from '../../src/pipeline/run.js'
import type { PageInfo } from '../../src/endpoints/pages.js'
import type { SqlPort } from '../../src/store/sql.js'
import { readPageHead } from '../../src/views/pages.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { uuid } from '../support/refs.js'
import { BACKENDS } from '../support/app.js'
import { createTestStore } from '../support/stores.js'
import type { Backend, TestStore } from '../support/stores.js'

const KINDS = { sort_name: 'text', ref: 'text' } as const
const now = () => new Date('2026-11-20T12:00:00Z')
const form = (code: string, name: string, group = false) => JSON.stringify({ Код: code, Наименование: name, ЭтоГруппа: group })

/** A port that counts the statements it is asked (the page cache is kept per port). */
function counted(sql: SqlPort): { port: SqlPort; statements: () => number } {
  let n = 0
  const port = new Proxy(sql, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if (prop === 'all' || prop === 'readBytes') n++
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
  return { port, statements: () => n }
}

async function page(sql: SqlPort, limit: number): Promise<{ body: string; next?: string }> {
  let info: PageInfo | undefined
  const body = await runList(warehouses, new Map([['limit', String(limit)]]), { sql, now, page: (p) => (info = p) })
  assert.ok(Buffer.isBuffer(body))
  return { body: body.toString(), ...(info?.next !== undefined ? { next: info.next } : {}) }
}

/** A store of `objects` on `backend` and its serving port, for the suite that calls it. */
function serving(backend: Backend, objects: readonly unknown[]): { readonly store: TestStore; readonly reader: SqlPort } {
  const it = {} as { store: TestStore; reader: SqlPort }
  before(async () => {
    it.store = await createTestStore(backend)
    await it.store.writer.close()
    assert.equal((await it.store.importMore(objects)).ok, true)
    it.reader = await it.store.openReader()
  })
  after(async () => {
    await it.reader.close()
    await it.store.cleanup()
  })
  return it
}

for (const backend of BACKENDS)
  describe(`${backend}: a page cut out of kept pages`, () => {
    const list = pagedList(warehouses)
    const s = serving(backend, warehousesFixture)

    it('gives the first rows’ forms and the last one’s sort keys, reading only the pages’ keys once kept', async () => {
      const { port, statements } = counted(s.reader)
      const head = await readPageHead(port, list, undefined, 3, KINDS)
      assert.ok(head)
      assert.equal(head.n, 3)
      assert.equal(
        Buffer.concat(head.parts).toString(),
        [form('A-1', 'Ёлочный склад'), form('000000001', 'Основной склад'), form('000000010', 'Региональные склады', true)].join(','),
      )
      assert.deepEqual(head.last, ['региональные склады', uuid('g1')])
      // The keys, the page's bytes, its places: three statements the first time; after, the
      // keys alone, and on SQLite not even those while no commit has been seen since.
      const naming = backend === 'sqlite' ? 0 : 1
      assert.equal(statements(), 3)
      const again = await readPageHead(port, list, undefined, 3, KINDS)
      assert.equal(statements(), 3 + naming)
      assert.deepEqual(again, head)
      // After the last row's keys: the next rows, from the place after it in the kept page.
      const next = await readPageHead(port, list, undefined, 3, KINDS, head.last)
      assert.ok(next)
      assert.equal(
        Buffer.concat(next.parts).toString(),
        [
          form('00_%\\1', 'Склад 100% _резерв_ \\ архив'),
          form('000000011', 'склад готовой продукции'),
          form('000000002', 'Склад №2 (Север)'),
        ].join(','),
      )
      assert.deepEqual(next.last, ['склад №2 (север)', uuid('w2')])
      assert.equal(statements(), 3 + 2 * naming)
      // The last row's keys: nothing follows; keys no row has: not cut here (the rows are read).
      assert.deepEqual(await readPageHead(port, list, undefined, 3, KINDS, ['центральный склад', uuid('w6')]), { parts: [], n: 0 })
      assert.equal(await readPageHead(port, list, undefined, 3, KINDS, ['склад', uuid('w9')]), null)
      assert.equal(statements(), 3 + 4 * naming)
      // The whole list: no cursor, nothing cut.
      const whole = await readPageHead(port, list, undefined, 7, KINDS)
      assert.equal(whole?.n, 7)
      assert.equal(whole?.last, undefined)
      assert.equal(statements(), 3 + 5 * naming)
    })

    it('answers a first page as the rows do, and a page rebuilt since with its new bytes', async () => {
      const first = await page(s.reader, 3)
      assert.equal(
        first.body,
        `{"data":[${form('A-1', 'Ёлочный склад')},${form('000000001', 'Основной склад')},${form('000000010', 'Региональные склады', true)}],"errors":[]}`,
      )
      assert.ok(first.next)
      const report = await s.store.importMore([
        { type: 'Справочник.Склады', ref: uuid('b1'), Код: 'B-1', Наименование: 'Аптечный склад', ЭтоГруппа: false },
      ])
      assert.equal(report.ok, true)
      const after = await page(s.reader, 3)
      assert.equal(
        after.body,
        `{"data":[${form('B-1', 'Аптечный склад')},${form('A-1', 'Ёлочный склад')},${form('000000001', 'Основной склад')}],"errors":[]}`,
      )
      const second = await runList(
        warehouses,
        new Map([
          ['limit', '3'],
          ['cursor', after.next!],
        ]),
        { sql: s.reader, now },
      )
      assert.deepEqual(
        JSON.parse(String(second)).data.map((w: { Код: string }) => w.Код),
        ['000000010', '00_%\\1', '000000011'],
      )
    })

    it('reads the rows when a page has no bytes under its new generation (a sync left it to join later)', async () => {
      await s.store.write('UPDATE ready_pages SET body = NULL, gen = gen + 1 WHERE model = ?', [list.model])
      assert.equal(await readPageHead(s.reader, list, undefined, 3, KINDS), null)
      const first = await page(s.reader, 3)
      assert.equal(
        first.body,
        `{"data":[${form('B-1', 'Аптечный склад')},${form('A-1', 'Ёлочный склад')},${form('000000001', 'Основной склад')}],"errors":[]}`,
      )
    })
  })

/** An expense request paid on day `day` of May 2024: one stored page per day of payments. */
const request = (day: number) => ({
  type: 'Документ.ЗаявкаНаРасходованиеСредств',
  ref: uuid(`зр-${day}`),
  Номер: `ЗР-${String(day).padStart(4, '0')}`,
  Дата: '2024-04-30T09:00:00',
  ДатаРасхода: `2024-05-${String(day).padStart(2, '0')}`,
  СуммаДокумента: day,
  Проведен: true,
})
const PAYMENT_KINDS = { expense_date: 'text', number: 'text', ref: 'text' } as const

for (const backend of BACKENDS)
  describe(`${backend}: a page over more stored pages than the first statement names`, () => {
    const list = pagedList(payments)
    const s = serving(
      backend,
      Array.from({ length: 30 }, (_, i) => request(i + 1)),
    )

    it('names 16 pages, then 64, and cuts the page out of them', async () => {
      const { port, statements } = counted(s.reader)
      const numbers = (head: { parts: readonly Buffer[] } | null) =>
        JSON.parse(`[${Buffer.concat(head!.parts).toString()}]`).map((p: { Номер: string }) => p.Номер)
      // Newest first: the 20 days from 30 May back to 11 May, and the cursor of the 11th.
      const head = await readPageHead(port, list, undefined, 20, PAYMENT_KINDS)
      assert.equal(head?.n, 20)
      assert.deepEqual(numbers(head).slice(0, 2), ['ЗР-0030', 'ЗР-0029'])
      assert.equal(numbers(head).at(-1), 'ЗР-0011')
      assert.deepEqual(head?.last, ['2024-05-11T00:00:00', 'ЗР-0011', uuid('зр-11')])
      // Two namings (16 pages, then 64; on SQLite one read of all 30, kept), 20 pages' bytes
      // (the 21st's count says a row follows), the last page's places.
      assert.equal(statements(), (backend === 'sqlite' ? 1 : 2) + 20 + 1)
      const rest = await readPageHead(port, list, undefined, 20, PAYMENT_KINDS, head!.last)
      assert.deepEqual(numbers(rest), [
        'ЗР-0010',
        'ЗР-0009',
        'ЗР-0008',
        'ЗР-0007',
        'ЗР-0006',
        'ЗР-0005',
        'ЗР-0004',
        'ЗР-0003',
        'ЗР-0002',
        'ЗР-0001',
      ])
      assert.equal(rest?.last, undefined)
    })
  })

describe('sqlite: the pages a connection names, kept while it sees no commit', () => {
  const list = pagedList(warehouses)
  const s = serving('sqlite', warehousesFixture)

  it('names them again, and cuts the new bytes, once another connection has committed', async () => {
    const { port, statements } = counted(s.reader)
    const codes = (head: { parts: readonly Buffer[] } | null) =>
      JSON.parse(`[${Buffer.concat(head!.parts).toString()}]`).map((w: { Код: string }) => w.Код)
    assert.deepEqual(codes(await readPageHead(port, list, undefined, 3, KINDS)), ['A-1', '000000001', '000000010'])
    assert.deepEqual(codes(await readPageHead(port, list, undefined, 3, KINDS)), ['A-1', '000000001', '000000010'])
    assert.equal(statements(), 3)
    const report = await s.store.importMore([
      { type: 'Справочник.Склады', ref: uuid('b1'), Код: 'B-1', Наименование: 'Аптечный склад', ЭтоГруппа: false },
    ])
    assert.equal(report.ok, true)
    assert.deepEqual(codes(await readPageHead(port, list, undefined, 3, KINDS)), ['B-1', 'A-1', '000000001'])
    // The pages named again, the rebuilt page's bytes, its places.
    assert.equal(statements(), 6)
  })
})
