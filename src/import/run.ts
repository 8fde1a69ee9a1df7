// One import file = one transaction (data-format.md § File): every line is validated;
// if any is invalid, every invalid line is reported and nothing is written.
import type { SqlPort } from '../store/sql.js'
import { ImportBatch } from './batch.js'
import type { Entry } from './read.js'

interface InvalidLine {
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

/** `ready: 'later'`: the read models wait for `rebuildDeferred` (ImportBatch.finish). */
export async function importEntries(
  sql: SqlPort,
  entries: AsyncIterable<Entry> | Iterable<Entry>,
  options: { ready?: 'now' | 'later' } = {},
): Promise<ImportReport> {
  const counts: Record<string, number> = {}
  const invalid: InvalidLine[] = []
  const warnings: string[] = []
  const unknownKeys = new Map<string, number>()
  try {
    await sql.transaction(async () => {
      const batch = new ImportBatch(sql)
      for await (const entry of entries) {
        if ('error' in entry) {
          invalid.push({ line: entry.line, type: '', ref: '', reason: entry.error })
          continue
        }
        // After the first invalid line nothing will be committed; keep validating only.
        const write = invalid.length === 0
        const outcome = 'checked' in entry ? await batch.addChecked(entry.checked, write) : await batch.add(entry.value, write)
        if (!outcome.ok) {
          invalid.push({ line: entry.line, type: outcome.type, ref: outcome.ref, reason: outcome.reason })
          continue
        }
        for (const k of outcome.unknownKeys) {
          const key = `${outcome.type}.${k}`
          unknownKeys.set(key, (unknownKeys.get(key) ?? 0) + 1)
        }
        const label = outcome.deleted ? `${outcome.type} (deleted)` : outcome.type
        counts[label] = (counts[label] ?? 0) + 1
      }
      if (invalid.length > 0) throw new Rejected()
      const dangling = await batch.finish({ ready: options.ready ?? 'now' })
      if (dangling) warnings.push(dangling)
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
