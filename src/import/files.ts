// `docgate import`'s files in turn, each one transaction (data-format.md § File). Into a
// store that holds no objects yet — a first load — each file's read models would be built
// and then built again by the files after it (an attachment re-renders its document, a
// catalogue its documents' rows), so there they wait for the last file and are built once,
// as the demo's are (decision "A first load builds its read models once").
import type { SqlPort } from '../store/sql.js'
import { getMeta, READY_PENDING } from '../views/migrate.js'
import { rebuildDeferred } from './batch.js'
import { readFiles } from './read.js'
import { importEntries } from './run.js'
import type { ImportReport } from './run.js'

export async function loadFiles(
  sql: SqlPort,
  paths: readonly string[],
  onFile: (path: string, report: ImportReport) => void,
): Promise<void> {
  const first = (await sql.all('SELECT 1 AS found FROM objects LIMIT 1')).length === 0
  // After a rejected or unreadable file too: the files written before it are served. If
  // even this fails (the connection is gone), the mark stays for the next writing command.
  const build = async () => {
    if (first && (await getMeta(sql, READY_PENDING)) !== undefined) await rebuildDeferred(sql)
  }
  try {
    let i = 0
    for (const entries of readFiles(paths)) {
      const path = paths[i++]!
      onFile(path, await importEntries(sql, entries, { ready: first ? 'later' : 'now' }))
    }
  } catch (err) {
    await build().catch(() => undefined)
    throw err
  }
  await build()
}
