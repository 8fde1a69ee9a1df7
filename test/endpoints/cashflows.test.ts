import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { cashDesk, catalogItem, cashflowsFixture, recordSet } from '../fixtures/cashflows.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'

// The server's "today" is 15.03.2026.
const now = () => new Date(2026, 2, 15, 12, 0, 0)

type Amounts = readonly [opening: number, receipts: number, expenses: number, closing: number]
interface Account {
  readonly org: string
  readonly name: string
  readonly kind: string
  readonly bank: string
  readonly accountKind: string
  readonly currency: string
  readonly closed: boolean
}

const account = (
  org: string,
  name: string,
  kind: string,
  bank: string,
  accountKind: string,
  currency: string,
  closed: boolean,
): Account => ({
  org,
  name,
  kind,
  bank,
  accountKind,
  currency,
  closed,
})
const A_USD = account('ООО Альфа', 'Валютный счет', 'Безналичные', 'АО Альфа-Банк', 'Иной', 'USD', true)
const A_CASH = account('ООО Альфа', 'Основная касса', 'Наличные', '', '', 'руб.', false)
const A_SBER = account('ООО Альфа', 'Расчетный счет в Сбербанке', 'Безналичные', 'ПАО Сбербанк', 'Расчетный', 'руб.', false)
const B_CASH = account('ООО Бета', 'Касса Бета', 'Наличные', '', '', 'руб.', true)
const B_IDLE = account('ООО Бета', 'Нулевой счет', 'Безналичные', 'АО Альфа-Банк', 'Расчетный', 'руб.', false)
const B_SBER = account('ООО Бета', 'Расчетный счет Бета', 'Безналичные', 'ПАО Сбербанк', 'Расчетный', 'руб.', false)

const row = (a: Account, [from, to]: readonly [string, string], [o, r, e, c]: Amounts, mgmt = false) => ({
  Итог: false,
  ПериодС: from,
  ПериодПо: to,
  Организация: a.org,
  СчетКасса: a.name,
  ВидДенежныхСредств: a.kind,
  Банк: a.bank,
  ВидСчета: a.accountKind,
  Валюта: a.currency,
  Закрыт: a.closed,
  НачальныйОстаток: o,
  Приход: r,
  Расход: e,
  КонечныйОстаток: c,
  УпрУчет: mgmt,
})

const totalsRow = ([from, to]: readonly [string, string], [o, r, e, c]: Amounts, mgmt = false) => ({
  Итог: true,
  ПериодС: from,
  ПериодПо: to,
  Организация: '',
  СчетКасса: 'Итог',
  ВидДенежныхСредств: '',
  Банк: '',
  ВидСчета: '',
  Валюта: '',
  Закрыт: false,
  НачальныйОстаток: o,
  Приход: r,
  Расход: e,
  КонечныйОстаток: c,
  УпрУчет: mgmt,
})

const MARCH = ['01.03.2026', '31.03.2026'] as const
const M_USD = row(A_USD, MARCH, [500, 0, 0, 500])
const M_A_CASH = row(A_CASH, MARCH, [0, 3000, 1000.1, 1999.9])
const M_A_SBER = row(A_SBER, MARCH, [70000, 5000.5, 2000.25, 73000.25])
const M_B_CASH = row(B_CASH, MARCH, [1500, 0, 0, 1500])
const M_B_SBER = row(B_SBER, MARCH, [20000, 0, 20000, 0])
const MARCH_ROWS = [M_USD, M_A_CASH, M_A_SBER, M_B_CASH, M_B_SBER]
const MARCH_Q = 'from=01.03.2026&to=31.03.2026'

for (const backend of BACKENDS) {
  describe(`GET /main/hs/cashflows/get (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(cashflowsFixture, { backend, now })
    })
    after(() => app.close())
    const get = async (query: string) => {
      const res = await app.api(`/main/hs/cashflows/get?${query}`)
      assert.equal(res.status, 200)
      return res.json
    }
    const march = (extra: string) => get(`${MARCH_Q}&${extra}`)

    it('gives opening balance, turnovers and closing balance per account, by organization then account', async () => {
      const res = await app.api(`/main/hs/cashflows/get?${MARCH_Q}`)
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(res.headers['access-control-allow-origin'], '*')
      // The first and last second of the period count; 28.02 23:59:59 and 01.04 00:00:00 do not;
      // the account whose earlier movements net to 0 has no row.
      assert.deepEqual(res.json, { data: MARCH_ROWS, errors: [] })
    })

    it('mgmt=true uses the management amounts and sets УпрУчет', async () => {
      assert.deepEqual(await march('mgmt=true'), {
        data: [
          row(A_USD, MARCH, [45000, 0, 0, 45000], true),
          row(A_CASH, MARCH, [0, 3000, 1000, 2000], true),
          row(A_SBER, MARCH, [63000, 5000, 2000, 66000], true),
          row(B_CASH, MARCH, [1500, 0, 0, 1500], true),
          row(B_SBER, MARCH, [20000, 0, 20000, 0], true),
        ],
        errors: [],
      })
      assert.deepEqual(await march('mgmt=0'), { data: MARCH_ROWS, errors: [] })
    })

    it('balances carry across month and year boundaries', async () => {
      const april = ['01.04.2026', '30.04.2026'] as const
      assert.deepEqual(await get('from=01.04.2026&to=30.04.2026'), {
        data: [
          row(A_USD, april, [500, 0, 0, 500]),
          row(A_CASH, april, [1999.9, 0, 0, 1999.9]),
          row(A_SBER, april, [73000.25, 7777, 0, 80777.25]),
          row(B_CASH, april, [1500, 0, 0, 1500]),
        ],
        errors: [],
      })
      const y2027 = ['01.01.2027', '31.12.2027'] as const
      assert.deepEqual(await get('from=2027-01-01&to=31-12-2027'), {
        data: [
          row(A_USD, y2027, [500, 0, 0, 500]),
          row(A_CASH, y2027, [1999.9, 0, 0, 1999.9]),
          row(A_SBER, y2027, [80777.25, 0, 0, 80777.25]),
          row(B_CASH, y2027, [1500, 0, 0, 1500]),
        ],
        errors: [],
      })
    })

    it('with no period: 01.01.0001 to today', async () => {
      const p = ['01.01.0001', '15.03.2026'] as const
      assert.deepEqual(await get(''), {
        data: [
          row(A_USD, p, [0, 500, 0, 500]),
          row(A_CASH, p, [0, 3000, 1000.1, 1999.9]),
          row(A_SBER, p, [0, 105000.5, 31200.25, 73800.25]),
          row(B_CASH, p, [0, 1500, 0, 1500]),
          // Movements in the period give a row even when they net to 0.
          row(B_IDLE, p, [0, 400, 400, 0]),
          row(B_SBER, p, [0, 20000, 0, 20000]),
        ],
        errors: [],
      })
    })

    it('a period that takes in every movement reads the ready statement: the same rows, any period printed', async () => {
      // The register's movements run from 01.06.2024 to 01.04.2026 (both days included).
      const whole = (p: readonly [string, string], mgmt = false) => [
        row(A_USD, p, mgmt ? [0, 45000, 0, 45000] : [0, 500, 0, 500], mgmt),
        row(A_CASH, p, mgmt ? [0, 3000, 1000, 2000] : [0, 3000, 1000.1, 1999.9], mgmt),
        row(A_SBER, p, mgmt ? [0, 102777, 29000, 73777] : [0, 112777.5, 32000.25, 80777.25], mgmt),
        row(B_CASH, p, [0, 1500, 0, 1500], mgmt),
        row(B_IDLE, p, [0, 400, 400, 0], mgmt),
        row(B_SBER, p, [0, 20000, 20000, 0], mgmt),
      ]
      const first = ['01.06.2024', '01.04.2026'] as const
      assert.deepEqual(await get('from=01.06.2024&to=01.04.2026&totals=true'), {
        data: [...whole(first), totalsRow(first, [0, 138177.5, 53400.35, 84777.15])],
        errors: [],
      })
      const open = ['01.01.0001', '31.12.2030'] as const
      assert.deepEqual(await get('to=31.12.2030&mgmt=true&totals=true'), {
        data: [...whole(open, true), totalsRow(open, [0, 172677, 50400, 122277], true)],
        errors: [],
      })
      assert.deepEqual(await get('to=31.12.2030'), { data: whole(open), errors: [] })
      // A filter still tests every row.
      assert.deepEqual(await get(`to=31.12.2030&org=${encodeURIComponent('бета')}&closed=false`), {
        data: whole(open).slice(4),
        errors: [],
      })
      // One day short at either end: the statement is computed, its opening balance or its last receipt differ.
      assert.deepEqual((await get('from=02.06.2024&to=01.04.2026')).data[0], row(A_USD, ['02.06.2024', '01.04.2026'], [500, 0, 0, 500]))
      assert.deepEqual((await get('to=31.03.2026')).data[2], row(A_SBER, ['01.01.0001', '31.03.2026'], [0, 105000.5, 32000.25, 73000.25]))
    })

    it('from without to ends today', async () => {
      const p = ['01.03.2026', '15.03.2026'] as const
      assert.deepEqual(await get('from=01.03.2026'), {
        data: [
          row(A_USD, p, [500, 0, 0, 500]),
          row(A_CASH, p, [0, 3000, 1000.1, 1999.9]),
          row(A_SBER, p, [70000, 5000.5, 1200.25, 73800.25]),
          row(B_CASH, p, [1500, 0, 0, 1500]),
          row(B_SBER, p, [20000, 0, 0, 20000]),
        ],
        errors: [],
      })
    })

    it('to without from starts at 01.01.0001 and includes the whole last day', async () => {
      const p = ['01.01.0001', '28.02.2026'] as const
      assert.deepEqual(await get('to=28.02.2026'), {
        data: [
          row(A_USD, p, [0, 500, 0, 500]),
          row(A_SBER, p, [0, 100000, 30000, 70000]),
          row(B_CASH, p, [0, 1500, 0, 1500]),
          row(B_IDLE, p, [0, 400, 400, 0]),
          row(B_SBER, p, [0, 20000, 0, 20000]),
        ],
        errors: [],
      })
    })

    it('date is one whole day and wins over from/to', async () => {
      const p = ['05.03.2026', '05.03.2026'] as const
      const expected = {
        data: [
          row(A_USD, p, [500, 0, 0, 500]),
          row(A_CASH, p, [0, 3000, 1000.1, 1999.9]),
          row(A_SBER, p, [75000.5, 0, 0, 75000.5]),
          row(B_CASH, p, [1500, 0, 0, 1500]),
          row(B_SBER, p, [20000, 0, 0, 20000]),
        ],
        errors: [],
      }
      assert.deepEqual(await get('date=05.03.2026'), expected)
      assert.deepEqual(await get('date=2026-03-05&from=01.01.2020&to=31.12.2030'), expected)
      const jan = ['10.01.2026', '10.01.2026'] as const
      assert.deepEqual(await get('date=10-01-2026'), {
        data: [row(A_USD, jan, [500, 0, 0, 500]), row(A_SBER, jan, [100000, 0, 0, 100000]), row(B_IDLE, jan, [0, 400, 0, 400])],
        errors: [],
      })
    })

    it('an invalid date is reported and treated as not given', async () => {
      const bad = (p: string, v: string) =>
        `Неверный формат даты в параметре ${p}: "${v}" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)`
      const all = ['01.01.0001', '15.03.2026'] as const
      assert.deepEqual(await get('from=32.01.2026&org=' + encodeURIComponent('Бета')), {
        data: [row(B_CASH, all, [0, 1500, 0, 1500]), row(B_IDLE, all, [0, 400, 400, 0]), row(B_SBER, all, [0, 20000, 0, 20000])],
        errors: [bad('from', '32.01.2026')],
      })
      const fromMarch = ['01.03.2026', '15.03.2026'] as const
      assert.deepEqual(await get('from=01.03.2026&to=2026-13-01&org=' + encodeURIComponent('бета')), {
        data: [row(B_CASH, fromMarch, [1500, 0, 0, 1500]), row(B_SBER, fromMarch, [20000, 0, 0, 20000])],
        errors: [bad('to', '2026-13-01')],
      })
      const dateBad = await get(`${MARCH_Q}&date=5.3.2026`)
      assert.deepEqual(dateBad, { data: MARCH_ROWS, errors: [bad('date', '5.3.2026')] })
    })

    it('a period that ends before it starts is reported and selects nothing', async () => {
      assert.deepEqual(await get('from=31.03.2026&to=01.03.2026&totals=true'), {
        data: [],
        errors: ['Начало периода 31.03.2026 позже его конца 01.03.2026'],
      })
    })

    it('org, account, cash, bank, accountType and currency are case-insensitive substrings', async () => {
      const e = encodeURIComponent
      assert.deepEqual(await march(`org=${e('бета')}`), { data: [M_B_CASH, M_B_SBER], errors: [] })
      assert.deepEqual(await march(`account=${e('СЧЕТ')}`), { data: [M_USD, M_A_SBER, M_B_SBER], errors: [] })
      assert.deepEqual(await march(`cash=${e('касса')}`), { data: [M_A_CASH, M_B_CASH], errors: [] })
      assert.deepEqual(await march(`bank=${e('сбер')}`), { data: [M_A_SBER, M_B_SBER], errors: [] })
      assert.deepEqual(await march(`accountType=${e('иной')}`), { data: [M_USD], errors: [] })
      assert.deepEqual(await march(`accountType=${e('расч')}`), { data: [M_A_SBER, M_B_SBER], errors: [] })
      assert.deepEqual(await march('currency=usd'), { data: [M_USD], errors: [] })
      assert.deepEqual(await march(`currency=${e('руб')}`), { data: [M_A_CASH, M_A_SBER, M_B_CASH, M_B_SBER], errors: [] })
      assert.deepEqual(await march(`org=${e('альфа')}&bank=${e('альфа')}`), { data: [M_USD], errors: [] })
    })

    for (const [value, expected] of [
      ['Наличные', [M_A_CASH, M_B_CASH]],
      ['наличные', [M_A_CASH, M_B_CASH]],
      ['нал', [M_A_CASH, M_B_CASH]],
      ['Безналичные', [M_USD, M_A_SBER, M_B_SBER]],
      ['БЕЗНАЛ', [M_USD, M_A_SBER, M_B_SBER]],
      ['без', [M_USD, M_A_SBER, M_B_SBER]],
      ['электронные', []],
    ] as const) {
      it(`kind=${value} selects ${expected.length === 2 ? 'cash only' : expected.length === 3 ? 'non-cash only' : 'nothing'}`, async () => {
        assert.deepEqual(await march(`kind=${encodeURIComponent(value)}`), { data: expected, errors: [] })
      })
    }

    for (const value of ['1', 'true', 'yes', 'да', 'ДА']) {
      it(`closed=${value} keeps closed accounts`, async () => {
        assert.deepEqual(await march(`closed=${encodeURIComponent(value)}`), { data: [M_USD, M_B_CASH], errors: [] })
      })
    }
    for (const value of ['0', 'false', 'no', 'нет', 'Нет']) {
      it(`closed=${value} keeps open accounts`, async () => {
        assert.deepEqual(await march(`closed=${encodeURIComponent(value)}`), { data: [M_A_CASH, M_A_SBER, M_B_SBER], errors: [] })
      })
    }
    it('closed with another value is reported and ignored', async () => {
      assert.deepEqual(await march('closed=maybe'), { data: MARCH_ROWS, errors: ['Неверное значение параметра closed: "maybe"'] })
    })

    it('totals=true adds the totals row of the rows left after the post-filters', async () => {
      assert.deepEqual(await march('totals=true'), {
        data: [...MARCH_ROWS, totalsRow(MARCH, [92000, 8000.5, 23000.35, 77000.15])],
        errors: [],
      })
      assert.deepEqual(await march(`totals=1&org=${encodeURIComponent('альфа')}`), {
        data: [M_USD, M_A_CASH, M_A_SBER, totalsRow(MARCH, [70500, 8000.5, 3000.35, 75500.15])],
        errors: [],
      })
      assert.deepEqual(await march('totals=true&mgmt=true&kind=' + encodeURIComponent('Наличные')), {
        data: [
          row(A_CASH, MARCH, [0, 3000, 1000, 2000], true),
          row(B_CASH, MARCH, [1500, 0, 0, 1500], true),
          totalsRow(MARCH, [1500, 3000, 1000, 3500], true),
        ],
        errors: [],
      })
      assert.deepEqual(await march('totals=false'), { data: MARCH_ROWS, errors: [] })
    })

    it('no totals row when no row is left', async () => {
      assert.deepEqual(await march('totals=true&org=nobody'), { data: [], errors: [] })
      assert.deepEqual(await get('totals=true&to=31.12.2020'), { data: [], errors: [] })
    })

    it('full is not supported: it changes nothing', async () => {
      assert.deepEqual(await march('full=true'), { data: MARCH_ROWS, errors: [] })
    })

    it('re-importing a record set updates the balances', async () => {
      // The ready statement over the whole history, read (and on SQLite kept) before the import: six accounts.
      const before = await get('to=31.12.2030')
      assert.equal(before.data.length, 6)
      assert.deepEqual(before.data[0], row(A_USD, ['01.01.0001', '31.12.2030'], [0, 500, 0, 500]))
      const report = await app.importMore([
        // r4 moves from 14.03 to another day and account; r7 (the USD account's only movement) is emptied.
        recordSet('r4', [
          ['2026-03-20T09:00:00', 'Расход', 'org-a', 'ba-a1', 200, 200],
          ['2026-03-02T09:00:00', 'Приход', 'org-a', 'cd-a', 50, 50],
        ]),
        recordSet('r7', []),
      ])
      assert.equal(report.ok, true)
      assert.deepEqual(await march('totals=true'), {
        data: [
          row(A_CASH, MARCH, [0, 3050, 1000.1, 2049.9]),
          row(A_SBER, MARCH, [70000, 5000.5, 1000, 74000.5]),
          M_B_CASH,
          M_B_SBER,
          totalsRow(MARCH, [91500, 8050.5, 22000.1, 77550.4]),
        ],
        errors: [],
      })
      // The ready statement over the whole history follows: r7 was the USD account's only movement.
      const open = ['01.01.0001', '31.12.2030'] as const
      assert.deepEqual(await get('to=31.12.2030&totals=true'), {
        data: [
          row(A_CASH, open, [0, 3050, 1000.1, 2049.9]),
          row(A_SBER, open, [0, 112777.5, 31000, 81777.5]),
          row(B_CASH, open, [0, 1500, 0, 1500]),
          row(B_IDLE, open, [0, 400, 400, 0]),
          row(B_SBER, open, [0, 20000, 20000, 0]),
          totalsRow(open, [0, 137727.5, 52400.1, 85327.4]),
        ],
        errors: [],
      })
    })
  })

  describe(`cashflows after its accounts' catalogues change (${backend})`, () => {
    it('prints the new names, order and flags with no register change', async () => {
      const app = await startApp(cashflowsFixture, { backend, now })
      try {
        const report = await app.importMore([
          catalogItem('Организации', 'org-a', 'ЯЯ Альфа'),
          catalogItem('Банки', 'bank-sber', 'Сбербанк'),
          catalogItem('Валюты', 'cur-rub', 'RUB'),
          cashDesk('cd-b', 'Касса Бета', 'org-b', 'cur-rub', false),
        ])
        assert.equal(report.ok, true)
        const a = (x: Account) => ({
          ...x,
          org: 'ЯЯ Альфа',
          currency: x.currency === 'руб.' ? 'RUB' : x.currency,
          bank: x.bank === 'ПАО Сбербанк' ? 'Сбербанк' : x.bank,
        })
        const b = (x: Account) => ({ ...x, currency: 'RUB', bank: x.bank === 'ПАО Сбербанк' ? 'Сбербанк' : x.bank })
        assert.deepEqual((await app.api(`/main/hs/cashflows/get?${MARCH_Q}`)).json, {
          data: [
            row({ ...b(B_CASH), closed: false }, MARCH, [1500, 0, 0, 1500]),
            row(b(B_SBER), MARCH, [20000, 0, 20000, 0]),
            row(a(A_USD), MARCH, [500, 0, 0, 500]),
            row(a(A_CASH), MARCH, [0, 3000, 1000.1, 1999.9]),
            row(a(A_SBER), MARCH, [70000, 5000.5, 2000.25, 73000.25]),
          ],
          errors: [],
        })
        // The ready statement over the whole history prints them too.
        const whole = (await app.api('/main/hs/cashflows/get?to=31.12.2030')).json as {
          data: { Организация: string; СчетКасса: string; Банк: string; Валюта: string }[]
        }
        assert.deepEqual(
          whole.data.map((r) => [r.Организация, r.СчетКасса, r.Банк, r.Валюта]),
          [
            ['ООО Бета', 'Касса Бета', '', 'RUB'],
            ['ООО Бета', 'Нулевой счет', 'АО Альфа-Банк', 'RUB'],
            ['ООО Бета', 'Расчетный счет Бета', 'Сбербанк', 'RUB'],
            ['ЯЯ Альфа', 'Валютный счет', 'АО Альфа-Банк', 'USD'],
            ['ЯЯ Альфа', 'Основная касса', '', 'RUB'],
            ['ЯЯ Альфа', 'Расчетный счет в Сбербанке', 'Сбербанк', 'RUB'],
          ],
        )
        assert.deepEqual((await app.api(`/main/hs/cashflows/get?${MARCH_Q}&bank=сбер&closed=false`)).json, {
          data: [row(b(B_SBER), MARCH, [20000, 0, 20000, 0]), row(a(A_SBER), MARCH, [70000, 5000.5, 2000.25, 73000.25])],
          errors: [],
        })
      } finally {
        await app.close()
      }
    })
  })

  describe(`cashflows on an empty register (${backend})`, () => {
    it('gives no rows and no totals row', async () => {
      const app = await startApp([], { backend, now })
      try {
        assert.deepEqual((await app.api('/main/hs/cashflows/get?totals=true')).json, { data: [], errors: [] })
      } finally {
        await app.close()
      }
    })
  })
}
