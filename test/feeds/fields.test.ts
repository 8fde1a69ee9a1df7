// Chosen fields, CSV and Excel (decision "Fields, CSV and Excel"): `fields` keeps the named
// fields (dotted paths, tabular parts by name), `format=csv`/`Accept: text/csv` gives RFC 4180
// with a BOM and the answer's `errors` in the `x-errors` trailer, `format=xlsx` a workbook with
// typed cells, a frozen header and an `errors` sheet; `rows` gives a line per row of a part.
import assert from 'node:assert/strict'
import { gunzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { parse } from 'csv-parse/sync'
import ExcelJS from 'exceljs'
import { documentsFixture } from '../fixtures/documents.js'
import { materialsFixture } from '../fixtures/materials.js'
import { BACKENDS, READER, basic, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { uuid } from '../support/refs.js'
import { createTestStore } from '../support/stores.js'
import { WorkerPool } from '../../src/serving/pool.js'

const P = '/main/hs/payments/get'
const O = '/main/hs/orders/get'
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
const q = (s: string) => encodeURIComponent(s)
const errorsOf = (trailer: string | undefined) => JSON.parse(decodeURIComponent(trailer ?? 'null'))

for (const backend of BACKENDS)
  describe(`${backend}: chosen fields, CSV and Excel`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(
        [
          ...documentsFixture,
          {
            type: 'Справочник.Склады',
            ref: uuid('w-quoted'),
            Код: 'Q-1',
            Наименование: 'Склад "Юг", ряд 2',
            ЭтоГруппа: false,
          },
        ],
        { backend },
      )
    })
    after(() => app.close())

    it('fields keeps the named fields in the answer’s own order; a dotted path reaches into a part’s rows', async () => {
      const res = await app.api(`${P}?fields=${q('СуммаДокумента,Номер,СвязанныеДокументы.ДокументОснование.Количество')}`)
      assert.equal(res.status, 200)
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      assert.deepEqual(res.json, {
        data: [
          { Номер: 'ЗР-0004', СуммаДокумента: 99.99, СвязанныеДокументы: { ДокументОснование: { Количество: 0 } } },
          { Номер: 'ЗР-0002', СуммаДокумента: 250, СвязанныеДокументы: { ДокументОснование: { Количество: 0 } } },
          { Номер: 'ЗР-0001', СуммаДокумента: 1500.5, СвязанныеДокументы: { ДокументОснование: { Количество: 1 } } },
          { Номер: 'ЗР-0003', СуммаДокумента: 200, СвязанныеДокументы: { ДокументОснование: { Количество: 0 } } },
          { Номер: 'ЗР-0005', СуммаДокумента: 0, СвязанныеДокументы: { ДокументОснование: { Количество: 0 } } },
        ],
        errors: [],
      })
      const full = await app.api(`${P}?full=true&code=0001&fields=${q('Номер,Вложения.ИмяФайла')}`)
      assert.deepEqual(full.json, {
        data: [{ Номер: 'ЗР-0001', Вложения: [{ ИмяФайла: 'акт.txt' }, { ИмяФайла: 'счет.pdf' }] }],
        errors: [],
      })
      // format=json without fields is the answer as printed, byte for byte.
      assert.equal((await app.api(`${P}?format=json`)).body, (await app.api(P)).body)
    })

    it('an unknown field, format or part is refused with 400 naming the valid ones', async () => {
      const unknown = await app.api(`${P}?fields=${q('Номер,Сумма')}`)
      assert.equal(unknown.status, 400)
      assert.match(unknown.json.error, /^unknown field "Сумма"; the fields of payments are Номер, ДатаДокумента, ДатаРасхода, /)
      assert.deepEqual((await app.api(`${P}?format=pdf`)).json, { error: 'format must be json, csv or xlsx, got "pdf"' })
      assert.deepEqual((await app.api(`${O}?rows=${q('Товары')}`)).json, { error: 'rows applies to format=csv or xlsx' })
      const part = await app.api(`${O}?format=csv&rows=${q('Услуги')}`)
      assert.equal(part.status, 400)
      assert.deepEqual(part.json, { error: 'rows must name a tabular part of orders (Товары), got "Услуги"' })
      assert.deepEqual((await app.api('/main/hs/warehouses/get?format=csv&rows=x')).json, {
        error: 'rows: warehouses has no tabular parts',
      })
    })

    it('CSV: BOM, CRLF, a header of dotted columns, one line per document; a CSV parser reads back the JSON answer', async () => {
      const res = await app.api(`${O}?format=csv`)
      assert.equal(res.status, 200)
      assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8')
      assert.equal(
        res.body,
        '\ufeffНомер,Дата,Контрагент,ИНН,Организация,Ответственный,Договор,ИспользоватьПлановуюСебестоимость,ИтогПлановаяСебестоимость,Сумма,Склад,Проведен,Комментарий,ДатаОплаты,ДатаОтгрузки\r\n' +
          'ЗК-0002,01.06.2024,АО Лютик,5009876543,ИП Бета,Сидорова А.А.,Договор 7-П,false,0,800,Склад №2,false,Пробная партия,,\r\n' +
          'ЗК-0001,01.06.2024,ООО Ромашка,7701234567,ООО Альфа,Иванов И.И.,Договор 15/2025,true,563.4,5000,Основной склад,true,Монтаж,10.06.2024,20.06.2024\r\n' +
          'ЗК-0004,20.05.2024,Иванов ИП,,ООО Альфа,,,false,0,120.5,,true,,,\r\n' +
          'ЗК-0003,15.05.2024,,,,,,false,0,0,,false,,,\r\n',
      )
      assert.deepEqual(errorsOf(res.trailers['x-errors']), [])
      const payments = await app.api(`${P}?format=csv`)
      const lines: Record<string, string>[] = parse(payments.raw, { bom: true, columns: true })
      const json = (await app.api(P)).json.data as Record<string, unknown>[]
      assert.equal(lines.length, 5)
      assert.deepEqual(
        lines.map((l) => [
          l.Номер,
          l.Получатель,
          l.СуммаДокумента,
          l.Проведен,
          l['СвязанныеДокументы.ДокументыРасчетовСКонтрагентом.Количество'],
        ]),
        json.map((d: any) => [
          d.Номер,
          d.Получатель,
          String(d.СуммаДокумента),
          String(d.Проведен),
          String(d.СвязанныеДокументы.ДокументыРасчетовСКонтрагентом.Количество),
        ]),
      )
      // A value with a comma and quotes is quoted as RFC 4180 says.
      const quoted = await app.api(`/main/hs/warehouses/get?format=csv&code=Q-1`)
      assert.equal(quoted.body, '\ufeffКод,Наименование,ЭтоГруппа\r\nQ-1,"Склад ""Юг"", ряд 2",false\r\n')
    })

    it('Accept: text/csv is format=csv; format in the query wins over Accept', async () => {
      const auth = basic(READER.name, READER.password)
      const byAccept = await app.get(O, { ...auth, accept: 'text/csv' })
      assert.equal(byAccept.headers['content-type'], 'text/csv; charset=utf-8')
      assert.equal(byAccept.body, (await app.api(`${O}?format=csv`)).body)
      assert.equal(byAccept.headers.vary, 'accept-encoding, accept')
      const json = await app.get(`${O}?format=json`, { ...auth, accept: 'text/csv' })
      assert.equal(json.body, (await app.api(O)).body)
      // A browser's Accept names none of the three specifically: JSON.
      const browser = await app.get(O, { ...auth, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' })
      assert.equal(browser.headers['content-type'], 'application/json; charset=utf-8')
      assert.notEqual(byAccept.headers.etag, (await app.api(O)).headers.etag, 'the CSV is another representation')
    })

    it('rows=Товары: one line per row with the document’s fields repeated; a document without rows keeps one line; errors travel in the trailer', async () => {
      const res = await app.api(`${O}?full=true&format=csv&rows=${q('Товары')}&fields=${q('Номер,Товары.Номенклатура,Товары.Количество')}`)
      assert.equal(
        res.body,
        '\ufeffНомер,Товары.Номенклатура,Товары.Количество\r\n' +
          'ЗК-0002,Болт М8,1\r\nЗК-0002,Гайка М8,1\r\n' +
          'ЗК-0001,Болт М8,10\r\nЗК-0001,Сборка А,2\r\nЗК-0001,Сборка А,1.5\r\nЗК-0001,Гайка М8,3\r\nЗК-0001,Узел Б,2\r\n' +
          'ЗК-0004,,\r\nЗК-0003,,\r\n',
      )
      const json = await app.api(`${O}?full=true`)
      assert.equal(json.json.errors.length, 1)
      assert.deepEqual(errorsOf(res.trailers['x-errors']), json.json.errors)
    })

    it('XLSX: typed cells (numbers, dates, booleans), a frozen bold header, fitted columns and an errors sheet', async () => {
      const res = await app.api(`${O}?full=true&format=xlsx&fields=${q('Номер,Дата,Сумма,Проведен,Товары')}`)
      assert.equal(res.status, 200)
      assert.equal(res.headers['content-type'], XLSX)
      assert.equal(res.headers['content-disposition'], 'attachment; filename="orders.xlsx"')
      const book = new ExcelJS.Workbook()
      await book.xlsx.load(res.raw as unknown as ArrayBuffer)
      const sheet = book.getWorksheet('data')!
      assert.deepEqual([sheet.views[0]?.state, (sheet.views[0] as { ySplit?: number }).ySplit], ['frozen', 1])
      assert.deepEqual((sheet.getRow(1).values as unknown[]).slice(1), ['Номер', 'Дата', 'Сумма', 'Проведен', 'Товары'])
      assert.equal(sheet.getRow(1).font?.bold, true)
      const second = sheet.getRow(3).values as unknown[]
      assert.equal(second[1], 'ЗК-0001')
      assert.deepEqual(second[2], new Date(Date.UTC(2024, 5, 1)))
      assert.equal(sheet.getCell('B3').numFmt, 'dd.mm.yyyy')
      assert.equal(second[3], 5000)
      assert.equal(second[4], true)
      assert.equal(typeof second[5], 'string', 'a part not spread is its JSON text')
      assert.equal(JSON.parse(second[5] as string).length, 5)
      assert.equal(sheet.rowCount, 5)
      // Fitted: the widest of the header and the first lines, plus 2, between 6 and 60.
      assert.deepEqual(
        [2, 3, 4, 5].map((c) => sheet.getColumn(c).width),
        [12, 7, 10, 60],
      )
      const errors = book.getWorksheet('errors')!
      assert.deepEqual((errors.getRow(1).values as unknown[]).slice(1), ['error'])
      const json = await app.api(`${O}?full=true`)
      assert.deepEqual((errors.getRow(2).values as unknown[]).slice(1), json.json.errors)
    })

    it('pages: limit and cursor work with fields and CSV; the Link keeps them', async () => {
      const first = await app.api(`${P}?fields=${q('Номер')}&format=csv&limit=2`)
      assert.equal(first.body, '\ufeffНомер\r\nЗР-0004\r\nЗР-0002\r\n')
      const link = /^<([^>]+)>; rel="next"$/.exec(String(first.headers.link))![1]!
      const second = await app.api(link)
      assert.equal(second.body, '\ufeffНомер\r\nЗР-0001\r\nЗР-0003\r\n')
    })

    it('changes as CSV carry removed in the x-removed trailer, as Excel on a sheet of their own (after the tests that read Q-1: it deletes it)', async () => {
      const W = '/main/hs/warehouses/get'
      const tokenOf = (res: { headers: Record<string, unknown> }) => String(res.headers['x-changes-token'])
      // A changed_since answer carries the position it read (a plain one may be a minute behind).
      const token = tokenOf(await app.api(`${W}?changed_since=${q(tokenOf(await app.api(W)))}`))
      assert.ok((await app.importMore([{ type: 'Справочник.Склады', ref: uuid('w-quoted'), deleted: true }])).ok)
      const csv = await app.api(`${W}?format=csv&changed_since=${q(token)}`)
      assert.equal(csv.body, '\ufeffКод,Наименование,ЭтоГруппа\r\n')
      assert.deepEqual(errorsOf(csv.trailers['x-removed']), [{ Код: 'Q-1' }])
      assert.deepEqual(errorsOf(csv.trailers['x-errors']), [])
      const xlsx = await app.api(`${W}?format=xlsx&changed_since=${q(token)}`)
      const book = new ExcelJS.Workbook()
      await book.xlsx.load(xlsx.raw as unknown as ArrayBuffer)
      assert.deepEqual(
        book
          .getWorksheet('removed')!
          .getSheetValues()
          .slice(1)
          .map((r) => (r as unknown[]).slice(1)),
        [['Код'], ['Q-1']],
      )
      // Without changed_since, no such trailer.
      assert.equal((await app.api(`${W}?format=csv`)).trailers['x-removed'], undefined)
    })

    it('compressed CSV decompresses to the plain CSV', async () => {
      const plain = await app.api(`${P}?format=csv`)
      const gz = await app.get(`${P}?format=csv`, { ...basic(READER.name, READER.password), 'accept-encoding': 'gzip' })
      assert.equal(gz.headers['content-encoding'], 'gzip')
      assert.equal(gunzipSync(gz.raw).toString(), plain.body)
    })
  })

describe('sqlite: a tree as CSV and kept to fields', () => {
  let app: TestApp
  before(async () => {
    app = await startApp(materialsFixture)
  })
  after(() => app.close())

  it('the tree’s nodes are lines, depth first, each with its parent group’s code; fields keep the tree a tree', async () => {
    const csv = await app.api(`/main/hs/materials/get?format=csv&fields=${q('Код,Наименование,ЭтоГруппа,Родитель')}`)
    const lines: string[][] = parse(csv.raw, { bom: true })
    const json = await app.api(`/main/hs/materials/get?fields=${q('Код,ЭтоГруппа')}`)
    type Node = { Код: string; ЭтоГруппа: boolean; Дети?: Node[] }
    const walk = (nodes: Node[], parent: string): string[][] =>
      nodes.flatMap((n) => [[n.Код, String(n.ЭтоГруппа), parent], ...walk(n.Дети ?? [], n.Код)])
    assert.deepEqual(
      lines.slice(1).map((l) => [l[0]!, l[2]!, l[3]!]),
      walk(json.json.data, ''),
    )
    assert.deepEqual(lines[0], ['Код', 'Наименование', 'ЭтоГруппа', 'Родитель'])
    assert.ok(
      lines.some((l) => l[3] !== ''),
      'some node has a parent',
    )
    assert.deepEqual(Object.keys(json.json.data.find((n: Node) => n.ЭтоГруппа)), ['Код', 'ЭтоГруппа', 'Дети'])
  })
})

describe('sqlite: CSV answered by a worker', () => {
  it('the errors come back from the worker thread after the body', async () => {
    const store = await createTestStore('sqlite')
    await store.writer.close()
    assert.equal((await store.importMore(documentsFixture)).ok, true)
    const pool = await WorkerPool.start({ db: store.location, size: 1, timeLimitMs: 0 })
    try {
      let errors: readonly string[] | undefined
      const body = await pool.execute(
        { service: 'orders', query: `full=true&fields=${q('Номер')}`, now: new Date(), format: 'csv' },
        { signal: new AbortController().signal, errors: (e) => (errors = e) },
      )
      const text = Buffer.isBuffer(body) ? body.toString() : Buffer.concat(await body.toArray()).toString()
      assert.equal(text, '\ufeffНомер\r\nЗК-0002\r\nЗК-0001\r\nЗК-0004\r\nЗК-0003\r\n')
      assert.equal(errors?.length, 1)
      assert.match(errors![0]!, /^orders: документ [0-9a-f-]+: цикл спецификаций/)
    } finally {
      await pool.close()
      await store.cleanup()
    }
  })
})
