// The scale store of bench:scale: `docgate demo --scale N` plus the bench user, built once
// and reused while its marker (a `meta` row written last) matches what would be built now.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import pg from 'pg'
import { hashPassword } from '../../src/auth/password.js'
import { getMeta } from '../../src/views/migrate.js'
import { openWritable } from '../../src/app/store.js'
import { SCHEMA_VERSION } from '../../src/store/schema.js'
import { putUser } from '../../src/users/store.js'
import { spawnTracked } from './processes.js'

const MARKER_KEY = 'bench:scale'
const SEED = 1

/** Every file under `dir`, recursively, in a stable order. */
function files(dir: string): string[] {
  if (!existsSync(dir)) return []
  if (statSync(dir).isFile()) return [dir]
  return readdirSync(dir)
    .sort()
    .flatMap((name) => files(join(dir, name)))
}

/**
 * What the store must have been built with to be reused: scale, seed, schema version and the
 * code that generates and imports the data. Read models and derived tables need not be in it:
 * opening the store writable (as reuse does) rebuilds those whose definition changed.
 */
function marker(root: string, scale: number): string {
  const code = createHash('sha256')
  for (const f of [
    ...files(join(root, 'dist/src/demo')),
    ...files(join(root, 'dist/src/import')),
    join(root, 'dist/src/store/schema.js'),
  ]) {
    code.update(f.slice(root.length)).update(readFileSync(f))
  }
  return JSON.stringify({ scale, seed: SEED, schema: SCHEMA_VERSION, code: code.digest('hex').slice(0, 16) })
}

/** Opens `db` writable (bringing read models up to date) and says whether its marker is `expected`. */
async function matches(db: string, expected: string): Promise<boolean> {
  // A changed read-model definition is rebuilt by this open: minutes at scale 100, so said.
  console.log('  checking the existing store (read models are brought up to date if their code changed) …')
  try {
    const sql = await openWritable(db, { warn: () => {} })
    try {
      return (await getMeta(sql, MARKER_KEY)) === expected
    } finally {
      await sql.close()
    }
  } catch (err) {
    // An older schema version refuses to open: that store is rebuilt like any mismatch.
    console.log(`  existing store unusable (${(err as Error).message.split('\n')[0]}): rebuilding`)
    return false
  }
}

/** `docgate demo` as a user runs it, bounded by `timeoutMs`. */
function runDemo(root: string, db: string, scale: number, timeoutMs: number): Promise<void> {
  const child = spawnTracked(process.execPath, ['bin/docgate.js', 'demo', '--db', db, '--scale', String(scale), '--seed', String(SEED)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-4000)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve()
      else
        reject(
          new Error(
            `docgate demo --scale ${scale} ended with ${code ?? `${signal} (over ${timeoutMs / 60_000} min?)`}: ${out.trim().split('\n').slice(-2).join(' | ')}`,
          ),
        )
    })
  })
}

/** The bench user (bench / bench, every service) and the marker, last: a store without it is incomplete. */
async function finish(db: string, mark: string): Promise<void> {
  const sql = await openWritable(db, { warn: () => {} })
  try {
    await putUser(sql, 'bench', await hashPassword('bench', { logN: 14 }), ['*'])
    await sql.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [MARKER_KEY, mark])
  } finally {
    await sql.close()
  }
}

const elapsed = (t0: number): string => `${((Date.now() - t0) / 1000).toFixed(0)} s`

/** `data/bench/scale-N.db` under `root`, built unless a matching one is there. */
export async function sqliteStore(root: string, scale: number, timeoutMs: number): Promise<string> {
  const db = join(root, 'data/bench', `scale-${scale}.db`)
  const mark = marker(root, scale)
  if (existsSync(db) && (await matches(db, mark))) {
    console.log(`sqlite: reusing ${db} (${(statSync(db).size / 2 ** 30).toFixed(2)} GiB)`)
    return db
  }
  // Built aside and renamed when complete, so an interrupted build is never taken for a store.
  const partial = `${db}.partial`
  for (const f of [db, partial].flatMap((p) => [p, `${p}-wal`, `${p}-shm`])) rmSync(f, { force: true })
  mkdirSync(dirname(db), { recursive: true })
  console.log(`sqlite: building ${db} with docgate demo --scale ${scale} …`)
  const t0 = Date.now()
  await runDemo(root, partial, scale, timeoutMs)
  await finish(partial, mark)
  renameSync(partial, db)
  console.log(`sqlite: built in ${elapsed(t0)} (${(statSync(db).size / 2 ** 30).toFixed(2)} GiB)`)
  return db
}

/**
 * A database `docgate_bench_scale_N` on the server `url` names (that database itself is left
 * alone), loaded once and kept for later runs.
 */
export async function postgresStore(root: string, url: string, scale: number, timeoutMs: number): Promise<string> {
  const name = `docgate_bench_scale_${String(scale).replace(/\W/g, '_')}`
  const target = new URL(url)
  target.pathname = `/${name}`
  const db = target.toString()
  const mark = marker(root, scale)
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount! > 0
    if (exists && (await matches(db, mark))) {
      console.log(`postgres: reusing database ${name}`)
      return db
    }
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  console.log(`postgres: loading database ${name} with docgate demo --scale ${scale} …`)
  const t0 = Date.now()
  await runDemo(root, db, scale, timeoutMs)
  await finish(db, mark)
  console.log(`postgres: loaded in ${elapsed(t0)}`)
  return db
}
