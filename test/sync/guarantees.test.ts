// sync.md §9 on every engine: demo data → fake 1C → `sync --once` answers exactly as an
// import of what §4 derives from the same objects; then idempotence, changes, deletions,
// unposting, an outage mid-cycle, the check, gentleness and secrets.
import * as assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { importEntries } from '../../src/import/run.js'
import { startFake1C } from '../../src/fake1c/index.js'
import type { Fake1C } from '../../src/fake1c/index.js'
import type { SqlPort } from '../../src/store/sql.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { TODAY, answers, demoObjects, dump, expectedFromSource, runSync } from './support.js'
import type { Obj } from './support.js'

const load = async (sql: SqlPort, objects: readonly unknown[]) => {
  const report = await importEntries(
    sql,
    objects.map((value, i) => ({ line: i + 1, value })),
  )
  assert.equal(report.ok, true, JSON.stringify(report.invalid.slice(0, 3)))
}

/** The writer handle goes first: dropping a PostgreSQL database ends its connections. */
async function dispose(store: TestStore): Promise<void> {
  if (store.location !== 'pglite://memory') await store.writer.close()
  await store.cleanup()
}

const setLines = (out: readonly string[]) => out.filter((l) => / → .*: read \d+, written \d+/.test(l))

for (const backend of BACKENDS) {
  describe(`sync guarantees on ${backend}`, () => {
    const source = demoObjects()
    let fake: Fake1C
    let imported: TestStore
    let synced: TestStore

    before(async () => {
      fake = await startFake1C({ objects: source, custom: true, today: TODAY })
      imported = await createTestStore(backend)
      synced = await createTestStore(backend)
      await load(imported.writer, expectedFromSource(source))
    })
    after(async () => {
      await fake.close()
      await dispose(imported)
      await dispose(synced)
    })

    test('1. a first --once into an empty store answers exactly as the import of §4', async () => {
      const run = await runSync(synced.writer, { source: fake.url, once: true })
      assert.equal(run.code, 0, run.err.join('\n'))
      assert.match(run.out.at(-1)!, /^cycle complete: \d+ entity sets; read \d+, written \d+, deleted 0; [\d.]+ s$/)
      assert.deepEqual(await dump(synced.writer), await dump(imported.writer))
      assert.deepEqual(await answers(synced.writer), await answers(imported.writer))
      // Each attachment's content is read once: the contents asked ahead are the ones used.
      const contents = fake.requests.filter((r) => r.url.includes("Catalog_ХранилищеДополнительнойИнформации(guid'")).map((r) => r.url)
      assert.ok(contents.length > 0)
      assert.equal(new Set(contents).size, contents.length)
    })

    test('2. a second --once with no change writes nothing and answers the same', async () => {
      const before = await dump(synced.writer)
      const run = await runSync(synced.writer, { source: fake.url, once: true })
      assert.equal(run.code, 0, run.err.join('\n'))
      const lines = setLines(run.out)
      assert.ok(lines.length >= 20)
      for (const l of lines) assert.match(l, /written 0, deleted 0,/)
      assert.deepEqual(await dump(synced.writer), before)
    })

    test('3–5. a change, a new document, a deletion mark, a physical deletion and an unposting show up after the next cycle', async () => {
      const byType = (t: string) => source.filter((o) => o.type === t)
      const order = byType('Документ.ЗаказПокупателя')[0]!
      const changed = { ...order, Комментарий: 'изменён в 1С', СуммаДокумента: 12345.67 }
      const fresh = { ...byType('Документ.ТребованиеНакладная')[0]!, ref: '0b0b0b0b-1111-4222-8333-444444444444', Номер: 'ТН-999999' }
      const marked = { ...byType('Документ.ПеремещениеТоваров')[0]!, ПометкаУдаления: true }
      const deleted = byType('Документ.ЗаказПоставщику')[1]!
      // A payment order that records cash movements and expense-request payments.
      const paymentSets = source.filter(
        (o) => o.type === 'РегистрНакопления.ЗаявкиНаРасходованиеСредств' && (o['Движения'] as unknown[]).length > 0,
      )
      const payer = (paymentSets[0]!['Регистратор'] as { ref: string }).ref
      const payment = source.find((o) => o.ref === payer)!
      const unposted = { ...payment, Проведен: false }
      for (const o of [changed, fresh, marked, unposted]) fake.put(o)
      fake.remove(deleted.ref as string)

      const registersOf = (ref: unknown) =>
        source
          .filter((o) => String(o.type).startsWith('РегистрНакопления.') && (o['Регистратор'] as { ref: string }).ref === ref)
          .map((o) => ({ ...o, Движения: [] }))
      await load(imported.writer, [
        changed,
        fresh,
        marked,
        unposted,
        ...registersOf(payer),
        { type: deleted.type, ref: deleted.ref, deleted: true },
        ...registersOf(deleted.ref),
      ])

      // Most of these documents lie outside the recent months: a full scan finds them (§7.4; scans.test.ts for the timing).
      const run = await runSync(synced.writer, { source: fake.url, once: true, 'scan-all': true })
      assert.equal(run.code, 0, run.err.join('\n'))
      assert.deepEqual(await dump(synced.writer), await dump(imported.writer))
      assert.deepEqual(await answers(synced.writer), await answers(imported.writer))
      // The unposted payment left both registers.
      for (const table of ['reg_cash', 'reg_expense_payments']) {
        assert.deepEqual(await synced.writer.all(`SELECT recorder FROM ${table} WHERE recorder = ?`, [payer]), [])
      }
      assert.deepEqual(await synced.writer.all('SELECT ref FROM objects WHERE ref = ?', [deleted.ref as string]), [])
      const marks = await synced.writer.all<{ deletion_mark: number }>('SELECT deletion_mark FROM doc_transfers WHERE ref = ?', [
        (marked as Obj).ref as string,
      ])
      assert.equal(Number(marks[0]!.deletion_mark), 1)
      const again = await runSync(synced.writer, { source: fake.url, once: true })
      for (const l of setLines(again.out)) assert.match(l, /written 0, deleted 0,/)
    })

    test('6. an outage mid-cycle exits 1, leaves whole batches only, and the next cycle catches up', async () => {
      const store = await createTestStore(backend)
      try {
        fake.faults.failAfter = 25
        const failed = await runSync(store.writer, { source: fake.url, once: true })
        fake.faults.failAfter = undefined
        assert.equal(failed.code, 1)
        assert.ok(
          failed.err.some((l) => /^source unavailable: .+; \d+ entity sets not reached$/.test(l)),
          failed.err.join('\n'),
        )
        assert.match(failed.out.at(-1)!, /^cycle failed: \d+ of \d+ entity sets failed or not reached;/)
        // What the connector saved as written is exactly what the store holds.
        const savedRefs = await store.writer.all<{ ref: string }>("SELECT ref FROM sync_objects WHERE hash <> '' ORDER BY ref")
        const stored = await store.writer.all<{ ref: string }>('SELECT ref FROM objects ORDER BY ref')
        assert.deepEqual(stored, savedRefs)
        const ok = await runSync(store.writer, { source: fake.url, once: true })
        assert.equal(ok.code, 0, ok.err.join('\n'))
        assert.deepEqual(await dump(store.writer), await dump(imported.writer))
      } finally {
        fake.faults.failAfter = undefined
        await dispose(store)
      }
    })

    test('7. a check that finds a missing required item writes nothing and exits 1', async () => {
      const store = await createTestStore(backend)
      try {
        const map = `${process.env.TMPDIR ?? '/tmp'}/docgate-map-${process.pid}-${backend}.json`
        const { writeFileSync } = await import('node:fs')
        writeFileSync(map, JSON.stringify({ types: { 'Справочник.Кассы': { entitySet: 'Catalog_КассыККМ' } } }))
        const check = await runSync(store.writer, { source: fake.url, check: true, map })
        assert.equal(check.code, 1)
        assert.ok(
          check.out.some((l) => l.startsWith('Справочник.Кассы') && l.includes('MISSING')),
          check.out.join('\n'),
        )
        assert.match(check.out.at(-1)!, /^result: \d+ missing-required — the map does not resolve$/)
        const run = await runSync(store.writer, { source: fake.url, once: true, map })
        assert.equal(run.code, 1)
        assert.deepEqual(await store.writer.all('SELECT ref FROM objects'), [])
        assert.deepEqual(await store.writer.all("SELECT key FROM sync_meta WHERE key <> 'source' AND key NOT LIKE 'metadata%'"), [])
      } finally {
        await dispose(store)
      }
    })

    test('8. only GET, $format=json on all but $metadata, never more than the concurrency', async () => {
      for (const r of fake.requests) {
        assert.equal(r.method, 'GET')
        if (!r.url.includes('$metadata')) assert.match(r.url, /[?&]\$format=json(&|$)/, r.url)
      }
      assert.equal(fake.maxInFlight, 1)
    })
  })
}
