// One import file = one transaction (data-format.md § File): every line is validated;
// if any is invalid, every invalid line is reported and nothing is written.
import { READ_MODELS } from '../endpoints/index.js'
import type { SqlPort } from '../store/sql.js'
import { DerivedChanges } from './derived.js'
import type { Entry } from './read.js'
import { rebuildReadModels } from './read-models.js'
import { validate } from './validate.js'
import { Writer } from './writer.js'

export interface InvalidLine {
  readonly line: number
  readonly type: string
  readonly ref: string
  readonly reason: string
}

export interface ImportReport {
  readonly ok: boolean
  /** Stored (or deleted) objects per type. */
  readonly counts: Readonly<Record<string, number>>
  readonly invalid: readonly InvalidLine[]
  readonly warnings: readonly string[]
}

class Rejected extends Error {}

const MAX_WARNINGS = 50

export async function importEntries(sql: SqlPort, entries: AsyncIterable<Entry> | Iterable<Entry>): Promise<ImportReport> {
  const counts: Record<string, number> = {}
  const invalid: InvalidLine[] = []
  const warnings: string[] = []
  const unknownKeys = new Map<string, number>()
  try {
    await sql.transaction(async () => {
      const derived = new DerivedChanges(sql)
      const writer = new Writer(sql, derived)
      for await (const entry of entries) {
        if ('error' in entry) {
          invalid.push({ line: entry.line, type: '', ref: '', reason: entry.error })
          continue
        }
        const v = validate(entry.value)
        if (!v.ok) {
          invalid.push({ line: entry.line, type: v.type, ref: v.ref, reason: v.reasons.join('; ') })
          continue
        }
        for (const k of v.unknownKeys) {
          const key = `${(entry.value as { type: string }).type}.${k}`
          unknownKeys.set(key, (unknownKeys.get(key) ?? 0) + 1)
        }
        // After the first invalid line nothing will be committed; keep validating only.
        if (invalid.length > 0) continue
        await writer.apply(v.operation)
        const label = v.operation.op === 'delete' ? `${v.operation.type} (deleted)` : (entry.value as { type: string }).type
        counts[label] = (counts[label] ?? 0) + 1
      }
      if (invalid.length > 0) throw new Rejected()
      await rebuildReadModels(sql, READ_MODELS, { refs: writer.touched, types: writer.touchedTypes })
      await derived.update()
      const dangling = await danglingRefs(sql, writer.refsSeen)
      if (dangling.length > 0) {
        warnings.push(
          `${dangling.length} reference(s) to objects that are not stored (kept, printed as empty): ${dangling.slice(0, 5).join(', ')}${dangling.length > 5 ? ', …' : ''}`,
        )
      }
    })
  } catch (err) {
    if (!(err instanceof Rejected)) throw err
  }
  for (const [key, n] of unknownKeys) {
    if (warnings.length >= MAX_WARNINGS) break
    warnings.push(`unknown attribute ${key} ignored (${n} time${n === 1 ? '' : 's'})`)
  }
  return { ok: invalid.length === 0, counts: invalid.length === 0 ? counts : {}, invalid, warnings }
}

async function danglingRefs(sql: SqlPort, refs: ReadonlySet<string>): Promise<string[]> {
  if (refs.size === 0) return []
  await sql.exec('CREATE TEMP TABLE IF NOT EXISTS _seen (ref TEXT PRIMARY KEY)')
  await sql.run('DELETE FROM _seen')
  await sql.insertRows('_seen', ['ref'], [...refs].map((r) => [r]))
  const rows = await sql.all<{ ref: string }>('SELECT ref FROM _seen WHERE ref NOT IN (SELECT ref FROM objects) ORDER BY ref')
  return rows.map((r) => r.ref)
}
