// sync.md §7.4 and §7.6 on every engine: recent and full version scans. A cycle reads the
// windows of the last `recentMonths` months of a document set; a change in an older window
// waits for the next full scan (`fullScanHours` after the last one began, the clock
// injected) or `--scan-all`; a recent scan never deletes; `--status` shows the last full scan.
import * as assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { shownDb, sync } from '../../src/cli/sync.js'
import { startFake1C } from '../../src/fake1c/index.js'
import type { Fake1C } from '../../src/fake1c/index.js'
import type { SqlPort } from '../../src/store/sql.js'
import { localTime } from '../../src/sync/status.js'
import { BACKENDS, createTestStore, tempDir } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { TODAY, demoObjects } from './support.js'
import type { Obj, Run } from './support.js'

const SET = 'Document_ЗаказПокупателя'
const T0 = new Date('2026-11-24T06:00:00Z')
const hours = (h: number) => new Date(T0.getTime() + h * 3600_000)

async function runAt(sql: SqlPort, source: string, at: Date, flags: Record<string, unknown> = {}): Promise<Run> {
  const out: string[] = []
  const err: string[] = []
  const code = await sync(
    { db: 'unused', source, once: true, ...flags },
    { sink: { out: (l) => out.push(l), err: (l) => err.push(l) }, sql, retryDelaysMs: [1, 1, 1, 1], today: () => TODAY, now: () => at },
  )
  return { code, out, err }
}

const setLine = (run: Run) => run.out.find((l) => l.startsWith(`${SET} → `)) ?? ''

for (const backend of BACKENDS) {
  describe(`recent and full scans on ${backend}`, () => {
    const source = demoObjects()
    const orders = source.filter((o) => o.type === 'Документ.ЗаказПокупателя')
    // TODAY is 2026-11-24: the recent months (3) are September to November 2026.
    const recent = orders.filter((o) => String(o['Дата']) >= '2026-09-01')
    const old = orders.filter((o) => String(o['Дата']) < '2026-08-01')
    let fake: Fake1C
    let store: TestStore

    const amount = async (o: Obj) =>
      (await store.writer.all<{ amount: number }>('SELECT amount FROM doc_customer_orders WHERE ref = ?', [o.ref as string])).map((r) =>
        Number(r.amount),
      )
    /** The months of the version pages of the set requested since request `from`. */
    const windowsRead = (from: number): string[] =>
      fake.requests
        .slice(from)
        .map((r) => decodeURIComponent(r.url))
        .filter((u) => u.includes(`/${SET}?`) && u.includes('$select=Ref_Key,DataVersion&'))
        .map((u) => /Date ge datetime'(\d{4}-\d\d)/.exec(u)?.[1] ?? '')
        .filter((m) => m !== '')

    before(async () => {
      assert.ok(recent.length >= 2 && old.length >= 3, `${recent.length} recent, ${old.length} old`)
      fake = await startFake1C({ objects: source, today: TODAY })
      store = await createTestStore(backend)
      const first = await runAt(store.writer, fake.url, T0)
      assert.equal(first.code, 0, first.err.join('\n'))
    })
    after(async () => {
      await fake.close()
      if (store.location !== 'pglite://memory') await store.writer.close()
      await store.cleanup()
    })

    test('a cycle reads only the recent months: a recent change at once, an older one not yet; a recent scan deletes nothing', async () => {
      fake.put({ ...recent[0]!, СуммаДокумента: 111.11 })
      fake.put({ ...old[0]!, СуммаДокумента: 222.22 })
      fake.remove(recent[1]!.ref as string)
      const from = fake.requests.length
      const run = await runAt(store.writer, fake.url, hours(1))
      assert.equal(run.code, 0, run.err.join('\n'))
      assert.deepEqual(await amount(recent[0]!), [111.11])
      assert.notDeepEqual(await amount(old[0]!), [222.22])
      assert.equal((await amount(recent[1]!)).length, 1, 'deleted by a recent scan')
      assert.match(setLine(run), /written 1, deleted 0,/)
      // Only the windows of September to November 2026 (the last one open-ended) were scanned.
      const months = [...new Set(windowsRead(from))].sort()
      assert.deepEqual(months, ['2026-09', '2026-10', '2026-11'])
    })

    test('the next full scan, fullScanHours after the last began, picks up the older change and the deletion', async () => {
      // 23 h after the first load's full scan: not due yet.
      const early = await runAt(store.writer, fake.url, hours(23))
      assert.equal(early.code, 0, early.err.join('\n'))
      assert.notDeepEqual(await amount(old[0]!), [222.22])
      const from = fake.requests.length
      const due = await runAt(store.writer, fake.url, hours(24))
      assert.equal(due.code, 0, due.err.join('\n'))
      assert.deepEqual(await amount(old[0]!), [222.22])
      assert.deepEqual(await amount(recent[1]!), [])
      assert.match(setLine(due), /written 1, deleted 1,/)
      assert.ok(
        windowsRead(from).some((m) => m < '2026-08'),
        'older windows scanned',
      )
      // Catalogues have no windows: every scan of theirs is full.
      const status = await runAt(store.writer, fake.url, hours(24.5), { status: true, once: undefined })
      assert.equal(status.code, 0, status.err.join('\n'))
      const line = status.out.find((l) => l.startsWith(`${SET} `))!
      assert.match(
        line,
        new RegExp(`^${SET} {2,}${localTime(hours(24).toISOString())} {3}${localTime(hours(24).toISOString())} {2,}\\d+ {2}—$`),
      )
    })

    test('--scan-all makes the next cycle full at once; --status shows when each set last had a full scan', async () => {
      fake.put({ ...old[1]!, СуммаДокумента: 333.33 })
      const recentOnly = await runAt(store.writer, fake.url, hours(25))
      assert.equal(recentOnly.code, 0)
      assert.notDeepEqual(await amount(old[1]!), [333.33])
      const all = await runAt(store.writer, fake.url, hours(26), { 'scan-all': true })
      assert.equal(all.code, 0, all.err.join('\n'))
      assert.deepEqual(await amount(old[1]!), [333.33])
      const status = await runAt(store.writer, fake.url, hours(26), { status: true, once: undefined })
      const header = status.out.find((l) => l.startsWith('entity set'))!
      assert.match(header, /^entity set {2,}last complete scan {4}last full scan {8}objects {2}last error$/)
      const at = (h: number) => localTime(hours(h).toISOString())
      const line = (set: string) => status.out.find((l) => l.startsWith(`${set} `))!
      // The document set: last complete scan and last full scan both from the --scan-all cycle.
      assert.match(line(SET), new RegExp(`^${SET} {2,}${at(26)} {3}${at(26)} {2,}\\d+ {2}—$`))
      // A register's full scan is its first load; its rescans are complete scans.
      assert.match(
        line('AccumulationRegister_ДенежныеСредства'),
        new RegExp(`^AccumulationRegister_ДенежныеСредства {2,}${at(26)} {3}${at(0)} {2,}\\d+ {2}—$`),
      )
      // Columns are separated by at least two spaces, as §2 shows them.
      const catalog = line('Catalog_Номенклатура')
      assert.match(catalog, new RegExp(`^Catalog_Номенклатура {2,}${at(26)} {3}${at(26)} {2,}\\d+ {2}—$`))
    })

    test('the map file sets recentMonths and fullScanHours: 0 makes every scan full', async () => {
      const map = join(tempDir(), 'map.json')
      writeFileSync(map, JSON.stringify({ options: { recentMonths: 1, fullScanHours: 0 } }))
      fake.put({ ...old[2]!, СуммаДокумента: 444.44 })
      const run = await runAt(store.writer, fake.url, hours(26.1), { map })
      assert.equal(run.code, 0, run.err.join('\n'))
      assert.deepEqual(await amount(old[2]!), [444.44])
      // recentMonths 1 with fullScanHours 24: only November 2026.
      writeFileSync(map, JSON.stringify({ options: { recentMonths: 1 } }))
      const from = fake.requests.length
      const one = await runAt(store.writer, fake.url, hours(26.2), { map })
      assert.equal(one.code, 0, one.err.join('\n'))
      assert.deepEqual([...new Set(windowsRead(from))], ['2026-11'])
    })
  })
}

describe('--status on PostgreSQL without a store', { skip: !process.env.DOCGATE_TEST_PG_URL }, () => {
  const statusOf = async (db: string): Promise<Run> => {
    const out: string[] = []
    const err: string[] = []
    const code = await sync({ db, status: true }, { sink: { out: (l) => out.push(l), err: (l) => err.push(l) } })
    return { code, out, err }
  }

  test('a database that does not exist, or one that holds no docgate store, is "store missing" (exit 2)', async () => {
    const base = process.env.DOCGATE_TEST_PG_URL!
    const name = `docgate_test_${randomBytes(6).toString('hex')}`
    const url = new URL(base)
    url.pathname = `/${name}`
    const shown = shownDb(url.toString())
    assert.ok(!shown.includes(':docgate@') || !url.password, 'no password shown')
    const absent = await statusOf(url.toString())
    assert.equal(absent.code, 2, absent.out.join('\n'))
    assert.deepEqual(absent.err, [`docgate: store missing: ${shown}`])
    const admin = new pg.Client({ connectionString: base })
    await admin.connect()
    try {
      await admin.query(`CREATE DATABASE ${name}`)
      const empty = await statusOf(url.toString())
      assert.equal(empty.code, 2, empty.out.join('\n'))
      assert.deepEqual(empty.err, [`docgate: store missing: ${shown}`])
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    }
  })
})
