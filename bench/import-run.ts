// One timed import of NDJSON files into a new store by the code under `root` (a built
// checkout: its dist/), as `docgate import` runs it: in a process of its own, so that no run
// inherits another's heap or page cache of the store. bench/import.ts runs it for each
// engine and for its comparison with an earlier revision.
// Usage: node dist/bench/import-run.js <root> <store file or empty PostgreSQL database URL> <file>…;
// prints each file's seconds (`file<TAB>path<TAB>seconds`), then the total seconds.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { isPostgresUrl } from '../src/store/open.js'

const [root, store, ...paths] = process.argv.slice(2)
if (!root || !store || paths.length === 0) throw new Error('usage: import-run <root> <store file> <file>…')
const load = async <T>(module: string): Promise<T> => (await import(pathToFileURL(join(root, 'dist/src', module)).href)) as T

type Report = { readonly ok: boolean; readonly invalid: readonly unknown[] }
const { openWritable } = await load<{ openWritable(location: string): Promise<{ close(): Promise<void> }> }>('store/open.js')
const { importEntries } = await load<{ importEntries(sql: unknown, entries: AsyncIterable<unknown>): Promise<Report> }>('import/run.js')
const { readEntries } = await load<{ readEntries(path: string): AsyncIterable<unknown> }>('import/read.js')

const file = !isPostgresUrl(store)
if (file) for (const suffix of ['', '-wal', '-shm']) rmSync(store + suffix, { force: true })
const sql = await openWritable(store)
let seconds = 0
// As `docgate import` reads them: a reader is made for the next file once this one's lines
// are all read (a revision whose reader starts checking when made does so meanwhile).
let reader = readEntries(paths[0]!)
for (const [i, path] of paths.entries()) {
  const current = reader
  const following = paths[i + 1]
  const entries = (async function* () {
    yield* current
    if (following !== undefined) reader = readEntries(following)
  })()
  const t0 = process.hrtime.bigint()
  const report = await importEntries(sql, entries)
  const s = Number(process.hrtime.bigint() - t0) / 1e9
  seconds += s
  if (!report.ok) throw new Error(`${path} rejected: ${JSON.stringify(report.invalid.slice(0, 3))}`)
  console.log(`file\t${path}\t${s.toFixed(3)}`)
}
await sql.close()
if (file) for (const suffix of ['', '-wal', '-shm']) rmSync(store + suffix, { force: true })
console.log(seconds.toFixed(3))
