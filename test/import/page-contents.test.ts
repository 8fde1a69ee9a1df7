// A ready page of full forms whose documents carry attachments keeps its joined body and
// where each content goes (views/pages.ts); serving splices the contents in,
// the small ones read many per statement, a longer one chunk by chunk (full-forms.ts). A
// document whose contents weigh READY_CONTENTS or less in all keeps them in its form as
// Base64 (views/attachments.ts). The answer is byte for byte what the rows print one by one.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { ListEndpoint } from '../../src/endpoints/define.js'
import { ENDPOINTS } from '../../src/endpoints/index.js'
import { READY_CONTENTS } from '../../src/views/attachments.js'
import { storedForm } from '../../src/views/full-forms.js'
import { PAGES_TABLE, fullKey } from '../../src/views/pages.js'
import { ChunkWriter } from '../../src/views/json-stream.js'
import { LOOP_BYTES, runList } from '../../src/pipeline/run.js'
import { inProcessExecutor } from '../../src/serving/in-process.js'
import { BLOB_CHUNK } from '../../src/store/blobs.js'
import type { ColumnKind, Row, SqlPort } from '../../src/store/sql.js'
import { documentsFixture } from '../fixtures/documents.js'
import { BACKENDS, endStore, fixtureStore, importFixture } from '../support/app.js'
import { loggedReads } from '../support/failing-sql.js'
import type { LoggedRead } from '../support/failing-sql.js'
import { uuid } from '../support/refs.js'
import { createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

const payments = ENDPOINTS.find((e): e is ListEndpoint => e.kind === 'list' && e.service === 'payments')!
const REQUEST = 'Документ.ЗаявкаНаРасходованиеСредств'
const FILE = 'Справочник.ХранилищеДополнительнойИнформации'

/** Bytes that differ from position to position, so a content spliced at the wrong place or from the wrong chunk shows. */
const content = (seed: number, size: number): Buffer => {
  const bytes = Buffer.alloc(size)
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed * 17 + (i >> 8)) & 0xff
  return bytes
}

// Five requests on 2025-06-10 and one on 2025-06-11. Contents of 700,000 bytes: four of
// them exceed one statement's 3 MiB of small contents, so those are read in two. The
// contents of 06-11 weigh nine bytes: kept ready in the form, nothing to splice.
const FILES: Record<string, [name: string, size: number][]> = {
  'стр-1': [
    ['a.txt', 11],
    ['b.bin', 700_000],
  ],
  'стр-2': [],
  'стр-3': [
    ['большой.bin', BLOB_CHUNK + 1000],
    ['c.bin', 700_000],
  ],
  'стр-4': [
    ['ровно-чанк.bin', BLOB_CHUNK],
    ['d.bin', 700_000],
    ['e.txt', 3],
  ],
  'стр-5': [
    ['f.bin', 700_000],
    ['ж.txt', 5],
  ],
  'стр-6': [['другой-день.txt', 9]],
}

const objects = Object.entries(FILES).flatMap(([key, files], i) => [
  {
    type: REQUEST,
    ref: uuid(key),
    Номер: `ЗР-${String(i + 1).padStart(4, '0')}`,
    Дата: '2025-06-01T09:00:00',
    ДатаРасхода: key === 'стр-6' ? '2025-06-11T00:00:00' : '2025-06-10T00:00:00',
    СуммаДокумента: 100 + i,
    Проведен: true,
  },
  ...files.map(([name, size], j) => ({
    type: FILE,
    ref: uuid(`${key}-файл-${j}`),
    Наименование: name,
    Объект: { type: REQUEST, ref: uuid(key) },
    ИмяФайла: name,
    Данные: content(i * 10 + j, size).toString('base64'),
  })),
  // Marked for deletion: not printed, not read.
  {
    type: FILE,
    ref: uuid(`${key}-удалённый`),
    Наименование: 'x.txt',
    Объект: { type: REQUEST, ref: uuid(key) },
    ИмяФайла: 'x.txt',
    Данные: 'eA==',
    ПометкаУдаления: true,
  },
])

async function text(body: Buffer | AsyncIterable<Buffer>): Promise<string> {
  if (Buffer.isBuffer(body)) return body.toString()
  const parts: Buffer[] = []
  for await (const part of body) parts.push(part)
  return Buffer.concat(parts).toString()
}

const answer = async (sql: SqlPort, query: string) =>
  runList(payments, new Map(new URLSearchParams(query)), { sql, now: () => new Date('2026-01-15T12:00:00Z') })

/** The forms the rows of a day print one by one, each spliced as stored: the oracle. */
async function rowByRow(sql: SqlPort, day: string): Promise<string[]> {
  const rows = await sql.all<Row>(
    'SELECT full_form, full_blobs FROM api_payments WHERE expense_date >= ? AND expense_date < ? ORDER BY expense_date DESC, number DESC, ref DESC',
    [day, `${day}T24`],
  )
  const forms: string[] = []
  for (const row of rows) {
    const out = new ChunkWriter()
    const parts: Buffer[] = []
    for await (const part of storedForm(sql, row.full_form as Buffer, String(row.full_blobs), out)) parts.push(part)
    parts.push(out.take() ?? Buffer.alloc(0))
    forms.push(Buffer.concat(parts).toString())
  }
  return forms
}

for (const backend of BACKENDS) {
  describe(`ready pages with attachment contents (${backend})`, () => {
    let store: TestStore
    before(async () => {
      store = await fixtureStore(backend, objects)
    })
    after(() => endStore(backend, store))

    it('keeps the page body and where each content goes', async () => {
      // The contents of each form holding some, in the page's order (the store aggregates them in
      // any order); the first element is the page's base.
      const spotsByForm = (blobs: string) =>
        (blobs === '' ? [] : (JSON.parse(blobs) as [number, unknown[]][]))
          .slice(1)
          .sort((a, b) => a[0] - b[0])
          .map(([, spots]) => spots.length)
      const pages = await store.writer.all<Row>(
        `SELECT bucket, seq, n, body IS NULL AS missing, blobs FROM ${PAGES_TABLE} WHERE model = ? ORDER BY bucket`,
        ['api_payments:full'],
      )
      assert.deepEqual(
        pages.map((p) => [p.bucket, Number(p.seq), Number(p.n), Boolean(Number(p.missing)), spotsByForm(String(p.blobs))]),
        [
          ['2025-06-10', 0, 5, false, [2, 3, 2, 2]],
          ['2025-06-11', 0, 1, false, []],
        ],
      )
    })

    it('leaves to the pool a page whose contents weigh over LOOP_BYTES; the event loop gives the small one as the pool would', async () => {
      const loop = inProcessExecutor(store.writer, 0)
      const how = { signal: new AbortController().signal }
      const request = (query: string) => ({ service: 'payments', query, now: new Date('2025-06-20T12:00:00Z') })
      assert.equal(LOOP_BYTES, 1024 * 1024)
      // 06-10 splices ~3 MB of contents; 06-11 keeps its nine bytes ready.
      assert.equal(await loop.attempt(request('full=true&date=10.06.2025'), how), null)
      const small = await loop.attempt(request('full=true&date=11.06.2025'), how)
      assert.notEqual(small, null)
      const got = await text(small!)
      assert.equal(got, await text(await loop.execute(request('full=true&date=11.06.2025'), how)))
      assert.match(got, /"ИмяФайла":"другой-день\.txt"/)
    })

    it('splices every content into the page, as the rows print it, in few statements', async () => {
      const log: LoggedRead[] = []
      const sql = loggedReads(log)(store.writer)
      const body = await answer(sql, 'full=true&from=10.06.2025&to=11.06.2025')
      assert.ok(!Buffer.isBuffer(body), 'a page with contents is streamed')
      const got = await text(body)
      const reads = log.map((r) => [/FROM (\w+)/.exec(r.text)![1], r.params.length])
      // The pages; then the contents of 06-10 up to 3 MiB (seven, padded to a power of two),
      // the long one chunk by chunk, the one left over. 06-11's is in its page already.
      assert.deepEqual(reads, [
        ['ready_pages', 3],
        ['cat_attachments_data', 8],
        ['cat_attachments_data', 2],
        ['cat_attachments_data', 2],
        ['cat_attachments_data', 1],
      ])
      const forms = [...(await rowByRow(store.writer, '2025-06-11')), ...(await rowByRow(store.writer, '2025-06-10'))]
      assert.equal(forms.length, 6)
      assert.equal(got, `{"data":[${forms.join(',')}],"errors":[]}`)
      const data = (JSON.parse(got) as { data: { Номер: string; Вложения: { ИмяФайла: string; Данные: string }[] }[] }).data
      assert.deepEqual(
        data.map((d) => [d.Номер, d.Вложения.map((v) => v.ИмяФайла)]),
        [
          ['ЗР-0006', ['другой-день.txt']],
          ['ЗР-0005', ['f.bin', 'ж.txt']],
          ['ЗР-0004', ['d.bin', 'e.txt', 'ровно-чанк.bin']],
          ['ЗР-0003', ['c.bin', 'большой.bin']],
          ['ЗР-0002', []],
          ['ЗР-0001', ['a.txt', 'b.bin']],
        ],
      )
      for (const d of data) {
        const i = Number(d.Номер.slice(3)) - 1
        const files = Object.values(FILES)[i]!
        for (const v of d.Вложения) {
          const j = files.findIndex(([name]) => name === v.ИмяФайла)
          assert.ok(Buffer.from(v.Данные, 'base64').equals(content(i * 10 + j, files[j]![1])), `${d.Номер} ${v.ИмяФайла}`)
        }
      }
    })

    it('breaks the answer when a content changed size after its page was read', async () => {
      const ref = uuid('стр-1-файл-0')
      const shrunk = (sql: SqlPort): SqlPort =>
        new Proxy(sql, {
          get(target, key) {
            // Contents are read by `readBytes` (binary COPY on PostgreSQL), other rows by `all`.
            if (key !== 'all' && key !== 'readBytes') {
              const value: unknown = Reflect.get(target, key, target)
              return typeof value === 'function' ? value.bind(target) : value
            }
            return async (t: string, params: readonly unknown[] = [], columns?: Record<string, ColumnKind>) => {
              const rows =
                key === 'all' ? await target.all<Row>(t, params as never) : await target.readBytes<Row>(t, params as never, columns!)
              return t.includes('cat_attachments_data')
                ? rows.map((r) => (r.owner === ref ? { ...r, chunk: (r.chunk as Buffer).subarray(1) } : r))
                : rows
            }
          },
        })
      await assert.rejects(text(await answer(shrunk(store.writer), 'full=true&date=10.06.2025')), {
        message: `attachment ${ref} changed while it was being read`,
      })
    })
  })
}

describe('which endpoints print attachment contents in their full pages', () => {
  it('is payments and receipts, which keep the small contents ready, not supplier orders, whose attachments print as a list', async () => {
    const store = await createTestStore('sqlite')
    try {
      const report = await importFixture(store.writer, documentsFixture)
      assert.ok(report.ok, JSON.stringify(report.invalid.slice(0, 2)))
      // The fixture's contents, a few bytes each, as their pages print them.
      const contents = ['%PDF-1.4 счёт №15', 'ТОРГ-12', 'таблица'].map((t) => `"Данные":"${Buffer.from(t).toString('base64')}"`)
      const printing: string[] = []
      for (const ep of ENDPOINTS) {
        if (ep.kind !== 'list' || !ep.fullPage) continue
        const pages = await store.writer.all<Row>(`SELECT body, blobs FROM ${PAGES_TABLE} WHERE model = ?`, [fullKey(ep.readModel.table)])
        assert.deepEqual(
          pages.filter((p) => p.blobs !== ''),
          [],
          `${ep.service}: nothing left to splice`,
        )
        if (pages.some((p) => contents.some((c) => String(p.body ?? '').includes(c)))) printing.push(ep.service)
      }
      assert.deepEqual(printing, ['payments', 'receipts'])
    } finally {
      await store.writer.close()
      await store.cleanup()
    }
  })
})

for (const backend of BACKENDS) {
  describe(`attachment contents kept ready in their document's form (${backend})`, () => {
    // Two requests: contents of exactly READY_CONTENTS bytes in all, and one byte more.
    const request = (key: string, i: number) => ({
      type: REQUEST,
      ref: uuid(key),
      Номер: `ЗР-${String(i).padStart(4, '0')}`,
      Дата: '2025-07-01T09:00:00',
      ДатаРасхода: '2025-07-02T00:00:00',
      СуммаДокумента: 100,
      Проведен: true,
    })
    const file = (key: string, j: number, bytes: Buffer) => ({
      type: FILE,
      ref: uuid(`${key}-файл-${j}`),
      Наименование: `f${j}`,
      Объект: { type: REQUEST, ref: uuid(key) },
      ИмяФайла: `f${j}.bin`,
      Данные: bytes.toString('base64'),
    })
    const objects = [
      request('лёгкий', 1),
      file('лёгкий', 0, content(1, 16_000)),
      file('лёгкий', 1, content(2, 384)),
      request('тяжёлый', 2),
      file('тяжёлый', 0, content(3, 16_000)),
      file('тяжёлый', 1, content(4, 385)),
    ]
    let store: TestStore
    before(async () => {
      store = await fixtureStore(backend, objects)
    })
    after(() => endStore(backend, store))

    const stored = async () =>
      (await store.writer.all<Row>('SELECT number, full_form, full_blobs FROM api_payments ORDER BY number')).map((r) => [
        r.number,
        (r.full_form as Buffer).includes(`"Данные":"${content(1, 16_000).toString('base64')}"`),
        (r.full_form as Buffer).includes(`"Данные":"${content(3, 16_000).toString('base64')}"`),
        String(r.full_blobs) === '' ? 0 : (JSON.parse(String(r.full_blobs)) as unknown[]).length,
      ])
    const files = async () => {
      const got = JSON.parse(await text(await answer(store.writer, 'full=true&date=02.07.2025'))) as {
        data: { Номер: string; Вложения: { ИмяФайла: string; Данные: string }[] }[]
      }
      return got.data.map((d) => [d.Номер, d.Вложения.map((v) => Buffer.from(v.Данные, 'base64').length)])
    }

    it('keeps 16,384 bytes of contents in the form; one byte more stays in its chunks, spliced in', async () => {
      assert.equal(READY_CONTENTS, 16_384)
      assert.deepEqual(await stored(), [
        ['ЗР-0001', true, false, 0],
        ['ЗР-0002', false, false, 2],
      ])
      assert.deepEqual(await files(), [
        ['ЗР-0002', [16_000, 385]],
        ['ЗР-0001', [16_000, 384]],
      ])
    })

    it('prints a content replaced by one of the same size at once: the import rebuilds its document', async () => {
      const report = await importFixture(store.writer, [file('лёгкий', 0, content(5, 16_000)), file('тяжёлый', 0, content(6, 16_000))])
      assert.ok(report.ok, JSON.stringify(report.invalid.slice(0, 2)))
      const got = JSON.parse(await text(await answer(store.writer, 'full=true&date=02.07.2025'))) as {
        data: { Номер: string; Вложения: { ИмяФайла: string; Данные: string }[] }[]
      }
      assert.deepEqual(
        got.data.map((d) => [d.Номер, d.Вложения.map((v) => v.Данные)]),
        [
          ['ЗР-0002', [content(6, 16_000).toString('base64'), content(4, 385).toString('base64')]],
          ['ЗР-0001', [content(5, 16_000).toString('base64'), content(2, 384).toString('base64')]],
        ],
      )
    })

    it('gives a document an errors entry when a content is not its size as its form is built', async () => {
      const ref = uuid('лёгкий-файл-1')
      await store.writer.run('UPDATE cat_attachments_data SET chunk = ? WHERE owner = ?', [content(7, 383), ref])
      const report = await importFixture(store.writer, [request('лёгкий', 1)])
      assert.ok(report.ok, JSON.stringify(report.invalid.slice(0, 2)))
      const got = JSON.parse(await text(await answer(store.writer, 'full=true&date=02.07.2025'))) as {
        data: { Номер: string }[]
        errors: string[]
      }
      assert.deepEqual(
        got.data.map((d) => d.Номер),
        ['ЗР-0002'],
      )
      assert.deepEqual(got.errors, [`payments: документ ${uuid('лёгкий')}: attachment ${ref} changed while it was being read`])
    })
  })
}
