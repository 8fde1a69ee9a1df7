import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { base64, documentsFixture } from '../../../test/fixtures/documents.js'
import { uuid } from '../../../test/support/refs.js'
import { DocgateError, SERVICES, createDocgateClient } from '../src/client.js'
import type { DocgateClient, Item } from '../src/client.js'
import { BACKENDS, startLive } from './support/live.js'
import type { LiveServer } from './support/live.js'

const READER = { name: 'reader', password: 'пароль' }
const IVAN = { name: 'Иван Петров', password: 'пароль№1' }
const STOREKEEPER = { name: 'кладовщик', password: 'склад', methods: ['warehouses'] }

const NONE = { Есть: false, Количество: 0 }
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
const ЗР2 = {
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
  КтоИзменилСтатус: '',
  ДатаСменыСтатуса: '',
  СвязанныеДокументы: { ДокументОснование: NONE, ДокументыРасчетовСКонтрагентом: NONE },
  Вложения: NONE,
}
const ЗР1_FULL = {
  ...ЗР1,
  СвязанныеДокументы: {
    ДокументОснование: { Тип: 'ЗаказПоставщику', Номер: 'ЗП-0001', Дата: '20.02.2024', НомерДата: 'ЗП-0001 от 20.02.2024' },
    ДокументыРасчетовСКонтрагентом: [
      { Тип: 'ПлатежноеПоручениеИсходящее', Номер: '', Дата: '', НомерДата: '' },
      { Тип: 'РасходныйКассовыйОрдер', Номер: 'РК-0007', Дата: '04.03.2024', НомерДата: 'РК-0007 от 04.03.2024' },
      { Тип: 'ПлатежноеПоручениеИсходящее', Номер: 'ПИ-0001', Дата: '06.03.2024', НомерДата: 'ПИ-0001 от 06.03.2024' },
    ],
  },
  Вложения: [
    { ИмяФайла: 'акт.txt', Данные: base64('Акт сверки') },
    { ИмяФайла: 'счет.pdf', Данные: base64('%PDF-1.4 счёт №15') },
  ],
}
// An attachment of several hundred kilobytes of Base64 on ЗР-0004: the stream form reads it
// from many network chunks.
const scan = Buffer.alloc(768 * 1024 + 1)
for (let i = 0; i < scan.length; i++) scan[i] = (i * 7919) % 251
const SCAN = {
  type: 'Справочник.ХранилищеДополнительнойИнформации',
  ref: uuid('влож-скан'),
  Объект: { type: 'Документ.ЗаявкаНаРасходованиеСредств', ref: uuid('зр-4') },
  ИмяФайла: 'скан.bin',
  Данные: scan.toString('base64'),
}
// Newest expense date first, then number descending.
const ALL_NUMBERS = ['ЗР-0004', 'ЗР-0002', 'ЗР-0001', 'ЗР-0003', 'ЗР-0005']

for (const backend of BACKENDS) {
  describe(`${backend}: the typed client against a live docgate`, () => {
    let server: LiveServer
    let client: DocgateClient
    const clientOf = (user: { name: string; password: string }) =>
      createDocgateClient({ baseUrl: server.baseUrl, user: user.name, password: user.password })
    before(async () => {
      server = await startLive(backend, [...documentsFixture, SCAN], [READER, IVAN, STOREKEEPER])
      client = clientOf(READER)
    })
    after(() => server.close())

    it('health answers a Cyrillic user, whose name and password travel as UTF-8', async () => {
      assert.deepEqual(await clientOf(IVAN).health(), { Статус: 'API доступен' })
    })

    it('a wrong password is a DocgateError with status 401', async () => {
      await assert.rejects(clientOf({ name: IVAN.name, password: 'пароль№2' }).health(), (err: unknown) => {
        assert.ok(err instanceof DocgateError)
        assert.equal(err.status, 401)
        assert.equal(err.detail, 'Unauthorized')
        assert.equal(err.message, 'docgate answered 401: Unauthorized')
        return true
      })
    })

    it('payments({ from, to }) returns the envelope of the period', async () => {
      assert.deepEqual(await client.payments({ from: '01.03.2024', to: '31.03.2024' }), { data: [ЗР2, ЗР1], errors: [] })
    })

    it('an invalid date comes back in errors, the data unfiltered', async () => {
      const { data, errors } = await client.payments({ date: '31.02.2024' })
      assert.deepEqual(
        data.map((d) => d.Номер),
        ALL_NUMBERS,
      )
      assert.deepEqual(errors, ['Неверный формат даты в параметре date: "31.02.2024" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)'])
    })

    it('full: true gives the full form, attachments in Base64', async () => {
      assert.deepEqual(await clientOf(IVAN).payments({ full: true, code: '0001' }), { data: [ЗР1_FULL], errors: [] })
      assert.deepEqual(await client.payments({ full: false, code: '0001' }), { data: [ЗР1], errors: [] })
      assert.deepEqual(await client.payments({ full: 'да', code: '0001' }), { data: [ЗР1_FULL], errors: [] })
    })

    it('an alias is a parameter of its own and non-ASCII values are percent-encoded', async () => {
      const { data } = await client.receipts({ supplier: 'ромашка' })
      assert.deepEqual(
        data.map((d) => d.Номер),
        ['ПТ-0001'],
      )
      assert.deepEqual(await client.warehouses({ name: 'склад №2' }), {
        data: [{ Код: 'скл-2', Наименование: 'Склад №2', ЭтоГруппа: false }],
        errors: [],
      })
    })

    it('payments.stream({ full: true }) yields the full documents one by one, then knows the errors', async () => {
      const answer = await client.payments.stream({ full: true })
      const numbers: string[] = []
      let first: Item<'payments'> | undefined
      for await (const doc of answer) {
        numbers.push(doc.Номер)
        if (doc.Номер === 'ЗР-0001') first = doc
        if (numbers.length < ALL_NUMBERS.length) assert.equal(answer.errors, undefined)
      }
      assert.deepEqual(numbers, ALL_NUMBERS)
      assert.deepEqual(first, ЗР1_FULL)
      assert.deepEqual(answer.errors, [])
    })

    it('the stream form reads an attachment that spans many chunks', async () => {
      const answer = await client.payments.stream({ full: true, code: '0004' })
      const docs: Item<'payments'>[] = []
      for await (const doc of answer) docs.push(doc)
      assert.equal(docs.length, 1)
      assert.deepEqual(docs[0]!.Вложения, [{ ИмяФайла: 'скан.bin', Данные: scan.toString('base64') }])
      assert.deepEqual(answer.errors, [])
    })

    it('a stream left after its first item, or dropped unread, does not hold later calls up', async () => {
      for (let i = 0; i < 3; i++) {
        const answer = await client.payments.stream({ full: true })
        for await (const doc of answer) {
          assert.equal(doc.Номер, 'ЗР-0004')
          break
        }
      }
      const dropped = await client.payments.stream()
      await dropped.cancel()
      assert.deepEqual(await client.health(), { Статус: 'API доступен' })
    })

    it('a method the user is not granted is a 401, in the stream form too', async () => {
      const storekeeper = clientOf(STOREKEEPER)
      await assert.rejects(storekeeper.payments(), { name: 'DocgateError', status: 401, detail: 'Unauthorized' })
      await assert.rejects(storekeeper.payments.stream({ full: true }), { name: 'DocgateError', status: 401, detail: 'Unauthorized' })
      assert.equal((await storekeeper.warehouses()).data.length, 2)
    })

    it('every endpoint has its call, which reaches its route', async () => {
      assert.equal(SERVICES.length, 11)
      for (const service of SERVICES) {
        const answer = await client[service]()
        assert.ok(Array.isArray(answer.data) && Array.isArray(answer.errors), service)
      }
    })

    it("withToken gives a list's change token; changed_since with it gives what changed since, a forged one is a 410", async () => {
      const loaded = await client.warehouses.withToken({ code: 'скл-2' })
      assert.deepEqual(loaded.answer, { data: [{ Код: 'скл-2', Наименование: 'Склад №2', ЭтоГруппа: false }], errors: [] })
      const token = loaded.token!
      assert.match(token, /^\d+\.[\w-]{12}$/)
      const since = await client.warehouses.withToken({ changed_since: token })
      assert.deepEqual(since.answer, { data: [], removed: [], errors: [] })
      assert.equal(since.token, token)
      assert.equal((await client.materials.withToken()).token, undefined)
      await assert.rejects(client.warehouses({ changed_since: `${token.split('.')[0]}.AAAAAAAAAAAA` }), (err: unknown) => {
        assert.ok(err instanceof DocgateError)
        assert.equal(err.status, 410)
        return true
      })
    })

    it('raw is the openapi-fetch client, typed by the same schema', async () => {
      const { data, response } = await client.raw.GET('/main/hs/warehouses/get', { params: { query: { code: 'скл-2' } } })
      assert.equal(response.status, 200)
      assert.deepEqual(data, { data: [{ Код: 'скл-2', Наименование: 'Склад №2', ЭтоГруппа: false }], errors: [] })
    })
  })
}
