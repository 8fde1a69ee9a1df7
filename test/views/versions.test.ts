// A view's stored output is known by its version (views/define.ts): a store whose view has
// another version rebuilds it at migrate, and nothing else does. This test holds each view's
// output on the demo data against the version it was recorded with, so a change of what a
// view prints cannot land without a bump (and a bump without a change is noticed too).
// After a deliberate change: bump the view's `version`, then record the digests with
// `UPDATE_VIEW_VERSIONS=1 npm test` (or run this file alone) and commit the fixture.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { openWritable } from '../../src/app/store.js'
import { writeDemo } from '../../src/cli/demo.js'
import { VIEWS } from '../../src/endpoints/index.js'
import type { SqlPort } from '../../src/store/sql.js'
import { readModelTable } from '../../src/views/migrate.js'
import { ROOT } from '../support/serve-process.js'

const FIXTURE = join(ROOT, 'test/fixtures/view-versions.json')

type Recorded = Record<string, { version: number; digest: string }>

const digest = (rows: readonly Record<string, unknown>[]): string =>
  createHash('sha256')
    .update(
      JSON.stringify(rows, (_k, v: unknown) =>
        v && typeof v === 'object' && (v as { type?: string }).type === 'Buffer'
          ? Buffer.from((v as { data: number[] }).data).toString('base64')
          : v,
      ),
    )
    .digest('hex')
    .slice(0, 16)

async function tableDigest(sql: SqlPort, name: string, key: readonly string[]): Promise<string> {
  return digest(await sql.all<Record<string, unknown>>(`SELECT * FROM ${name} ORDER BY ${key.join(', ')}`))
}

async function current(sql: SqlPort): Promise<Recorded> {
  const out: Recorded = {}
  for (const m of VIEWS.models) out[m.table] = { version: m.version, digest: await tableDigest(sql, m.table, readModelTable(m).primaryKey) }
  for (const d of VIEWS.derived) {
    const parts = await Promise.all(d.tables.map((t) => tableDigest(sql, t.name, t.primaryKey)))
    out[d.name] = { version: d.version, digest: digest(parts.map((p) => ({ p }))) }
  }
  for (const a of VIEWS.answers)
    out[`ready:${a.name}`] = { version: a.version, digest: digest([{ bytes: (await a.build(sql)).toString('base64') }]) }
  return out
}

test('every view prints what its version was recorded with on the demo data', async () => {
  const sql = await openWritable(':memory:')
  try {
    await writeDemo(sql, 0.1, 1, true)
    const now = await current(sql)
    if (process.env.UPDATE_VIEW_VERSIONS) writeFileSync(FIXTURE, `${JSON.stringify(now, null, 2)}\n`)
    const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Recorded
    for (const [name, { version, digest: d }] of Object.entries(now)) {
      const was = recorded[name]
      assert.ok(was, `${name} is not recorded: run UPDATE_VIEW_VERSIONS=1 and commit test/fixtures/view-versions.json`)
      if (was.digest !== d) {
        assert.notEqual(
          version,
          was.version,
          `${name} prints differently at the same version ${version}: bump its version (stores would keep the old output)`,
        )
        assert.fail(`${name} is at version ${version}: record its new output with UPDATE_VIEW_VERSIONS=1`)
      }
      assert.equal(
        version,
        was.version,
        `${name}: version ${version} prints what version ${was.version} printed: keep ${was.version} (a bump rebuilds every store)`,
      )
    }
    assert.deepEqual(Object.keys(recorded).sort(), Object.keys(now).sort(), 'a view in the fixture no longer exists: record again')
  } finally {
    await sql.close()
  }
})
