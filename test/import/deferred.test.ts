// The demo's read models built once at its end (ImportBatch.finish `ready: 'later'`,
// rebuildDeferred): the store it leaves prints exactly what the same files imported one
// transaction at a time leave, and a load stopped before that rebuild is refused by `serve`
// and finished by the next writing command (decision "The demo builds its read models once").
// `docgate import` does the same for a first load (import/files.ts; decision "A first load
// builds its read models once"), and builds them with each file for a store holding objects.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { writeDemo } from '../../src/cli/demo.js'
import { demoFiles } from '../../src/demo/generate.js'
import { rebuildDeferred } from '../../src/import/batch.js'
import { READ_MODELS, VIEWS } from '../../src/endpoints/index.js'
import { loadFiles } from '../../src/import/files.js'
import { importEntries } from '../../src/import/run.js'
import type { ImportReport } from '../../src/import/run.js'
import { READY_PENDING, getMeta, migrate, outdated } from '../../src/views/migrate.js'
import type { Row, SqlPort } from '../../src/store/sql.js'
import { BACKENDS, importFixture } from '../support/app.js'
import { createTestStore, tempDir } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

/** What the store prints from: every read model, ready page, ready answer and cash account, less the random generations. */
const PRINTED = [...READ_MODELS.map((m) => m.table), 'ready_pages', 'ready_answers', 'cash_accounts']
/**
 * A read model's printed columns. Its search columns are left out: PostgreSQL joins a
 * specification's material texts in no particular order (specifications.ts), which a
 * substring test does not see.
 */
const columnsOf = (table: string): string => {
  const model = READ_MODELS.find((m) => m.table === table)
  if (!model) return '*'
  return ['ref', 'short', ...(model.rowKey ? [model.rowKey] : []), ...(model.full ? ['full_form', 'full_issue', 'full_blobs'] : [])].join(
    ', ',
  )
}

async function printed(sql: SqlPort): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  for (const table of PRINTED) {
    // Of the ready answers, the generation requests read (an older one stays for readers in flight).
    const current = table === 'ready_answers' ? ' r WHERE gen = (SELECT MAX(gen) FROM ready_answers x WHERE x.name = r.name)' : ''
    const rows = await sql.all<Row>(`SELECT ${columnsOf(table)} FROM ${table}${current}`)
    const lines = rows.map((r) =>
      JSON.stringify(
        Object.entries(r)
          .filter(([k]) => k !== 'gen')
          .map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('base64') : v]),
      ),
    )
    out.set(table, lines.sort())
  }
  return out
}

const count = async (sql: SqlPort, table: string): Promise<number> =>
  Number((await sql.all<Row>(`SELECT count(*) AS n FROM ${table}`))[0]!.n)

const dir = tempDir()
/** The demo's files (scale 0.3, seed 7) as NDJSON files, as `docgate import` reads them. */
const demoPaths = (): string[] =>
  demoFiles({ scale: 0.3, seed: 7 }).map((file) => {
    const path = join(dir, `${file.name}.ndjson`)
    writeFileSync(path, [...file.objects()].map((o) => JSON.stringify(o)).join('\n') + '\n')
    return path
  })

for (const backend of BACKENDS) {
  describe(`read models built once at the end of a load (${backend})`, () => {
    const stores: TestStore[] = []
    const store = async () => {
      const s = await createTestStore(backend)
      stores.push(s)
      return s.writer
    }
    after(async () => {
      for (const s of stores) {
        if (backend !== 'pglite') await s.writer.close()
        await s.cleanup()
      }
    })

    let byFile: Map<string, string[]>
    let byFileSql: SqlPort
    let onceSql: SqlPort
    before(async () => {
      const sql = await store()
      byFileSql = sql
      for (const file of demoFiles({ scale: 0.3, seed: 7 })) {
        const report = await importFixture(sql, [...file.objects()])
        assert.ok(report.ok, JSON.stringify(report.invalid.slice(0, 2)))
      }
      byFile = await printed(sql)
    })

    it('prints exactly what the same files imported one transaction at a time print', async () => {
      const sql = await store()
      onceSql = sql
      await writeDemo(sql, 0.3, 7, true)
      const once = await printed(sql)
      for (const table of PRINTED) {
        assert.ok(byFile.get(table)!.length > 0, `${table} is empty`)
        assert.deepEqual(once.get(table), byFile.get(table), table)
      }
      assert.equal(await getMeta(sql, READY_PENDING), undefined)
      assert.deepEqual(await outdated(sql, VIEWS), [])
    })

    it('prints a name changed after the register the same way (the cash accounts)', async () => {
      const organization = [...demoFiles({ scale: 0.3, seed: 7 })[0]!.objects()].find((o) => o.type === 'Справочник.Организации')!
      const renamed = { ...organization, Наименование: 'ООО "Переименованная"' }
      assert.ok((await importFixture(byFileSql, [renamed])).ok)
      assert.ok((await importEntries(onceSql, [{ line: 1, value: renamed }], { ready: 'later' })).ok)
      await rebuildDeferred(onceSql)
      const [{ n }] = (await onceSql.all<Row>('SELECT count(*) AS n FROM cash_accounts WHERE org_name = \'ООО "Переименованная"\'')) as [
        Row,
      ]
      assert.ok(Number(n) > 0)
      assert.deepEqual(await printed(onceSql), await printed(byFileSql))
    })

    it('docgate import into an empty store builds them after the last file, printing what file-by-file import prints', async () => {
      const sql = await store()
      // PostgreSQL (not PGlite, one connection in process) builds on a second connection too.
      const open = sql.sibling
      let siblings = 0
      if (open) Object.assign(sql, { sibling: () => (siblings++, open.call(sql)) })
      const paths = demoPaths()
      const seen: [string, boolean][] = []
      const built: Promise<number>[] = []
      await loadFiles(sql, paths, (path, report) => {
        seen.push([path, report.ok])
        // Read as each file is reported (it has committed): its read models are not built yet.
        built.push(count(sql, 'api_warehouses'))
      })
      assert.deepEqual(
        seen,
        paths.map((p) => [p, true]),
      )
      assert.deepEqual(
        await Promise.all(built),
        paths.map(() => 0),
      )
      assert.equal(await getMeta(sql, READY_PENDING), undefined)
      assert.deepEqual(await printed(sql), byFile)
      assert.equal(siblings, backend === 'postgres' ? 1 : 0)
    })

    it("docgate import into a store holding objects builds each file's read models with it", async () => {
      const sql = await store()
      const warehouse = (n: number) => ({
        type: 'Справочник.Склады',
        ref: `00000000-0000-4000-8000-00000000000${n}`,
        Наименование: `Склад ${n}`,
      })
      assert.ok((await importFixture(sql, [warehouse(1)])).ok)
      const path = join(dir, 'second-warehouse.ndjson')
      writeFileSync(path, JSON.stringify(warehouse(2)) + '\n')
      const built: Promise<number>[] = []
      await loadFiles(sql, [path, path], () => void built.push(count(sql, 'api_warehouses')))
      assert.deepEqual(await Promise.all(built), [2, 2])
    })

    it('a first load that stops at a rejected or missing file still serves the files before it', async () => {
      const sql = await store()
      const [catalogues] = demoPaths()
      const bad = join(dir, 'bad.ndjson')
      writeFileSync(bad, 'not json\n')
      const reports: ImportReport[] = []
      await assert.rejects(
        loadFiles(sql, [catalogues!, bad, join(dir, 'missing.ndjson')], (_, r) => reports.push(r)),
        { code: 'ENOENT' },
      )
      assert.deepEqual(
        reports.map((r) => r.ok),
        [true, false],
      )
      assert.equal(await getMeta(sql, READY_PENDING), undefined)
      assert.deepEqual(await outdated(sql, VIEWS), [])
      assert.ok((await count(sql, 'cat_warehouses')) > 0)
      assert.equal(await count(sql, 'api_warehouses'), await count(sql, 'cat_warehouses'))
    })

    it('builds them on one connection when a second is refused', async () => {
      const sql = await store()
      Object.assign(sql, { sibling: () => Promise.reject(new Error('sorry, too many clients already')) })
      const [catalogues] = demoFiles({ scale: 0.3, seed: 7 })
      const report = await importEntries(
        sql,
        [...catalogues!.objects()].map((value, i) => ({ line: i + 1, value })),
        { ready: 'later' },
      )
      assert.ok(report.ok)
      await rebuildDeferred(sql)
      assert.equal(await getMeta(sql, READY_PENDING), undefined)
      assert.ok((await count(sql, 'cat_warehouses')) > 0)
      assert.equal(await count(sql, 'api_warehouses'), await count(sql, 'cat_warehouses'))
      assert.equal(await count(sql, 'api_materials'), await count(sql, 'cat_nomenclature'))
    })

    it('leaves a load stopped before its rebuild to the next writing command; serve refuses it meanwhile', async () => {
      const sql = await store()
      const [catalogues] = demoFiles({ scale: 0.3, seed: 7 })
      const report = await importEntries(
        sql,
        [...catalogues!.objects()].map((value, i) => ({ line: i + 1, value })),
        { ready: 'later' },
      )
      assert.ok(report.ok)
      assert.ok((await count(sql, 'cat_warehouses')) > 0)
      assert.equal(await count(sql, 'api_warehouses'), 0)
      assert.equal(await getMeta(sql, READY_PENDING), '1')
      assert.deepEqual(await outdated(sql, VIEWS), ['read models (a demo stopped before building them)'])
      // What any writing command runs when it opens the store.
      await sql.transaction(() => migrate(sql, VIEWS))
      assert.equal(await getMeta(sql, READY_PENDING), undefined)
      assert.deepEqual(await outdated(sql, VIEWS), [])
      assert.equal(await count(sql, 'api_warehouses'), await count(sql, 'cat_warehouses'))
      assert.equal(await count(sql, 'api_materials'), await count(sql, 'cat_nomenclature'))
    })
  })
}
