// A cursor survives a sync batch (decision "Pages by keyset"): pages of customer orders read
// before and after `docgate sync` writes a new order ahead of the boundary and changes one
// behind it hold every order that was there exactly once, in order, the changed one as it
// is now, and never the new one (it sorts before the page already read).
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { sync } from '../../src/cli/sync.js'
import { startFake1C } from '../../src/fake1c/index.js'
import type { Fake1C } from '../../src/fake1c/index.js'
import { answer } from '../../src/pipeline/run.js'
import type { PageInfo } from '../../src/endpoints/pages.js'
import type { SqlPort } from '../../src/store/sql.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { TODAY, demoObjects } from '../sync/support.js'

type Order = { Номер: string; Дата: string; Сумма: number }

async function syncOnce(sql: SqlPort, source: string): Promise<void> {
  const err: string[] = []
  const code = await sync(
    { db: 'unused', source, once: true },
    { sink: { out: () => {}, err: (l) => err.push(l) }, sql, retryDelaysMs: [1, 1, 1, 1], today: () => TODAY },
  )
  assert.equal(code, 0, err.join('\n'))
}

async function page(sql: SqlPort, query: string): Promise<{ rows: Order[]; next?: string }> {
  let info: PageInfo | undefined
  const body = await answer('orders', query, { sql, now: () => new Date(`${TODAY}T12:00:00Z`), page: (p) => (info = p) })
  assert.ok(Buffer.isBuffer(body))
  const shown = info as PageInfo | undefined
  return { rows: JSON.parse(body.toString()).data, ...(shown?.next !== undefined ? { next: shown.next } : {}) }
}

for (const backend of BACKENDS)
  describe(`${backend}: a cursor across a sync batch`, () => {
    const source = demoObjects()
    let fake: Fake1C
    let store: TestStore
    before(async () => {
      fake = await startFake1C({ objects: source, today: TODAY })
      store = await createTestStore(backend)
      await syncOnce(store.writer, fake.url)
    })
    after(async () => {
      await fake.close()
      if (store.location !== 'pglite://memory') await store.writer.close()
      await store.cleanup()
    })

    it('pages before and after the sync hold every order once, the changed one as it is now, the new one on no later page', async () => {
      const sql = store.writer
      const whole: Order[] = JSON.parse((await answer('orders', '', { sql, now: () => new Date(`${TODAY}T12:00:00Z`) })).toString()).data
      assert.ok(whole.length > 10, `${whole.length} orders`)
      // Behind the boundary: an order 1C changes, one of the recent months a cycle reads (the
      // list is newest first); the first page is the orders before it.
      const sourceOf = (o: Order) => source.find((x) => x.type === 'Документ.ЗаказПокупателя' && x['Номер'] === o.Номер)!
      const at = whole.findIndex((o, i) => i >= 1 && String(sourceOf(o)['Дата']) >= '2026-09-01')
      assert.ok(at >= 1, 'a recent order behind the first')
      const limit = `limit=${at}`
      const first = await page(sql, limit)
      assert.deepEqual(first.rows, whole.slice(0, at))
      const changed = whole[at]!
      const original = sourceOf(changed)
      fake.put({ ...original, СуммаДокумента: 4321.5 })
      // Ahead of it: a new order dated today, which sorts first.
      fake.put({ ...original, ref: randomUUID(), Номер: 'НОВ-0001', Дата: `${TODAY}T10:00:00` })
      await syncOnce(sql, fake.url)
      const after1 = JSON.parse((await answer('orders', '', { sql, now: () => new Date(`${TODAY}T12:00:00Z`) })).toString()).data
      assert.equal(after1[0].Номер, 'НОВ-0001', 'the sync wrote the new order at the head of the list')

      const rest: Order[] = []
      for (let next = first.next; next !== undefined; ) {
        const p = await page(sql, `${limit}&cursor=${next}`)
        rest.push(...p.rows)
        next = p.next
      }
      assert.deepEqual(
        [...first.rows, ...rest].map((o) => o.Номер),
        whole.map((o) => o.Номер),
      )
      assert.equal(rest.find((o) => o.Номер === changed.Номер)?.Сумма, 4321.5)
      assert.equal(
        rest.some((o) => o.Номер === 'НОВ-0001'),
        false,
      )
    })
  })
