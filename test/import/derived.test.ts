import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { cashBalances, wholeStatement } from '../../src/endpoints/shared/cash-balances.js'
import { cashTurnovers } from '../../src/views/cash/turnovers.js'
import { migrate } from '../../src/views/migrate.js'
import { openWritable } from '../../src/app/store.js'
import type { SqlPort } from '../../src/store/sql.js'
import type { Move } from '../fixtures/cashflows.js'
import { recordSet } from '../fixtures/cashflows.js'
import { importFixture, tempDir } from '../support/app.js'
import { VIEWS } from '../../src/endpoints/index.js'

const snapshot = (sql: SqlPort) => sql.all('SELECT * FROM cash_turnovers ORDER BY organization, account, account_type, level, start')

/** A deterministic spread of movements over years, months and days, including a very early one. */
function moves(seed: number, n: number): Move[] {
  const out: Move[] = []
  let x = seed
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648)
  for (let i = 0; i < n; i++) {
    const y = 2023 + (next() % 3)
    const m = 1 + (next() % 12)
    const d = 1 + (next() % 28)
    const period =
      next() % 17 === 0
        ? '0001-01-02T00:00:00'
        : `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}T${String(next() % 24).padStart(2, '0')}:00:00`
    const account = ['ba-1', 'ba-2', 'cd-1'][next() % 3]!
    const amount = (next() % 100000) / 100
    out.push([period, next() % 2 === 0 ? 'Приход' : 'Расход', `org-${next() % 2}`, account, amount, amount * 2])
  }
  return out
}

describe('derived cash turnovers', () => {
  let dir: string
  let sql: SqlPort
  beforeEach(async () => {
    dir = tempDir()
    sql = await openWritable(join(dir, 'db.sqlite'))
  })
  afterEach(async () => {
    await sql.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('incremental updates over replaced and emptied record sets equal a rebuild from the register', async () => {
    const sets = Array.from({ length: 40 }, (_, i) => recordSet(`rec-${i}`, moves(i + 1, 1 + (i % 7))))
    assert.equal((await importFixture(sql, sets)).ok, true)
    assert.equal(
      (await importFixture(sql, [recordSet('rec-3', moves(100, 5)), recordSet('rec-4', []), recordSet('rec-5', moves(101, 2))])).ok,
      true,
    )
    assert.equal(
      (await importFixture(sql, [recordSet('rec-5', []), recordSet('rec-41', moves(102, 9)), recordSet('rec-6', moves(103, 1))])).ok,
      true,
    )
    const incremental = await snapshot(sql)
    assert.ok(incremental.length > 100)
    await sql.transaction(() => cashTurnovers.update(sql, 'all'))
    assert.deepEqual(incremental, await snapshot(sql))
  })

  it('each level sums the one below, and day rows sum the register', async () => {
    assert.equal(
      (
        await importFixture(
          sql,
          Array.from({ length: 10 }, (_, i) => recordSet(`rec-${i}`, moves(i + 7, 4))),
        )
      ).ok,
      true,
    )
    const [days] = await sql.all<{ n: number; r: number }>(
      "SELECT SUM(moves) AS n, SUM(receipt) AS r FROM cash_turnovers WHERE level = 'd'",
    )
    const [years] = await sql.all<{ n: number; r: number }>(
      "SELECT SUM(moves) AS n, SUM(receipt) AS r FROM cash_turnovers WHERE level = 'y'",
    )
    const [register] = await sql.all<{ n: number; r: number }>(
      "SELECT COUNT(*) AS n, SUM(CASE WHEN movement = 'Приход' THEN amount ELSE 0 END) AS r FROM reg_cash",
    )
    assert.equal(days!.n, 40)
    assert.equal(years!.n, 40)
    assert.equal(register!.n, 40)
    assert.equal(Math.round(days!.r * 100), Math.round(register!.r * 100))
    assert.equal(Math.round(years!.r * 100), Math.round(register!.r * 100))
  })

  it('a movement on 02.01.0001 counts from the start of time', async () => {
    assert.equal((await importFixture(sql, [recordSet('r', [['0001-01-02T00:00:00', 'Приход', 'org-a', 'ba-a', 10, 1]])])).ok, true)
    const [first] = await cashBalances(sql, '0001-01-01', '0001-01-02', false)
    assert.deepEqual([first!.receiptsBefore, first!.receiptsThrough, first!.moves], [0, 10, 1])
    const [later] = await cashBalances(sql, '0001-01-03', '2026-01-01', true)
    assert.deepEqual([later!.receiptsBefore, later!.receiptsThrough, later!.moves], [1, 1, 0])
  })

  it('the empty date is no Период: the record set is rejected (Период is required)', async () => {
    const report = await importFixture(sql, [recordSet('r', [['0001-01-01T00:00:00', 'Приход', 'org-a', 'ba-a', 10, 1]])])
    assert.equal(report.ok, false)
    assert.equal(report.invalid[0]!.reason, 'Движения[1].Период: is required')
  })

  it('migrate rebuilds the derived tables when their definition is new to the store', async () => {
    assert.equal((await importFixture(sql, [recordSet('r', moves(5, 6))])).ok, true)
    const before = await snapshot(sql)
    await sql.run("DELETE FROM meta WHERE key = 'derived:cash_turnovers'")
    await sql.run('DELETE FROM cash_turnovers')
    await sql.transaction(() => migrate(sql, VIEWS))
    assert.deepEqual(await snapshot(sql), before)
  })

  it("migrate drops the register's former covering index and makes the account's one", async () => {
    const indexes = async () =>
      (
        await sql.all<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'reg_cash' AND sql IS NOT NULL ORDER BY name",
        )
      ).map((r) => r.name)
    assert.deepEqual(await indexes(), ['reg_cash__account_period'])
    await sql.exec(
      'CREATE INDEX reg_cash__organization_account_account_type_period_movement_amount_amount_mgmt ON reg_cash (organization, account, account_type, period, movement, amount, amount_mgmt)',
    )
    await sql.run("DELETE FROM meta WHERE key = 'derived:cash_turnovers'")
    await sql.transaction(() => migrate(sql, VIEWS))
    assert.deepEqual(await indexes(), ['reg_cash__account_period'])
  })

  it('running totals: a movement added before, inside or after a period changes the balances read, and its removal restores them', async () => {
    const balance = async (from: string, to: string) => {
      const [b] = await cashBalances(sql, from, to, false)
      return [
        b!.receiptsBefore - b!.expensesBefore,
        b!.receiptsThrough - b!.receiptsBefore,
        b!.expensesThrough - b!.expensesBefore,
        b!.moves,
      ]
    }
    const base = [
      recordSet('r1', [['2025-03-10T09:00:00', 'Приход', 'org-a', 'ba-a', 1000, 900]]),
      recordSet('r2', [['2025-04-05T10:00:00', 'Расход', 'org-a', 'ba-a', 250.5, 200]]),
      recordSet('r3', [['2025-05-20T11:00:00', 'Приход', 'org-a', 'ba-a', 40, 30]]),
    ]
    assert.equal((await importFixture(sql, base)).ok, true)
    assert.deepEqual(await balance('2025-04-01', '2025-04-30'), [1000, 0, 250.5, 1])
    assert.deepEqual(await sql.all('SELECT day, receipt, expense, receipt_mgmt, expense_mgmt, moves FROM cash_cumulative ORDER BY day'), [
      { day: '2025-03-10', receipt: 1000, expense: 0, receipt_mgmt: 900, expense_mgmt: 0, moves: 1 },
      { day: '2025-04-05', receipt: 1000, expense: 250.5, receipt_mgmt: 900, expense_mgmt: 200, moves: 2 },
      { day: '2025-05-20', receipt: 1040, expense: 250.5, receipt_mgmt: 930, expense_mgmt: 200, moves: 3 },
    ])
    // Before the period: the opening balance moves, and every later running total with it.
    assert.equal((await importFixture(sql, [recordSet('r0', [['2025-01-15T08:00:00', 'Расход', 'org-a', 'ba-a', 100, 100]])])).ok, true)
    assert.deepEqual(await balance('2025-04-01', '2025-04-30'), [900, 0, 250.5, 1])
    assert.deepEqual(await balance('2025-05-01', '2025-05-31'), [649.5, 40, 0, 1])
    // Inside it, on a day that already has a movement.
    assert.equal((await importFixture(sql, [recordSet('r4', [['2025-04-05T15:00:00', 'Приход', 'org-a', 'ba-a', 60, 50]])])).ok, true)
    assert.deepEqual(await balance('2025-04-01', '2025-04-30'), [900, 60, 250.5, 2])
    assert.deepEqual(await balance('2025-04-06', '2026-01-01'), [709.5, 40, 0, 1])
    // Removed (an emptied record set) and replaced.
    assert.equal(
      (await importFixture(sql, [recordSet('r0', []), recordSet('r4', [['2025-06-01T12:00:00', 'Приход', 'org-a', 'ba-a', 5, 5]])])).ok,
      true,
    )
    assert.deepEqual(await balance('2025-04-01', '2025-04-30'), [1000, 0, 250.5, 1])
    assert.deepEqual(await balance('2025-05-01', '2025-06-30'), [749.5, 45, 0, 2])
    // An account whose every movement goes is no longer listed.
    assert.equal(
      (
        await importFixture(
          sql,
          ['r1', 'r2', 'r3', 'r4'].map((r) => recordSet(r, [])),
        )
      ).ok,
      true,
    )
    assert.deepEqual(await cashBalances(sql, '2025-01-01', '2025-12-31', false), [])
    assert.deepEqual(await sql.all('SELECT * FROM cash_keys'), [])
  })

  it('the ready statement over the whole history follows every import: its days, rows and totals', async () => {
    const ready = async (mgmt: boolean) => {
      const w = await wholeStatement(sql, mgmt)
      return w && { ...w, tails: w.tails.toString().split('\n'), totalsTail: w.totalsTail.toString() }
    }
    const attributes = (kind: string) =>
      `"Организация":"","СчетКасса":"","ВидДенежныхСредств":"${kind}","Банк":"","ВидСчета":"","Валюта":"","Закрыт":false`
    const totals = (amounts: string, mgmt: boolean) =>
      `"Организация":"","СчетКасса":"Итог","ВидДенежныхСредств":"","Банк":"","ВидСчета":"","Валюта":"","Закрыт":false,${amounts},"УпрУчет":${mgmt}}`
    assert.equal(await ready(false), undefined)
    const base = [
      recordSet('r1', [['2025-03-10T09:00:00', 'Приход', 'org-a', 'ba-a', 1000, 900]]),
      recordSet('r2', [['2025-04-05T10:00:00', 'Расход', 'org-a', 'ba-a', 250.5, 200]]),
      recordSet('r3', [['2025-05-20T11:00:00', 'Приход', 'org-a', 'ba-a', 40, 30]]),
    ]
    assert.equal((await importFixture(sql, base)).ok, true)
    const bank = '"НачальныйОстаток":0,"Приход":1040,"Расход":250.5,"КонечныйОстаток":789.5'
    assert.deepEqual(await ready(false), {
      firstDay: '2025-03-10',
      lastDay: '2025-05-20',
      count: 1,
      tails: [`${attributes('Безналичные')},${bank},"УпрУчет":false}`],
      totalsTail: totals(bank, false),
    })
    const bankMgmt = '"НачальныйОстаток":0,"Приход":930,"Расход":200,"КонечныйОстаток":730'
    assert.deepEqual(await ready(true), {
      firstDay: '2025-03-10',
      lastDay: '2025-05-20',
      count: 1,
      tails: [`${attributes('Безналичные')},${bankMgmt},"УпрУчет":true}`],
      totalsTail: totals(bankMgmt, true),
    })
    // A cash desk's movement, earlier than any: a second row, and the first day moves.
    assert.equal((await importFixture(sql, [recordSet('r4', [['2024-01-01T00:00:00', 'Приход', 'org-a', 'cd-a', 10.05, 10]])])).ok, true)
    const desk = '"НачальныйОстаток":0,"Приход":10.05,"Расход":0,"КонечныйОстаток":10.05'
    assert.deepEqual(await ready(false), {
      firstDay: '2024-01-01',
      lastDay: '2025-05-20',
      count: 2,
      tails: [`${attributes('Безналичные')},${bank},"УпрУчет":false}`, `${attributes('Наличные')},${desk},"УпрУчет":false}`],
      totalsTail: totals('"НачальныйОстаток":0,"Приход":1050.05,"Расход":250.5,"КонечныйОстаток":799.55', false),
    })
    // Every movement gone: no statement is ready.
    assert.equal(
      (
        await importFixture(
          sql,
          ['r1', 'r2', 'r3', 'r4'].map((r) => recordSet(r, [])),
        )
      ).ok,
      true,
    )
    assert.equal(await ready(false), undefined)
  })

  it('incrementally kept running totals equal a rebuild from the turnovers', async () => {
    const running = () =>
      sql
        .all<Record<string, number | string>>('SELECT * FROM cash_cumulative ORDER BY organization, account, account_type, day')
        .then((rows) =>
          // Sums added in another order may differ in the last bits of a double.
          rows.map((r) =>
            Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? Math.round(v * 1e6) / 1e6 : v])),
          ),
        )
    assert.equal(
      (
        await importFixture(
          sql,
          Array.from({ length: 30 }, (_, i) => recordSet(`rec-${i}`, moves(i + 1, 1 + (i % 5)))),
        )
      ).ok,
      true,
    )
    assert.equal(
      (await importFixture(sql, [recordSet('rec-3', moves(200, 4)), recordSet('rec-7', []), recordSet('rec-31', moves(201, 6))])).ok,
      true,
    )
    const incremental = await running()
    assert.ok(incremental.length > 50)
    const keys = await sql.all('SELECT * FROM cash_keys ORDER BY organization, account, account_type')
    assert.deepEqual(
      keys,
      await sql.all('SELECT DISTINCT organization, account, account_type FROM reg_cash ORDER BY organization, account, account_type'),
    )
    await sql.transaction(() => cashTurnovers.update(sql, 'all'))
    assert.deepEqual(incremental, await running())
    assert.deepEqual(keys, await sql.all('SELECT * FROM cash_keys ORDER BY organization, account, account_type'))
  })
})
