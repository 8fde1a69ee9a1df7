// Ready pages (views/pages.ts): a list without filters, or with only its
// period, is served from the pages the import keeps, and those pages are exactly the read
// model's rows in the list's order — after imports in several transactions, a document
// moved to another day, a removed one, and a bucket longer than one statement reads.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { demoFiles } from '../../src/demo/generate.js'
import type { ListEndpoint } from '../../src/endpoints/define.js'
import { ENDPOINTS } from '../../src/endpoints/index.js'
import { PAGES_TABLE, PAGE_ROWS } from '../../src/views/pages.js'
import { listOrder, pagedList } from '../../src/endpoints/define.js'
import { storedForm } from '../../src/views/full-forms.js'
import { ChunkWriter } from '../../src/views/json-stream.js'
import { runList } from '../../src/pipeline/run.js'
import type { Body } from '../../src/pipeline/run.js'
import type { Row, SqlPort, SqlValue } from '../../src/store/sql.js'
import { BACKENDS, endStore, importFixture } from '../support/app.js'
import { uuid } from '../support/refs.js'
import { createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

const LISTS = ENDPOINTS.filter((e): e is ListEndpoint => e.kind === 'list')
const byService = (service: string) => LISTS.find((e) => e.service === service)!

async function bytes(body: Body): Promise<Buffer> {
  if (Buffer.isBuffer(body)) return body
  const parts: Buffer[] = []
  for await (const part of body) parts.push(part)
  return Buffer.concat(parts)
}

async function answer(sql: SqlPort, ep: ListEndpoint, query: string): Promise<{ body: string; rows: number }> {
  let rows = -1
  const body = await bytes(
    await runList(ep, new Map(new URLSearchParams(query)), { sql, now: () => new Date('2026-01-15T12:00:00Z'), rows: (n) => (rows = n) }),
  )
  return { body: body.toString(), rows }
}

/** The read model's rows of a list (of a day range), in its order: the oracle the pages must equal. */
async function modelRows(sql: SqlPort, ep: ListEndpoint, columns: string, days?: { from: string; toExclusive: string }): Promise<Row[]> {
  const order = listOrder(ep)
    .map((k) => `${k.column} ${k.dir.toUpperCase()}`)
    .join(', ')
  const column = ep.period?.column
  const where = days ? ` WHERE ${column} >= ? AND ${column} < ?` : ''
  const params: SqlValue[] = days ? [days.from, days.toExclusive] : []
  return sql.all<Row>(`SELECT ${columns} FROM ${ep.readModel.table}${where} ORDER BY ${order}`, params)
}

/** The answer straight from the read model's short forms. */
async function expected(
  sql: SqlPort,
  ep: ListEndpoint,
  days?: { from: string; toExclusive: string },
): Promise<{ body: string; rows: number }> {
  const rows = await modelRows(sql, ep, 'short', days)
  return { body: `{"data":[${rows.map((r) => (r.short as Buffer).toString()).join(',')}],"errors":[]}`, rows: rows.length }
}

/** The full-form answer straight from the read model's rows, each spliced as stored. */
async function expectedFull(
  sql: SqlPort,
  ep: ListEndpoint,
  days?: { from: string; toExclusive: string },
): Promise<{ body: string; rows: number }> {
  const forms: string[] = []
  const issues: string[] = []
  for (const row of await modelRows(sql, ep, 'full_form, full_issue, full_blobs', days)) {
    if (String(row.full_issue) !== '') issues.push(String(row.full_issue))
    if (row.full_form === null) continue
    const out = new ChunkWriter()
    const parts: Buffer[] = []
    for await (const part of storedForm(sql, row.full_form as Buffer, String(row.full_blobs), out)) parts.push(part)
    parts.push(out.take() ?? Buffer.alloc(0))
    forms.push(Buffer.concat(parts).toString())
  }
  return { body: `{"data":[${forms.join(',')}],"errors":${JSON.stringify(issues)}}`, rows: forms.length }
}

const dmy = (iso: string) => `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`
const next = (iso: string, days: number) => {
  const d = new Date(`${iso}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}

async function pageCount(sql: SqlPort, model: string): Promise<{ pages: number; rows: number }> {
  const [r] = await sql.all<Row>(`SELECT count(*) AS pages, COALESCE(sum(n), 0) AS rows FROM ${PAGES_TABLE} WHERE model = ?`, [model])
  return { pages: Number(r!.pages), rows: Number(r!.rows) }
}

/**
 * `sql` with its byte reads (ready pages' bodies) counted, and the rows they returned;
 * `beforeNextRead` runs a write just before the next byte read (an import racing a request).
 */
function countingByteReads(sql: SqlPort) {
  let n = 0
  let rows = 0
  let hook: (() => Promise<void>) | undefined
  const counted = new Proxy(sql, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver)
      if (name !== 'readBytes') return typeof value === 'function' ? value.bind(target) : value
      return async (...args: Parameters<SqlPort['readBytes']>) => {
        const write = hook
        hook = undefined
        await write?.()
        n++
        const read = await target.readBytes(...args)
        rows += read.length
        return read
      }
    },
  })
  return { counted, byteReads: () => n, rowsRead: () => rows, beforeNextRead: (write: () => Promise<void>) => void (hook = write) }
}

for (const backend of BACKENDS) {
  describe(`ready pages (${backend})`, () => {
    let store: TestStore
    before(async () => {
      store = await createTestStore(backend)
      // One transaction per demo file: most of them rebuild the pages of some days only.
      for (const file of demoFiles({ scale: 0.3, seed: 7 })) {
        const report = await importFixture(store.writer, [...file.objects()])
        assert.ok(report.ok, JSON.stringify(report.invalid.slice(0, 2)))
      }
    })
    after(() => endStore(backend, store))

    it('cuts dated lists by day and the others into one bucket', () => {
      assert.equal(pagedList(byService('payments')).day, 'expense_date')
      assert.equal(pagedList(byService('payments')).dir, 'desc')
      assert.equal(pagedList(byService('demands')).day, 'doc_date')
      assert.equal(pagedList(byService('demands')).dir, 'asc')
      assert.equal(pagedList(byService('warehouses')).day, undefined)
      assert.equal(pagedList(byService('specifications')).day, undefined)
    })

    it('holds every row of every list once', async () => {
      for (const ep of LISTS) {
        const [{ n }] = (await store.writer.all<Row>(`SELECT count(*) AS n FROM ${ep.readModel.table}`)) as [Row]
        assert.ok(Number(n) > 0, ep.service)
        assert.equal((await pageCount(store.writer, ep.readModel.table)).rows, Number(n), ep.service)
      }
    })

    it('answers the whole list and periods exactly as the rows print', async () => {
      for (const ep of LISTS) {
        assert.deepEqual(await answer(store.writer, ep, ''), await expected(store.writer, ep), `${ep.service} whole`)
        const column = ep.period?.column
        if (!column) continue
        const days = await store.writer.all<Row>(`SELECT DISTINCT substr(${column}, 1, 10) AS d FROM ${ep.readModel.table} ORDER BY d`)
        const mid = String(days[Math.floor(days.length / 2)]!.d)
        const three = { from: mid, toExclusive: next(mid, 3) }
        const got = await answer(store.writer, ep, `from=${dmy(mid)}&to=${dmy(next(mid, 2))}`)
        assert.deepEqual(got, await expected(store.writer, ep, three), `${ep.service} period`)
        if (ep.period!.date) {
          assert.deepEqual(
            await answer(store.writer, ep, `date=${dmy(mid)}`),
            await expected(store.writer, ep, { from: mid, toExclusive: next(mid, 1) }),
            `${ep.service} date`,
          )
          // Both given: the rows inside both.
          const both = await answer(store.writer, ep, `from=${dmy(mid)}&to=${dmy(next(mid, 2))}&date=${dmy(next(mid, 1))}`)
          assert.deepEqual(both, await expected(store.writer, ep, { from: next(mid, 1), toExclusive: next(mid, 2) }), `${ep.service} both`)
        }
      }
    })

    it('answers full forms of the whole list and of periods exactly as the rows print', async () => {
      // Lists whose `full` stands alone (transfers and specifications need a filter with it).
      const full = LISTS.filter((ep) => ep.fullPage !== undefined && !(ep.rules ?? []).some((r) => r.when === 'full'))
      assert.deepEqual(
        full.map((ep) => ep.service),
        ['payments', 'receipts', 'orders', 'sorders', 'morders', 'demands'],
      )
      let joined = 0
      let spliced = 0
      for (const ep of full) {
        const key = `${ep.readModel.table}:full`
        const [c] = (await store.writer.all<Row>(
          `SELECT count(body) AS joined, sum(CASE WHEN blobs <> '' THEN 1 ELSE 0 END) AS spliced FROM ${PAGES_TABLE} WHERE model = ?`,
          [key],
        )) as [Row]
        joined += Number(c.joined)
        spliced += Number(c.spliced)
        assert.deepEqual(await answer(store.writer, ep, 'full=true'), await expectedFull(store.writer, ep), `${ep.service} whole`)
        const column = ep.period!.column
        const days = await store.writer.all<Row>(`SELECT DISTINCT substr(${column}, 1, 10) AS d FROM ${ep.readModel.table} ORDER BY d`)
        const mid = String(days[Math.floor(days.length / 2)]!.d)
        const got = await answer(store.writer, ep, `full=true&from=${dmy(mid)}&to=${dmy(next(mid, 2))}`)
        assert.deepEqual(got, await expectedFull(store.writer, ep, { from: mid, toExclusive: next(mid, 3) }), `${ep.service} period`)
      }
      // Every page was joined, none left with contents to splice: the demo's documents carry at
      // most 12 KB of contents each, kept ready in their forms (page-contents.test.ts splices heavier ones).
      assert.ok(joined > 0 && spliced === 0, `joined ${joined}, spliced ${spliced}`)
    })

    it('follows a document moved to another day, and one removed', async () => {
      const ep = byService('payments')
      const [moved, removed] = await store.writer.all<Row>(`SELECT ref, expense_date FROM api_payments ORDER BY ref LIMIT 2`)
      const source = [...demoFiles({ scale: 0.3, seed: 7 })].flatMap((f) => [...f.objects()]) as Record<string, unknown>[]
      const object = source.find((o) => o.ref === moved!.ref)!
      const oldDay = String(moved!.expense_date).slice(0, 10)
      const newDay = '2019-06-05'
      const report = await importFixture(store.writer, [
        { ...object, ДатаРасхода: `${newDay}T10:00:00` },
        { type: object.type, ref: removed!.ref, deleted: true },
      ])
      assert.ok(report.ok, JSON.stringify(report.invalid))
      const [{ n }] = (await store.writer.all<Row>('SELECT count(*) AS n FROM api_payments')) as [Row]
      assert.equal((await pageCount(store.writer, 'api_payments')).rows, Number(n))
      const onNewDay = await answer(store.writer, ep, `date=${dmy(newDay)}`)
      assert.equal(onNewDay.rows, 1)
      assert.deepEqual(onNewDay, await expected(store.writer, ep, { from: newDay, toExclusive: next(newDay, 1) }))
      assert.deepEqual(
        await answer(store.writer, ep, `date=${dmy(oldDay)}`),
        await expected(store.writer, ep, { from: oldDay, toExclusive: next(oldDay, 1) }),
      )
      assert.deepEqual(await answer(store.writer, ep, ''), await expected(store.writer, ep))
    })

    it('reads the pages of a period once, and again after an import rebuilds them', async () => {
      const ep = byService('payments')
      const days = await store.writer.all<Row>('SELECT DISTINCT substr(expense_date, 1, 10) AS d FROM api_payments ORDER BY d')
      const day = String(days[Math.floor(days.length / 3)]!.d)
      // Two days that both have payments: two pages, one of which the import below rebuilds.
      const day2 = String(days[Math.floor(days.length / 3) + 1]!.d)
      const query = `from=${dmy(day)}&to=${dmy(day2)}`
      const period = { from: day, toExclusive: next(day2, 1) }
      const { counted, byteReads, rowsRead, beforeNextRead } = countingByteReads(store.writer)
      const first = await answer(counted, ep, query)
      assert.deepEqual(first, await expected(store.writer, ep, period))
      assert.ok(first.rows > 0)
      const reads = byteReads()
      // The same pages at the same generation: their keys are read, not their bytes; asked
      // again, the joined answer is kept too (joinedAnswer), and given as it was built.
      assert.deepEqual(await answer(counted, ep, query), first)
      assert.deepEqual(await answer(counted, ep, query), first)
      assert.deepEqual(await answer(counted, ep, query), first)
      assert.equal(byteReads(), reads)
      const [doc] = await store.writer.all<Row>('SELECT ref FROM api_payments WHERE substr(expense_date, 1, 10) = ? ORDER BY ref LIMIT 1', [
        day,
      ])
      const source = [...demoFiles({ scale: 0.3, seed: 7 })].flatMap((f) => [...f.objects()]) as Record<string, unknown>[]
      const object = source.find((o) => o.ref === doc!.ref)!
      const report = await importFixture(store.writer, [{ ...object, Комментарий: 'страница перестроена' }])
      assert.ok(report.ok, JSON.stringify(report.invalid))
      const rowsBefore = rowsRead()
      const after = await answer(counted, ep, query)
      assert.equal(byteReads(), reads + 1)
      // Only the rebuilt day's page: the other day's is still the one kept.
      assert.equal(rowsRead() - rowsBefore, 1)
      assert.deepEqual(after, await expected(store.writer, ep, period))
      assert.ok(after.body.includes('страница перестроена'))
      assert.notEqual(after.body, first.body)

      // A page rebuilt again between the keys and the bytes: the answer is read whole, never
      // one day's new page beside the other day's old one.
      const [doc2] = await store.writer.all<Row>(
        'SELECT ref FROM api_payments WHERE substr(expense_date, 1, 10) = ? ORDER BY ref LIMIT 1',
        [day2],
      )
      const object2 = source.find((o) => o.ref === doc2!.ref)!
      assert.ok((await importFixture(store.writer, [{ ...object, Комментарий: 'первая правка' }])).ok)
      beforeNextRead(async () => {
        const raced = await importFixture(store.writer, [
          { ...object, Комментарий: 'вторая правка' },
          { ...object2, Комментарий: 'правка второго дня' },
        ])
        assert.ok(raced.ok, JSON.stringify(raced.invalid))
      })
      const raced = await answer(counted, ep, query)
      assert.deepEqual(raced, await expected(store.writer, ep, period))
      assert.ok(raced.body.includes('вторая правка') && raced.body.includes('правка второго дня'))
    })

    it("keeps a large answer's pages in memory only where reading them is dear (PostgreSQL)", async () => {
      const ep = byService('warehouses')
      // ~1,000 warehouses of ~400-byte names: a whole list of 2–3 pages over 256 KiB.
      const long = Array.from({ length: 1000 }, (_, i) => ({
        type: 'Справочник.Склады',
        ref: uuid(`ready-pages-long-${i}`),
        Код: `Д${String(i).padStart(8, '0')}`,
        Наименование: `Склад ${String(i).padStart(5, '0')} ${'у дальней дороги '.repeat(12)}`,
        ЭтоГруппа: false,
      }))
      const report = await importFixture(store.writer, long)
      assert.ok(report.ok, JSON.stringify(report.invalid.slice(0, 2)))
      const { counted, byteReads } = countingByteReads(store.writer)
      const first = await answer(counted, ep, '')
      assert.deepEqual(first, await expected(store.writer, ep))
      const size = Buffer.byteLength(first.body)
      assert.ok(size > 256 * 1024 && size < 1024 * 1024, `answer of ${size} bytes`)
      assert.deepEqual(await answer(counted, ep, ''), first)
      assert.deepEqual(await answer(counted, ep, ''), first)
      // SQLite reads them again (a file read is cheaper than keeping big buffers); PostgreSQL
      // keeps the pages of any answer the event loop gives (up to 1 MiB), so reads them once.
      assert.equal(byteReads(), backend === 'sqlite' ? 3 : 1)
    })

    it('streams a bucket longer than one read, page by page', async () => {
      const ep = byService('warehouses')
      const many = Array.from({ length: PAGE_ROWS * 17 + 3 }, (_, i) => ({
        type: 'Справочник.Склады',
        ref: uuid(`ready-pages-${i}`),
        Код: String(i).padStart(9, '0'),
        Наименование: `Склад ${String(i).padStart(5, '0')}`,
        ЭтоГруппа: false,
      }))
      const report = await importFixture(store.writer, many)
      assert.ok(report.ok, JSON.stringify(report.invalid.slice(0, 2)))
      const { pages } = await pageCount(store.writer, 'api_warehouses')
      assert.ok(pages >= 18, `pages: ${pages}`)
      const body = await runList(ep, new Map(), { sql: store.writer, now: () => new Date() })
      assert.ok(!Buffer.isBuffer(body), 'a long list is streamed')
      const got = (await bytes(body)).toString()
      assert.equal(got, (await expected(store.writer, ep)).body)
      assert.ok((JSON.parse(got) as { data: unknown[] }).data.length >= PAGE_ROWS * 17 + 3)
    })
  })
}
