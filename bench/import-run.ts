// One timed import of NDJSON files into a new store by the code under `root` (a built
// checkout: its dist/), as `docgate import` runs it: in a process of its own, so that no run
// inherits another's heap or page cache of the store. bench/import.ts runs it for each
// engine and for its comparison with an earlier revision.
// Usage: node dist/bench/import-run.js <root> <store file or empty PostgreSQL database URL> <file>…;
// prints each file's seconds (`file<TAB>path<TAB>seconds`), those of read models built once
// after the last file (`ready<TAB>seconds`, a first load), then the total seconds.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { isPostgresUrl } from '../src/store/open.js'

const [root, store, ...paths] = process.argv.slice(2)
if (!root || !store || paths.length === 0) throw new Error('usage: import-run <root> <store file> <file>…')
const load = async <T>(module: string): Promise<T> => (await import(pathToFileURL(join(root, 'dist/src', module)).href)) as T

type Report = { readonly ok: boolean; readonly invalid: readonly unknown[] }
type Opens = { openWritable(location: string): Promise<{ close(): Promise<void> }> }
// Revisions before the composition root opened writable stores in store/open.ts.
const { openWritable } = await load<Opens>('app/store.js').catch(() => load<Opens>('store/open.js'))
const { importEntries } = await load<{ importEntries(sql: unknown, entries: AsyncIterable<unknown>): Promise<Report> }>('import/run.js')
const { readEntries } = await load<{ readEntries(path: string): AsyncIterable<unknown> }>('import/read.js')
type LoadFiles = (sql: unknown, paths: readonly string[], onFile: (path: string, report: Report) => void) => Promise<void>
// A revision from before import/files.ts imported file by file, as its `docgate import` did.
const { loadFiles } = await load<{ loadFiles?: LoadFiles }>('import/files.js').catch(() => ({ loadFiles: undefined }))

const file = !isPostgresUrl(store)
if (file) for (const suffix of ['', '-wal', '-shm']) rmSync(store + suffix, { force: true })
const sql = await openWritable(store)
const now = () => Number(process.hrtime.bigint()) / 1e9

/** How a revision from before import/files.ts imported: file by file, each with its read models. */
const fileByFile: LoadFiles = async (sql, paths, onFile) => {
  // A reader is made for the next file once this one's lines are all read (a revision whose
  // reader starts checking when made does so meanwhile).
  let reader = readEntries(paths[0]!)
  for (const [i, path] of paths.entries()) {
    const current = reader
    const following = paths[i + 1]
    const entries = (async function* () {
      yield* current
      if (following !== undefined) reader = readEntries(following)
    })()
    onFile(path, await importEntries(sql, entries))
  }
}

const start = now()
let last = start
await (loadFiles ?? fileByFile)(sql, paths, (path, report) => {
  if (!report.ok) throw new Error(`${path} rejected: ${JSON.stringify(report.invalid.slice(0, 3))}`)
  const t = now()
  console.log(`file\t${path}\t${(t - last).toFixed(3)}`)
  last = t
})
const end = now()
if (loadFiles) console.log(`ready\t${(end - last).toFixed(3)}`)
await sql.close()
if (file) for (const suffix of ['', '-wal', '-shm']) rmSync(store + suffix, { force: true })
console.log((end - start).toFixed(3))
