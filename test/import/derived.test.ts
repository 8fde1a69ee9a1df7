import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { cashBalances } from '../../src/endpoints/shared/cash-balances.js'
import { cashTurnovers } from '../../src/endpoints/shared/cash-turnovers.js'
import { migrate } from '../../src/store/migrate.js'
import { openWritable } from '../../src/store/open.js'
import type { SqlPort } from '../../src/store/sql.js'
import type { Move } from '../fixtures/cashflows.js'
import { recordSet } from '../fixtures/cashflows.js'
import { importFixture, tempDir } from '../support/app.js'

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
    const period = next() % 17 === 0 ? '0001-01-02T00:00:00' : `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}T${String(next() % 24).padStart(2, '0')}:00:00`
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
    assert.equal((await importFixture(sql, [recordSet('rec-3', moves(100, 5)), recordSet('rec-4', []), recordSet('rec-5', moves(101, 2))])).ok, true)
    assert.equal((await importFixture(sql, [recordSet('rec-5', []), recordSet('rec-41', moves(102, 9)), recordSet('rec-6', moves(103, 1))])).ok, true)
    const incremental = await snapshot(sql)
    assert.ok(incremental.length > 100)
    await sql.transaction(() => cashTurnovers.update(sql, 'all'))
    assert.deepEqual(incremental, await snapshot(sql))
  })

  it('each level sums the one below, and day rows sum the register', async () => {
    assert.equal((await importFixture(sql, Array.from({ length: 10 }, (_, i) => recordSet(`rec-${i}`, moves(i + 7, 4))))).ok, true)
    const [days] = await sql.all<{ n: number; r: number }>("SELECT SUM(moves) AS n, SUM(receipt) AS r FROM cash_turnovers WHERE level = 'd'")
    const [years] = await sql.all<{ n: number; r: number }>("SELECT SUM(moves) AS n, SUM(receipt) AS r FROM cash_turnovers WHERE level = 'y'")
    const [register] = await sql.all<{ n: number; r: number }>("SELECT COUNT(*) AS n, SUM(CASE WHEN movement = 'Приход' THEN amount ELSE 0 END) AS r FROM reg_cash")
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
    await sql.transaction(() => migrate(sql))
    assert.deepEqual(await snapshot(sql), before)
  })
})
