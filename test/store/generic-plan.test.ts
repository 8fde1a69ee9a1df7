// The serving pool prepares its statements (PgStore `named`); after five executions
// PostgreSQL may switch a statement to a generic plan, built without the parameter values.
// A substring filter's generic plan does not know how selective the value is (nor the
// LIMIT), and may walk the sort order filtering every row; such statements go unprepared.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { ENDPOINTS } from '../../src/endpoints/index.js'
import { importEntries } from '../../src/import/run.js'
import { planQuery } from '../../src/endpoints/plan.js'
import { numberPlaceholders, PgStore, postgresDialect } from '../../src/store/postgres.js'
import { compilePage } from '../../src/store/select.js'
import { createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { uuid } from '../support/refs.js'

const url = process.env.DOCGATE_TEST_PG_URL

describe('postgres: substring filters of the serving pool use the trigram index after many executions', {
  skip: url ? false : 'DOCGATE_TEST_PG_URL is not set',
}, () => {
  let store: TestStore
  let client: pg.Client
  before(async () => {
    store = await createTestStore('postgres')
    const warehouses = Array.from({ length: 6000 }, (_, i) => ({
      type: 'Справочник.Склады',
      ref: uuid(`w${i}`),
      Код: String(i).padStart(6, '0'),
      Наименование: `Склад номер ${i} при цехе ${i % 97}`,
    }))
    const report = await importEntries(
      store.writer,
      warehouses.map((value, i) => ({ line: i + 1, value })),
    )
    assert.equal(report.ok, true)
    await store.writer.exec('ANALYZE')
    await store.writer.close()
    client = new pg.Client({ connectionString: store.location })
    await client.connect()
  })
  after(async () => {
    await client?.end()
    await store?.cleanup()
  })

  const served = () => new PgStore(client, { readonly: true, named: true })
  const listSql = (name?: string) => {
    const ep = ENDPOINTS.find((e) => e.service === 'warehouses')!
    if (ep.kind !== 'list') throw new Error('warehouses is a list')
    const request = { values: new Map(name === undefined ? [] : [['name', name]]), options: {}, flags: new Map(), ranges: [], issues: [] }
    return compilePage(planQuery(ep, request as never, postgresDialect).plan, postgresDialect, 101)
  }
  const prepared = async (sql: string) =>
    (await client.query('SELECT generic_plans FROM pg_prepared_statements WHERE statement = $1', [numberPlaceholders(sql)])).rows

  it('after an import, a substring filter is planned with its value at every execution, through the trigram index', async () => {
    const store = served()
    const { sql, params } = listSql('4711')
    assert.match(sql, /name_f LIKE \?/)
    for (let i = 0; i < 8; i++) assert.equal((await store.all(sql, [`%${1111 + i * 500}%`, 101])).length, 1)
    assert.deepEqual(await prepared(sql), [])
    // An unnamed statement with parameters, as the pool now sends it: planned with the values.
    const plan = (await client.query(`EXPLAIN ${numberPlaceholders(sql)}`, [...params])).rows
      .map((r) => r['QUERY PLAN'] as string)
      .join('\n')
    assert.match(plan, /Bitmap Index Scan on api_warehouses__name_f__trgm/, plan)
    assert.match(plan, /Index Cond: \(name_f ~~ '%4711%'::text\)/, plan)
  })

  it('statements without a substring filter stay prepared', async () => {
    const { sql, params } = listSql()
    for (let i = 0; i < 2; i++) assert.equal((await served().all(sql, params)).length, 101)
    assert.equal((await prepared(sql)).length, 1)
  })
})
