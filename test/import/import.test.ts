import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { parseEntries } from '../../src/import/parse.js'
import { readEntries } from '../../src/import/read.js'
import { importEntries } from '../../src/import/run.js'
import type { SqlPort } from '../../src/store/sql.js'
import { importFixture } from '../support/app.js'
import { BACKENDS, createTestStore, tempDir } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { uuid } from '../support/refs.js'

const W = 'Справочник.Склады'
const wh = (key: string, name: string) => ({ type: W, ref: uuid(key), Код: key, Наименование: name })

for (const backend of BACKENDS)
  describe(`${backend}: docgate import`, () => {
    let dir: string
    let store: TestStore
    let sql: SqlPort
    beforeEach(async () => {
      dir = tempDir()
      store = await createTestStore(backend)
      sql = store.writer
    })
    afterEach(async () => {
      await sql.close()
      await store.cleanup()
    })

    const names = async () => (await sql.all<{ name: string }>('SELECT name FROM cat_warehouses ORDER BY name')).map((r) => r.name)

    it('one bad line rejects the whole file and every bad line is named', async () => {
      const report = await importFixture(sql, [
        wh('a', 'Склад А'),
        { type: 'Справочник.Неизвестный', ref: uuid('x') },
        wh('b', 'Склад Б'),
        { type: W, Наименование: 'без ссылки' },
      ])
      assert.equal(report.ok, false)
      assert.deepEqual(report.invalid, [
        { line: 2, type: 'Справочник.Неизвестный', ref: uuid('x'), reason: 'unknown type Справочник.Неизвестный' },
        { line: 4, type: W, ref: '', reason: 'missing "ref"' },
      ])
      assert.deepEqual(report.counts, {})
      assert.deepEqual(await names(), [])
      assert.deepEqual(await sql.all('SELECT * FROM objects'), [])
      assert.deepEqual(await sql.all('SELECT ref FROM api_warehouses'), [])
    })

    it('names what is wrong with each kind of bad value', async () => {
      const doc = 'Документ.ЗаявкаНаРасходованиеСредств'
      const report = await importFixture(sql, [
        'not an object',
        { type: doc, ref: uuid('d1'), Дата: '2024-02-30' },
        { type: doc, ref: uuid('d2'), СуммаДокумента: '100.50' },
        { type: doc, ref: uuid('d3'), Касса: { ref: uuid('k') } },
        { type: doc, ref: uuid('d4'), Касса: { type: 'Справочник.Склады', ref: uuid('k') } },
        { type: doc, ref: 'not-a-uuid' },
        { type: W, ref: uuid('w'), Наименование: 5 },
        { type: 'Справочник.Номенклатура', ref: uuid('n'), Услуга: 'да' },
        { type: W, ref: uuid('w0'), Наименование: 'склад\u0000' },
        { type: doc, ref: uuid('d5'), СуммаДокумента: 1e300 },
        {
          type: 'РегистрНакопления.ДенежныеСредства',
          Регистратор: { type: 'Документ.ПКО', ref: uuid('r') },
          Движения: [{ ВидДвижения: 'Приход' }],
        },
      ])
      assert.deepEqual(
        report.invalid.map((i) => `${i.line} ${i.reason}`),
        [
          '1 not a JSON object',
          '2 Дата: not a calendar date: "2024-02-30"',
          '3 СуммаДокумента: expected a number, got the string "100.50"',
          '4 Касса: composite reference without "type"',
          '5 Касса: type Справочник.Склады is not allowed here (allowed: Справочник.БанковскиеСчета, Справочник.Кассы)',
          '6 "ref" is not a UUID: "not-a-uuid"',
          '7 Наименование: expected a string, got the number 5',
          '8 Услуга: expected a boolean, got the string "да"',
          '9 Наименование: text contains a NUL character (U+0000)',
          '10 СуммаДокумента: number out of range (±90000000000000): 1e+300',
          '11 Движения[1].Период: is required; Движения[1].БанковскийСчетКасса: is required',
        ],
      )
    })

    it('codes, numbers and names past their length limit are named; at the limit every engine stores them', async () => {
      const spec = 'Справочник.СпецификацииНоменклатуры'
      const doc = 'Документ.ЗаявкаНаРасходованиеСредств'
      const rejected = await importFixture(sql, [
        { type: W, ref: uuid('w1'), Наименование: 'Я'.repeat(501) },
        { type: W, ref: uuid('w2'), Код: '7'.repeat(101) },
        { type: doc, ref: uuid('d1'), Номер: 'Н'.repeat(101) },
      ])
      assert.deepEqual(
        rejected.invalid.map((i) => `${i.line} ${i.reason}`),
        [
          '1 Наименование: longer than 500 characters (501)',
          '2 Код: longer than 100 characters (101)',
          '3 Номер: longer than 100 characters (101)',
        ],
      )
      // Three UTF-8 bytes a character, none repeated (PostgreSQL compresses repeats), and ё
      // (a longer sort key): the widest index entries.
      const wide = (n: number) => Array.from({ length: n }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join('')
      const accepted = await importFixture(sql, [
        { type: spec, ref: uuid('s1'), Код: wide(100), Наименование: wide(500) },
        { type: W, ref: uuid('w3'), Код: '1', Наименование: 'ё'.repeat(500) },
        { type: doc, ref: uuid('d2'), Номер: wide(100), Дата: '2025-01-01' },
      ])
      assert.deepEqual(accepted.invalid, [])
      assert.deepEqual(
        await sql.all<{ n: number }>('SELECT length(name) AS n FROM cat_specifications UNION ALL SELECT length(name) FROM cat_warehouses'),
        [{ n: 500 }, { n: 500 }],
      )
    })

    it('a line that is not JSON is named with its line number', async () => {
      const file = join(dir, 'bad.ndjson')
      writeFileSync(file, `${JSON.stringify(wh('a', 'А'))}\n{"type": oops}\n\n${JSON.stringify(wh('b', 'Б'))}\n`)
      const report = await importEntries(sql, readEntries(file))
      assert.equal(report.ok, false)
      assert.equal(report.invalid.length, 1)
      assert.equal(report.invalid[0]!.line, 2)
      assert.match(report.invalid[0]!.reason, /^not JSON: /)
      assert.deepEqual(await names(), [])
    })

    it('reads NDJSON, a JSON array and gzip', async () => {
      const nd = join(dir, 'a.ndjson')
      writeFileSync(nd, [wh('a', 'А'), wh('b', 'Б')].map((o) => JSON.stringify(o)).join('\n') + '\n')
      const arr = join(dir, 'b.json')
      writeFileSync(arr, `\n  ${JSON.stringify([wh('c', 'В')], null, 2)}\n`)
      const gz = join(dir, 'c.ndjson.gz')
      writeFileSync(gz, gzipSync(JSON.stringify(wh('d', 'Г')) + '\n'))
      for (const f of [nd, arr, gz]) assert.equal((await importEntries(sql, readEntries(f))).ok, true)
      assert.deepEqual(await names(), ['А', 'Б', 'В', 'Г'])
    })

    it('reads CRLF lines, a BOM, blank lines and a line longer than a read chunk', async () => {
      const file = join(dir, 'crlf.ndjson')
      // 1.4 MB of UTF-8 in one line: it spans two 1 MiB read chunks, with a character split between them.
      const long = 'Ж'.repeat(700_000)
      const attachment = {
        type: 'Справочник.ХранилищеДополнительнойИнформации',
        ref: uuid('f'),
        Объект: { type: 'Документ.ЗаявкаНаРасходованиеСредств', ref: uuid('r') },
        ИмяФайла: long,
      }
      writeFileSync(
        file,
        `\uFEFF${JSON.stringify(wh('a', 'А'))}\r\n\r\n${JSON.stringify(attachment)}\r\n  \n${JSON.stringify(wh('c', 'В'))}`,
      )
      const entries = []
      for await (const e of parseEntries(file)) entries.push(e)
      assert.deepEqual(
        entries.map((e) => ('value' in e ? [e.line, (e.value as { ref: string }).ref] : [e.line, e.error])),
        [
          [1, uuid('a')],
          [3, uuid('f')],
          [5, uuid('c')],
        ],
      )
      assert.equal((await importEntries(sql, readEntries(file))).ok, true)
      assert.deepEqual(await names(), ['А', 'В'])
      assert.deepEqual(await sql.all('SELECT file_name FROM cat_attachments'), [{ file_name: long }])
    })

    it('upserts by ref and replaces tabular parts whole', async () => {
      const doc = (rows: number) => ({
        type: 'Документ.ТребованиеНакладная',
        ref: uuid('t'),
        Номер: 'ТН-1',
        Дата: '2024-03-05T10:00:00',
        Материалы: Array.from({ length: rows }, (_, i) => ({ Количество: i + 1 })),
      })
      await importFixture(sql, [wh('a', 'Старое имя'), doc(3)])
      const report = await importFixture(sql, [wh('a', 'Новое имя'), doc(1)])
      assert.deepEqual(report.counts, { 'Справочник.Склады': 1, 'Документ.ТребованиеНакладная': 1 })
      assert.deepEqual(await names(), ['Новое имя'])
      assert.deepEqual(await sql.all('SELECT line, row_number, quantity FROM doc_demands_materials'), [
        { line: 1, row_number: '1', quantity: 1 },
      ])
      assert.deepEqual(await sql.all('SELECT presentation, date FROM objects WHERE ref = ?', [uuid('t')]), [
        { presentation: 'ТН-1', date: '2024-03-05T10:00:00' },
      ])
    })

    it('deleted: true removes the object; ПометкаУдаления only marks it', async () => {
      await importFixture(sql, [wh('a', 'А'), { ...wh('b', 'Б'), ПометкаУдаления: true }])
      await importFixture(sql, [{ type: W, ref: uuid('a'), deleted: true }])
      assert.deepEqual(await sql.all('SELECT name, deletion_mark FROM cat_warehouses'), [{ name: 'Б', deletion_mark: 1 }])
      assert.deepEqual(await sql.all('SELECT ref FROM objects'), [{ ref: uuid('b') }])
      assert.deepEqual(await sql.all('SELECT ref FROM api_warehouses'), [{ ref: uuid('b') }])
    })

    it('replaces a register record set per recorder; an empty set removes it', async () => {
      const set = (recorder: string, amounts: number[]) => ({
        type: 'РегистрНакопления.ДенежныеСредства',
        Регистратор: { type: 'Документ.ПлатежноеПоручениеИсходящее', ref: uuid(recorder) },
        Движения: amounts.map((a) => ({
          Период: '2024-01-10T12:00:00',
          ВидДвижения: 'Расход',
          БанковскийСчетКасса: { type: 'Справочник.БанковскиеСчета', ref: uuid('acc') },
          Сумма: a,
        })),
      })
      await importFixture(sql, [set('p1', [10, 20]), set('p2', [5])])
      await importFixture(sql, [set('p1', [30])])
      const sums = async () => sql.all('SELECT recorder, line, amount FROM reg_cash ORDER BY amount')
      assert.deepEqual(await sums(), [
        { recorder: uuid('p2'), line: 1, amount: 5 },
        { recorder: uuid('p1'), line: 1, amount: 30 },
      ])
      await importFixture(sql, [set('p2', [])])
      assert.deepEqual(await sums(), [{ recorder: uuid('p1'), line: 1, amount: 30 }])
    })

    it('keeps a dangling reference with a warning, and ignores unknown attributes with a warning', async () => {
      const report = await importFixture(sql, [
        { type: 'Справочник.ДоговорыКонтрагентов', ref: uuid('c'), Наименование: 'Договор', Владелец: uuid('missing'), Цвет: 'синий' },
      ])
      assert.equal(report.ok, true)
      assert.deepEqual(report.warnings, [
        `1 reference(s) to objects that are not stored (kept, printed as empty): ${uuid('missing')}`,
        'unknown attribute Справочник.ДоговорыКонтрагентов.Цвет ignored (1 time)',
      ])
      assert.deepEqual(await sql.all('SELECT owner FROM cat_contracts'), [{ owner: uuid('missing') }])
    })

    it('empty values: null, "" and the zero UUID are the empty reference; 0001-01-01T00:00:00 the empty date', async () => {
      await importFixture(sql, [
        { type: 'Справочник.ДоговорыКонтрагентов', ref: uuid('c'), Владелец: '00000000-0000-0000-0000-000000000000' },
        { type: 'Документ.ЗаказНаПроизводство', ref: uuid('m'), Дата: '0001-01-01T00:00:00', Организация: null },
      ])
      assert.deepEqual(await sql.all('SELECT owner FROM cat_contracts'), [{ owner: '' }])
      assert.deepEqual(await sql.all('SELECT date, organization FROM doc_production_orders'), [{ date: '', organization: '' }])
    })

    it('stores attachment content in chunks of 768 KiB, replaced and deleted with the object', async () => {
      const data = Buffer.alloc(2 * 786_432 + 5, 7)
      const file = (bytes: Buffer) => ({
        type: 'Справочник.ХранилищеДополнительнойИнформации',
        ref: uuid('f'),
        Объект: { type: 'Документ.ЗаказПоставщику', ref: uuid('d') },
        ИмяФайла: 'скан.pdf',
        Данные: bytes.toString('base64'),
      })
      const chunks = () => sql.all<{ seq: number; n: number }>('SELECT seq, length(chunk) AS n FROM cat_attachments_data ORDER BY seq')
      assert.equal((await importFixture(sql, [file(data)])).ok, true)
      assert.deepEqual(await chunks(), [
        { seq: 0, n: 786_432 },
        { seq: 1, n: 786_432 },
        { seq: 2, n: 5 },
      ])
      assert.deepEqual(await sql.all('SELECT data_size FROM cat_attachments'), [{ data_size: 1_572_869 }])
      assert.equal((await importFixture(sql, [file(Buffer.from('маленький'))])).ok, true)
      assert.deepEqual(await chunks(), [{ seq: 0, n: 18 }])
      assert.equal(
        (await importFixture(sql, [{ type: 'Справочник.ХранилищеДополнительнойИнформации', ref: uuid('f'), deleted: true }])).ok,
        true,
      )
      assert.deepEqual(await chunks(), [])
    })

    it('rebuilds a read model when the object changes', async () => {
      await importFixture(sql, [wh('a', 'Склад')])
      await importFixture(sql, [wh('a', 'Склад переименован')])
      const rows = await sql.all<{ short: Buffer }>('SELECT short FROM api_warehouses')
      assert.deepEqual(
        rows.map((r) => JSON.parse(r.short.toString())),
        [{ Код: 'a', Наименование: 'Склад переименован', ЭтоГруппа: false }],
      )
    })
  })
