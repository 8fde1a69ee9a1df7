// `docgate demo`: the deterministic demo data set, written through the import path.
import { demoFiles } from '../demo/generate.js'
import type { Entry } from '../import/read.js'
import { rebuildDeferred } from '../import/batch.js'
import { importEntries } from '../import/run.js'
import { resolveDb } from '../store/open.js'
import { openWritable } from '../app/store.js'
import type { SqlPort } from '../store/sql.js'
import { printReport } from './import.js'

function* entries(objects: Iterable<Record<string, unknown>>): Generator<Entry> {
  let line = 0
  for (const value of objects) yield { line: ++line, value }
}

export async function writeDemo(sql: SqlPort, scale: number, seed: number, quiet = false): Promise<void> {
  // Each file is a transaction through the import's one write path; the read models are built
  // once at the end instead of after each file (decision "The demo builds its read models once").
  for (const file of demoFiles({ scale, seed })) {
    const report = await importEntries(sql, entries(file.objects()), { ready: 'later' })
    if (!quiet || !report.ok) printReport(`demo/${file.name}`, report)
    if (!report.ok) throw new Error(`demo data file ${file.name} was rejected`)
  }
  await rebuildDeferred(sql)
}

export async function demo(flags: { db?: string; scale?: string; seed?: string }): Promise<number> {
  const scale = Number(flags.scale ?? '1')
  const seed = Number(flags.seed ?? '1')
  if (!(scale > 0) || !Number.isFinite(scale)) throw new Error(`--scale must be a positive number, got "${flags.scale}"`)
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got "${flags.seed}"`)
  const sql = await openWritable(resolveDb(flags.db))
  try {
    await writeDemo(sql, scale, seed)
  } finally {
    await sql.close()
  }
  return 0
}
