// sync.md §7.5 step 2 on every engine: a record set that changes in 1C without its
// document changing is found by the rescan of the last `registerRescanDays` (45) days,
// and only there; a set whose recent rows vanish is read again and removed.
import * as assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startFake1C } from '../../src/fake1c/index.js'
import type { Fake1C } from '../../src/fake1c/index.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { TODAY, demoObjects, runSync } from './support.js'
import type { Obj } from './support.js'

const CASH = 'РегистрНакопления.ДенежныеСредства'
const CASH_SET = 'AccumulationRegister_ДенежныеСредства'

for (const backend of BACKENDS) {
  describe(`register rescan on ${backend}`, () => {
    const source = demoObjects()
    const dateOf = new Map(source.filter((o) => String(o.type).startsWith('Документ.')).map((o) => [o.ref as string, String(o['Дата'])]))
    const cashSets = source.filter((o) => o.type === CASH && (o['Движения'] as unknown[]).length === 1)
    const recorderOf = (set: Obj) => (set['Регистратор'] as { ref: string }).ref
    // TODAY is 2026-11-24: 45 days back is 2026-10-10.
    const recent = cashSets.find((s) => dateOf.get(recorderOf(s))! >= '2026-10-11')!
    const old = cashSets.find((s) => dateOf.get(recorderOf(s))! < '2026-09-01')!
    const withAmount = (set: Obj, amount: number): Obj => ({
      ...set,
      Движения: (set['Движения'] as Obj[]).map((m) => ({ ...m, Сумма: amount })),
    })
    let fake: Fake1C
    let store: TestStore

    const amounts = async (set: Obj): Promise<number[]> =>
      (await store.writer.all<{ amount: number }>('SELECT amount FROM reg_cash WHERE recorder = ? ORDER BY line', [recorderOf(set)])).map(
        (r) => Number(r.amount),
      )
    const once = async () => {
      const run = await runSync(store.writer, { source: fake.url, once: true })
      assert.equal(run.code, 0, run.err.join('\n'))
    }

    before(async () => {
      fake = await startFake1C({ objects: source, today: TODAY })
      store = await createTestStore(backend)
      await once()
    })
    after(async () => {
      await fake.close()
      if (store.location !== 'pglite://memory') await store.writer.close()
      await store.cleanup()
    })

    test('a recent set changed alone is read again; an older one is left as it was', async () => {
      const [recentBefore, oldBefore] = [await amounts(recent), await amounts(old)]
      assert.equal(recentBefore.length, 1)
      assert.equal(oldBefore.length, 1)
      fake.put(withAmount(recent, 777.77))
      fake.put(withAmount(old, 888.88))
      await once()
      assert.deepEqual(await amounts(recent), [777.77])
      assert.deepEqual(await amounts(old), oldBefore)
    })

    test('a recent set whose rows vanish in 1C is read again and removed', async () => {
      fake.put({ ...recent, Движения: [] })
      await once()
      assert.deepEqual(await amounts(recent), [])
    })

    test("the rescan's index holds only the recorders with a row in its days", async () => {
      const count = async (where: string) =>
        Number(
          (await store.writer.all<{ n: number }>(`SELECT count(*) AS n FROM sync_recorders WHERE register = ? ${where}`, [CASH_SET]))[0]!.n,
        )
      const [all, withRows] = [await count(''), await count("AND last_period <> ''")]
      assert.ok(withRows > 0 && withRows < all, `${withRows} of ${all}`)
      if (backend === 'sqlite') {
        // Its entries, counted in its leaf pages.
        const [entries] = await store.writer.all<{ n: number }>(
          "SELECT sum(ncell) AS n FROM dbstat WHERE name = 'sync_recorders__register_last_period__partial' AND pagetype = 'leaf'",
        )
        assert.equal(Number(entries!.n), withRows)
      } else {
        const [index] = await store.writer.all<{ def: string }>(
          "SELECT indexdef AS def FROM pg_indexes WHERE indexname = 'sync_recorders__register_last_period__partial'",
        )
        assert.equal(
          index!.def,
          "CREATE INDEX sync_recorders__register_last_period__partial ON public.sync_recorders USING btree (register, last_period) WHERE (last_period <> ''::text)",
        )
      }
    })
  })
}
