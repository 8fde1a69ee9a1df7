import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { base64, documentsFixture } from '../fixtures/documents.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { READ_FAILURE, failingReads } from '../support/failing-sql.js'
import { expectList } from '../support/list.js'
import { uuid } from '../support/refs.js'

const NONE = { Есть: false, Количество: 0 }
const base = {
  ДатаСменыСтатуса: '',
  КтоИзменилСтатус: '',
  Вложения: NONE,
  СвязанныеДокументы: { ДокументОснование: NONE, ДокументыРасчетовСКонтрагентом: NONE },
}
const ЗР1 = {
  Номер: 'ЗР-0001',
  ДатаДокумента: '01.03.2024',
  ДатаРасхода: '05.03.2024',
  Ответственный: 'Иванов И.И.',
  Получатель: 'ООО Ромашка',
  Организация: 'ООО Альфа',
  Касса: 'Расчетный счет 40702810000000000001',
  СуммаДокумента: 1500.5,
  Статус: 'Согласована',
  Комментарий: 'Оплата по счету №15',
  Проведен: true,
  КтоИзменилСтатус: 'Сидорова А.А.',
  ДатаСменыСтатуса: '02.03.2024',
  СвязанныеДокументы: { ДокументОснование: { Есть: true, Количество: 1 }, ДокументыРасчетовСКонтрагентом: { Есть: true, Количество: 3 } },
  Вложения: { Есть: true, Количество: 2 },
}
// No document date, no responsible, recipient or cash desk; the basis is dangling.
const ЗР2 = {
  ...base,
  Номер: 'ЗР-0002',
  ДатаДокумента: '',
  ДатаРасхода: '05.03.2024',
  Ответственный: 'Не указан',
  Получатель: 'Иванов ИП',
  Организация: '',
  Касса: 'Не указана',
  СуммаДокумента: 250,
  Статус: '',
  Комментарий: '',
  Проведен: true,
}
const ЗР3 = {
  ...base,
  Номер: 'ЗР-0003',
  ДатаДокумента: '20.03.2024',
  ДатаРасхода: '10.02.2024',
  Ответственный: 'Сидорова А.А.',
  Получатель: 'Не указан',
  Организация: 'ООО Альфа',
  Касса: 'Основная касса',
  СуммаДокумента: 200,
  Статус: 'Отклонена',
  Комментарий: '',
  Проведен: false,
}
const ЗР4 = {
  ...base,
  Номер: 'ЗР-0004',
  ДатаДокумента: '10.03.2024',
  ДатаРасхода: '15.04.2024',
  Ответственный: 'Иванов И.И.',
  Получатель: 'Петров Пётр Петрович',
  Организация: 'ИП Бета',
  Касса: 'Основная касса',
  СуммаДокумента: 99.99,
  Статус: 'На согласовании',
  Комментарий: 'Командировка',
  Проведен: true,
  СвязанныеДокументы: { ДокументОснование: NONE, ДокументыРасчетовСКонтрагентом: { Есть: true, Количество: 1 } },
}
const ЗР5 = {
  ...base,
  Номер: 'ЗР-0005',
  ДатаДокумента: '05.03.2024',
  ДатаРасхода: '',
  Ответственный: 'Не указан',
  Получатель: 'Не указан',
  Организация: '',
  Касса: 'Не указана',
  СуммаДокумента: 0,
  Статус: '',
  Комментарий: '',
  Проведен: false,
}
// Sorted by ДатаРасхода descending, then number descending (ЗР-0002 and ЗР-0001 share a day).
const ALL = [ЗР4, ЗР2, ЗР1, ЗР3, ЗР5]

const EMPTY_DOCUMENT = { Тип: '', Номер: '', Дата: '', НомерДата: '' }
const ЗР1_FULL = {
  ...ЗР1,
  СвязанныеДокументы: {
    ДокументОснование: { Тип: 'ЗаказПоставщику', Номер: 'ЗП-0001', Дата: '20.02.2024', НомерДата: 'ЗП-0001 от 20.02.2024' },
    // Oldest first; a payment document that is not stored keeps its type only.
    ДокументыРасчетовСКонтрагентом: [
      { Тип: 'ПлатежноеПоручениеИсходящее', Номер: '', Дата: '', НомерДата: '' },
      { Тип: 'РасходныйКассовыйОрдер', Номер: 'РК-0007', Дата: '04.03.2024', НомерДата: 'РК-0007 от 04.03.2024' },
      { Тип: 'ПлатежноеПоручениеИсходящее', Номер: 'ПИ-0001', Дата: '06.03.2024', НомерДата: 'ПИ-0001 от 06.03.2024' },
    ],
  },
  // By file name; the attachment marked for deletion is left out.
  Вложения: [
    { ИмяФайла: 'акт.txt', Данные: base64('Акт сверки') },
    { ИмяФайла: 'счет.pdf', Данные: base64('%PDF-1.4 счёт №15') },
  ],
}
const fullOf = (doc: typeof ЗР2, settlements: unknown[] = []) => ({
  ...doc,
  СвязанныеДокументы: { ДокументОснование: EMPTY_DOCUMENT, ДокументыРасчетовСКонтрагентом: settlements },
  Вложения: [],
})
const ЗР4_FULL = fullOf(ЗР4, [{ Тип: 'РасходныйКассовыйОрдер', Номер: 'РК-0007', Дата: '04.03.2024', НомерДата: 'РК-0007 от 04.03.2024' }])
const ALL_FULL = [ЗР4_FULL, fullOf(ЗР2), ЗР1_FULL, fullOf(ЗР3), fullOf(ЗР5)]

const URL = '/main/hs/payments/get'

for (const backend of BACKENDS) {
  describe(`${backend}: GET /main/hs/payments/get`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(documentsFixture, { backend })
    })
    after(() => app.close())
    const expect = expectList(() => app, URL)

    it('lists every request in the short form, by expense date then number, newest first', async () => {
      const res = await app.api(URL)
      assert.equal(res.status, 200)
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.deepEqual(res.json, { data: ALL, errors: [] })
    })

    for (const [from, to] of [
      ['01.03.2024', '31.03.2024'],
      ['2024-03-01', '2024-03-31'],
      ['01-03-2024', '31-03-2024'],
    ]) {
      it(`from=${from}&to=${to} selects by ДатаРасхода, not by the document date`, () => expect(`from=${from}&to=${to}`, [ЗР2, ЗР1]))
    }
    it('the period includes both of its days', () => expect('from=05.03.2024&to=15.04.2024', [ЗР4, ЗР2, ЗР1]))
    it('date is one whole expense day', async () => {
      await expect('date=05.03.2024', [ЗР2, ЗР1])
      await expect('date=2024-04-15', [ЗР4])
      await expect('date=10.03.2024', []) // ЗР-0004's document date
    })
    it('from or to alone is no filter and no errors entry', async () => {
      await expect('from=01.03.2024', ALL, [])
      await expect('to=31.03.2024', ALL, [])
    })
    it('an invalid date is an errors entry, status 200', () =>
      expect('date=31.02.2024', ALL, [
        'Неверный формат даты в параметре date: "31.02.2024" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)',
      ]))
    it('code is a case-insensitive substring of the number', async () => {
      await expect('code=0001', [ЗР1])
      await expect('code=зр-000', ALL)
      await expect('code=%25', [])
    })
    it('summ is the exact amount', async () => {
      for (const v of ['1500.5', '1500.50', '1500,5']) await expect(`summ=${v}`, [ЗР1])
      await expect('summ=0', [ЗР5])
      await expect('summ=1500', [])
      await expect('summ=abc', ALL, ['Неверное число в параметре summ: "abc"'])
    })
    it('approved: posted for 1/true/yes/да, not posted for any other value', async () => {
      for (const v of ['1', 'true', 'yes', 'да', 'TRUE']) await expect(`approved=${v}`, [ЗР4, ЗР2, ЗР1])
      for (const v of ['0', 'false', 'нет']) await expect(`approved=${v}`, [ЗР3, ЗР5])
    })
    it('responsible is a post-filter on the printed responsible, literal included', async () => {
      await expect('responsible=иванов', [ЗР4, ЗР1])
      await expect('responsible=НЕ УКАЗАН', [ЗР2, ЗР5])
    })
    it('recipient matches Получатель, which falls back to the counterparty', async () => {
      await expect('recipient=ромашка', [ЗР1])
      await expect('recipient=иванов ип', [ЗР2])
      await expect('recipient=пётр', [ЗР4])
      await expect('recipient=не указан', [ЗР3, ЗР5])
    })
    it('contractor matches the counterparty, which is not printed', async () => {
      await expect('contractor=лютик', [ЗР1])
      await expect('contractor=ромашка', [ЗР4])
      await expect('contractor=не указан', [])
    })
    it('cash, comment and status are substrings of Касса, Комментарий and Статус', async () => {
      await expect('cash=касса', [ЗР4, ЗР3])
      await expect('cash=40702', [ЗР1])
      await expect('cash=не указана', [ЗР2, ЗР5])
      await expect('comment=счету', [ЗР1])
      await expect('comment=КОМАНДИРОВКА', [ЗР4])
      await expect('status=соглас', [ЗР4, ЗР1])
    })
    it('database filters and post-filters combine', () => expect('approved=1&responsible=иванов&from=01.03.2024&to=31.03.2024', [ЗР1]))

    it('full=true: linked documents and attachments in full, Base64 content', () => expect('full=true', ALL_FULL))
    it('full with an empty or dangling basis prints empty strings', () => expect('full=1&code=0002', [fullOf(ЗР2)]))
    it('the full key is case-sensitive and takes only true values', async () => {
      await expect('FULL=true&code=0001', [ЗР1])
      await expect('full=no&code=0001', [ЗР1])
    })
  })

  describe(`${backend}: payments, a document that cannot be read`, () => {
    let app: TestApp
    before(async () => {
      const broken = (text: string, params: readonly unknown[]) => text.includes('FROM cat_attachments') && params.includes(uuid('зр-1'))
      app = await startApp(documentsFixture, { backend, wrapImport: failingReads(broken) })
    })
    after(() => app.close())

    it('becomes an errors entry; the other documents stay in data', async () => {
      const res = await app.api(`${URL}?full=true`)
      assert.deepEqual(res.json, {
        data: ALL_FULL.filter((d) => d !== ЗР1_FULL),
        errors: [`payments: документ ${uuid('зр-1')}: ${READ_FAILURE}`],
      })
    })
  })

  describe(`${backend}: payments after later imports`, () => {
    let app: TestApp
    // Several read slices of 768 KiB, a length that is not a multiple of 3, and Base64 longer
    // than what a backtracking pattern can validate (import/values.ts).
    const big = Buffer.alloc(4 * 1024 * 1024 + 5)
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251
    before(async () => {
      app = await startApp(documentsFixture, { backend })
      const report = await app.importMore([
        {
          type: 'Справочник.ХранилищеДополнительнойИнформации',
          ref: uuid('влож-большое'),
          Объект: { type: 'Документ.ЗаявкаНаРасходованиеСредств', ref: uuid('зр-4') },
          ИмяФайла: 'скан.bin',
          Данные: big.toString('base64'),
        },
        {
          type: 'РегистрНакопления.ЗаявкиНаРасходованиеСредств',
          Регистратор: { type: 'Документ.ПлатежноеПоручениеИсходящее', ref: uuid('пи-1') },
          Движения: [{ ЗаявкаНаРасходование: uuid('зр-4'), Сумма: 1 }],
        },
        { type: 'Справочник.Контрагенты', ref: uuid('ка-иванов'), Наименование: 'Иванов Иван ИП' },
      ])
      assert.equal(report.ok, true)
    })
    after(() => app.close())

    it('short forms follow new attachments, register records and renamed counterparties', async () => {
      const res = await app.api(`${URL}?code=0004`)
      assert.deepEqual(res.json.data[0].Вложения, { Есть: true, Количество: 1 })
      assert.deepEqual(res.json.data[0].СвязанныеДокументы.ДокументыРасчетовСКонтрагентом, { Есть: true, Количество: 2 })
      // ПИ-0001's record set was replaced: it now records only ЗР-0004, so ЗР-0001 has two payment documents left.
      assert.deepEqual((await app.api(`${URL}?code=0001`)).json.data[0].СвязанныеДокументы.ДокументыРасчетовСКонтрагентом, {
        Есть: true,
        Количество: 2,
      })
      assert.equal((await app.api(`${URL}?code=0002`)).json.data[0].Получатель, 'Иванов Иван ИП')
    })

    it('an attachment of several MB imports and streams whole', async () => {
      const res = await app.api(`${URL}?full=true&code=0004`)
      assert.deepEqual(res.json.data[0].Вложения, [{ ИмяФайла: 'скан.bin', Данные: big.toString('base64') }])
      assert.deepEqual(res.json.data[0].СвязанныеДокументы.ДокументыРасчетовСКонтрагентом, [
        { Тип: 'РасходныйКассовыйОрдер', Номер: 'РК-0007', Дата: '04.03.2024', НомерДата: 'РК-0007 от 04.03.2024' },
        { Тип: 'ПлатежноеПоручениеИсходящее', Номер: 'ПИ-0001', Дата: '06.03.2024', НомерДата: 'ПИ-0001 от 06.03.2024' },
      ])
    })
  })
}
