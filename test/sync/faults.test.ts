// Faults and limits of sync.md §7–§8 against the fake 1C: retries with smaller pages,
// dropped connections, a cold first answer, a set that fails alone, the deletion cap,
// --full, and a base whose composition lacks a required set.
import * as assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startFake1C } from '../../src/fake1c/index.js'
import type { Fake1C } from '../../src/fake1c/index.js'
import { importEntries } from '../../src/import/run.js'
import { createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { TODAY, demoObjects, dump, expectedFromSource, runSync } from './support.js'

const source = demoObjects()

describe('sync faults (SQLite)', () => {
  let fake: Fake1C
  let expected: Record<string, unknown[]>
  const stores: TestStore[] = []
  const fresh = async () => {
    const s = await createTestStore('sqlite')
    stores.push(s)
    return s
  }

  before(async () => {
    fake = await startFake1C({ objects: source, custom: true, today: TODAY })
    const imported = await fresh()
    const report = await importEntries(
      imported.writer,
      expectedFromSource(source).map((value, i) => ({ line: i + 1, value })),
    )
    assert.equal(report.ok, true)
    expected = await dump(imported.writer)
  })
  after(async () => {
    await fake.close()
    for (const s of stores) await s.cleanup()
  })

  test('5xx answers and dropped connections are retried; a too heavy page shrinks the page; a cold start is waited for', async () => {
    const s = await fresh()
    fake.faults = {
      coldStartMs: 300,
      failSet: { set: 'Document_ЗаказПокупателя', status: 500, times: 2 },
      dropSet: { set: 'Catalog_Номенклатура', times: 1 },
      maxPageEntries: 4,
    }
    const from = fake.requests.length
    const run = await runSync(s.writer, { source: fake.url, once: true })
    fake.faults = {}
    assert.equal(run.code, 0, run.err.join('\n'))
    assert.deepEqual(await dump(s.writer), expected)
    const mine = fake.requests.slice(from)
    assert.ok(mine.filter((r) => r.set === 'Document_ЗаказПокупателя' && r.status === 500).length >= 2)
    // Object pages never came back larger than the page the source accepts.
    assert.ok(mine.some((r) => r.status === 500 && r.set === 'Catalog_Номенклатура'))
  })

  test('a set whose request fails for good fails alone: the others go on, exit 1, cycle failed', async () => {
    const s = await fresh()
    fake.faults = { failSet: { set: 'Document_ПеремещениеТоваров', status: 400, times: -1 } }
    const run = await runSync(s.writer, { source: fake.url, once: true })
    fake.faults = {}
    assert.equal(run.code, 1)
    assert.deepEqual(
      run.err.filter((l) => l.startsWith('error:')),
      ['error: Document_ПеремещениеТоваров: HTTP 400: Ошибка на стороне сервера 1С (400)'],
    )
    assert.match(run.out.at(-1)!, /^cycle failed: 1 of \d+ entity sets failed or not reached; /)
    assert.ok(run.out.some((l) => l.startsWith('Document_ТребованиеНакладная → ')))
    const again = await runSync(s.writer, { source: fake.url, once: true })
    assert.equal(again.code, 0, again.err.join('\n'))
    assert.deepEqual(await dump(s.writer), expected)
  })

  test('refused credentials stop the cycle at once', async () => {
    const s = await fresh()
    const locked = await startFake1C({ objects: source.slice(0, 50), user: 'Иван', password: 'верный' })
    try {
      const run = await runSync(s.writer, { source: locked.url, once: true, user: 'Иван' })
      assert.equal(run.code, 1)
      assert.deepEqual(run.err, [
        'source refused the credentials (HTTP 401): no password was given (--password-stdin or DOCGATE_SOURCE_PASSWORD)',
      ])
      assert.deepEqual(await s.writer.all('SELECT ref FROM objects'), [])
    } finally {
      await locked.close()
    }
  })

  test('deletions beyond the cap are withheld with a warning; within it they go after confirmation', async () => {
    const s = await fresh()
    const other = await startFake1C({ objects: source, custom: true, today: TODAY })
    try {
      assert.equal((await runSync(s.writer, { source: other.url, once: true })).code, 0)
      const payments = source.filter((o) => o.type === 'Документ.ПлатежноеПоручениеВходящее')
      // 30 of 115: more than 20 and more than 2 %.
      for (const o of payments.slice(0, 30)) other.remove(o.ref as string)
      // Deletions are judged by full scans only (§7.6).
      const withheld = await runSync(s.writer, { source: other.url, once: true, 'scan-all': true })
      assert.equal(withheld.code, 0, withheld.err.join('\n'))
      assert.ok(
        withheld.err.includes(`warning: Document_ПлатежноеПоручениеВходящее: deletions withheld: 30 of ${payments.length}`),
        withheld.err.join('\n'),
      )
      const count = async () =>
        Number(
          (await s.writer.all<{ n: number }>("SELECT COUNT(*) AS n FROM doc_other WHERE type = 'Документ.ПлатежноеПоручениеВходящее'"))[0]!
            .n,
        )
      assert.equal(await count(), payments.length)
      // Put 12 back: 18 remain deleted, within the cap of 20.
      for (const o of payments.slice(0, 12)) other.put(o)
      const done = await runSync(s.writer, { source: other.url, once: true, 'scan-all': true })
      assert.equal(done.code, 0, done.err.join('\n'))
      // The 12 put back were never removed here: a new DataVersion with the same form writes nothing.
      assert.ok(
        done.out.some((l) => /^Document_ПлатежноеПоручениеВходящее → .*: read 97, written 0, deleted 18,/.test(l)),
        done.out.join('\n'),
      )
      assert.equal(await count(), payments.length - 18)
      // Their movements went with them.
      const gone = payments.slice(12, 30).map((o) => o.ref as string)
      const left = await s.writer.all(`SELECT recorder FROM reg_cash WHERE recorder IN (${gone.map(() => '?').join(', ')})`, gone)
      assert.deepEqual(left, [])
    } finally {
      await other.close()
    }
  })

  test('--full rewrites every object and keeps the answers', async () => {
    const s = await fresh()
    assert.equal((await runSync(s.writer, { source: fake.url, once: true })).code, 0)
    const full = await runSync(s.writer, { source: fake.url, once: true, full: true })
    assert.equal(full.code, 0, full.err.join('\n'))
    const m = /^cycle complete: \d+ entity sets; read (\d+), written (\d+), deleted 0;/.exec(full.out.at(-1)!)
    assert.ok(m && Number(m[2]) >= 1300, full.out.at(-1))
    assert.deepEqual(await dump(s.writer), expected)
  })

  test('a base that does not publish a required set: --check and the run exit 1 and write nothing', async () => {
    const s = await fresh()
    fake.faults = { hiddenSets: ['Catalog_Кассы'] }
    try {
      const check = await runSync(s.writer, { source: fake.url, check: true })
      assert.equal(check.code, 1)
      assert.ok(
        check.out.includes('Справочник.Кассы ← Catalog_Кассы: found 0; MISSING: entity set Catalog_Кассы (not in $metadata)'),
        check.out.join('\n'),
      )
      assert.equal(check.out.at(-1), 'result: 1 missing-required — the map does not resolve')
      const run = await runSync(s.writer, { source: fake.url, once: true })
      assert.equal(run.code, 1)
      assert.deepEqual(run.out, [
        'Справочник.Кассы ← Catalog_Кассы: found 0; MISSING: entity set Catalog_Кассы (not in $metadata)',
        'result: 1 missing-required — the map does not resolve',
      ])
      assert.deepEqual(await s.writer.all('SELECT ref FROM objects'), [])
    } finally {
      fake.faults = {}
    }
  })
})
