import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { compileJoinedPage, compilePage, compilePageEnd } from '../../src/store/select.js'
import { sqliteDialect } from '../../src/store/sqlite.js'
import { postgresDialect } from '../../src/store/postgres.js'
import type { QueryPlan } from '../../src/store/plan.js'

const plan: QueryPlan = {
  source: 'api_x',
  columns: ['ref', 'short', 'date', 'number'],
  where: [
    { kind: 'contains', column: 'number_f', value: '%_\\', indexed: false },
    { kind: 'equals', column: 'posted', value: 1 },
    { kind: 'range', column: 'date', from: '2024-01-01', toExclusive: '2024-02-01' },
  ],
  orderBy: [
    { column: 'date', dir: 'desc' },
    { column: 'ref', dir: 'desc' },
  ],
}

describe('plan compilation (sqlite)', () => {
  it('binds every value as a parameter and matches substrings with instr', () => {
    assert.deepEqual(compilePage(plan, sqliteDialect, 500), {
      sql: 'SELECT ref, short, date, number FROM api_x WHERE instr(number_f, ?) > 0 AND posted = ? AND date >= ? AND date < ? ORDER BY date DESC, ref DESC LIMIT ?',
      params: ['%_\\', 1, '2024-01-01', '2024-02-01', 500],
    })
  })

  it('continues after the last row with a row-value keyset condition (one index range)', () => {
    const { sql, params } = compilePage({ ...plan, where: [] }, sqliteDialect, 10, ['2024-01-05T00:00:00', 'r1'])
    assert.equal(sql, 'SELECT ref, short, date, number FROM api_x WHERE (date, ref) < (?, ?) ORDER BY date DESC, ref DESC LIMIT ?')
    assert.deepEqual(params, ['2024-01-05T00:00:00', 'r1', 10])
  })

  it('continues after the last row key by key when the directions differ', () => {
    const mixed: QueryPlan = {
      ...plan,
      where: [],
      orderBy: [
        { column: 'date', dir: 'desc' },
        { column: 'ref', dir: 'asc' },
      ],
    }
    const { sql, params } = compilePage(mixed, sqliteDialect, 10, ['2024-01-05T00:00:00', 'r1'])
    assert.equal(
      sql,
      'SELECT ref, short, date, number FROM api_x WHERE ((date < ?) OR (date = ? AND ref > ?)) ORDER BY date DESC, ref ASC LIMIT ?',
    )
    assert.deepEqual(params, ['2024-01-05T00:00:00', '2024-01-05T00:00:00', 'r1', 10])
  })

  it('joins the short forms of a page into one blob in the order of its subquery', () => {
    assert.deepEqual(compileJoinedPage({ ...plan, where: [plan.where[1]!] }, sqliteDialect, 500), {
      sql:
        "SELECT CAST(group_concat(short, ',') AS BLOB) AS body, count(*) AS n FROM " +
        '(SELECT short, date, ref FROM api_x WHERE posted = ? ORDER BY date DESC, ref DESC LIMIT ?) AS page',
      params: [1, 500],
    })
  })

  it("gives a page's joined forms as stored bytes, or in the dialect's bytes form when asked (PostgreSQL: Base64)", () => {
    const page = 'FROM (SELECT short, date, ref FROM api_x ORDER BY date DESC, ref DESC LIMIT ?) AS page'
    assert.equal(
      compileJoinedPage({ ...plan, where: [] }, postgresDialect, 100).sql,
      `SELECT string_agg(short, ','::bytea ORDER BY date DESC, ref DESC) AS body, count(*) AS n ${page}`,
    )
    assert.equal(
      compileJoinedPage({ ...plan, where: [] }, postgresDialect, 100, { form: 'short', encoded: true }).sql,
      `SELECT encode(string_agg(short, ','::bytea ORDER BY date DESC, ref DESC), 'base64') AS body, count(*) AS n ${page}`,
    )
  })

  it('joins stored full forms after a page, counting the rows it cannot join', () => {
    const { sql, params } = compileJoinedPage({ ...plan, where: [] }, sqliteDialect, 500, {
      form: 'full_form',
      special: ['full_issue', 'full_blobs'],
      after: ['2024-01-05T00:00:00', 'r1'],
    })
    assert.equal(
      sql,
      "SELECT CAST(group_concat(full_form, ',') AS BLOB) AS body, count(*) AS n, " +
        "count(NULLIF(full_issue, '')) + count(NULLIF(full_blobs, '')) AS special FROM " +
        '(SELECT full_form, full_issue, full_blobs, date, ref FROM api_x WHERE (date, ref) < (?, ?) ORDER BY date DESC, ref DESC LIMIT ?) AS page',
    )
    assert.deepEqual(params, ['2024-01-05T00:00:00', 'r1', 500])
  })

  it("reads the sort keys of a full page's last row alone", () => {
    assert.deepEqual(compilePageEnd({ ...plan, where: [plan.where[1]!] }, sqliteDialect, 500, ['2024-01-05T00:00:00', 'r1']), {
      sql: 'SELECT date, ref FROM api_x WHERE posted = ? AND (date, ref) < (?, ?) ORDER BY date DESC, ref DESC LIMIT ? OFFSET ?',
      params: [1, '2024-01-05T00:00:00', 'r1', 1, 499],
    })
  })
})
