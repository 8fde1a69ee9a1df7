// `docgate import [--db DB] FILE...`: each file one transaction; every invalid line named.
import { loadFiles } from '../import/files.js'
import type { ImportReport } from '../import/run.js'
import { resolveDb } from '../store/open.js'
import { openWritable } from '../app/store.js'

export function printReport(name: string, report: ImportReport): void {
  if (report.ok) {
    const types = Object.entries(report.counts).sort(([a], [b]) => a.localeCompare(b))
    console.log(`${name}: imported ${types.reduce((n, [, c]) => n + c, 0)} objects`)
    for (const [type, n] of types) console.log(`  ${type}: ${n}`)
  } else {
    console.error(`${name}: rejected, nothing written: ${report.invalid.length} invalid line(s)`)
    for (const bad of report.invalid) {
      console.error(`  ${name}:${bad.line}: ${bad.type || '?'} ${bad.ref || '-'}: ${bad.reason}`)
    }
  }
  for (const w of report.warnings) console.error(`  warning: ${w}`)
}

export async function importFiles(flags: { db?: string }, files: string[]): Promise<number> {
  if (files.length === 0) throw new Error('import needs at least one FILE')
  const sql = await openWritable(resolveDb(flags.db))
  let failed = 0
  try {
    await loadFiles(sql, files, (file, report) => {
      printReport(file, report)
      if (!report.ok) failed++
    })
  } finally {
    await sql.close()
  }
  return failed === 0 ? 0 : 1
}
