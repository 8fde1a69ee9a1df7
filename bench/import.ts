// `npm run bench:import`: objects per second of `docgate import` over demo NDJSON files
// (BENCH_IMPORT_ROUNDS imports per engine, default 3, each by a process of its own into a
// new store — a first load, whose read models are built once after the last file,
// import/files.ts; the median), then the floor of that figure for each file: what JSON.parse
// alone costs per line, and what the table writes alone cost (no validation, read models,
// derived tables or reference check), each measured on its own.
// Environment: BENCH_SCALE (default 1); DOCGATE_BENCH_PG_URL or DOCGATE_TEST_PG_URL (also
// measure on PostgreSQL, in databases created there and dropped); BENCH_IMPORT_BASELINE, a
// git revision: also import the same files on SQLite by that revision's code, built apart,
// alternated with this code for BENCH_ROUNDS rounds (default 5), and print the median ratio
// (issue 12: the import must stay within 25 % of the objects/s before its structures; its
// revision is 4e29d42). Figures taken on different days are not comparable on this machine.
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { once } from 'node:events'
import pg from 'pg'
import { demoFiles } from '../src/demo/generate.js'
import { validate } from '../src/import/validate.js'
import type { Operation } from '../src/import/validate.js'
import { Writer } from '../src/import/writer.js'
import { openWritable } from '../src/app/store.js'
import { benchDir, median, ROOT } from './harness.js'

const scale = Number(process.env.BENCH_SCALE ?? '1')
const dir = benchDir()
const files: { name: string; path: string; objects: number }[] = []
for (const file of demoFiles({ scale, seed: 1 })) {
  const path = join(dir, `${file.name}.ndjson`)
  const out = createWriteStream(path)
  let objects = 0
  for (const obj of file.objects()) {
    objects++
    if (!out.write(JSON.stringify(obj) + '\n')) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
  files.push({ name: file.name, path, objects })
}

const objects = files.reduce((n, f) => n + f.objects, 0)
console.log(`demo scale ${scale}: ${objects} objects in ${files.length} files`)

/**
 * One import of every file into `store` by the code under `root`, in a process of its own:
 * each file's seconds, those of the read models built once after the last (a first load,
 * import/files.ts; 0 for a revision that built them with each file), and the total.
 */
function timedRun(root: string, store: string): { files: number[]; ready: number; total: number } {
  const out = execFileSync(process.execPath, [join(ROOT, 'dist/bench/import-run.js'), root, store, ...files.map((f) => f.path)], {
    encoding: 'utf8',
  })
  const lines = out.trim().split('\n')
  const ready = lines.find((l) => l.startsWith('ready\t'))
  return {
    files: lines.filter((l) => l.startsWith('file\t')).map((l) => Number(l.split('\t')[2])),
    ready: ready ? Number(ready.split('\t')[1]) : 0,
    total: Number(lines.at(-1)),
  }
}

/** Imports per engine: this machine's speed moves by ±10 % within minutes, so the median is printed. */
const importRounds = Number(process.env.BENCH_IMPORT_ROUNDS ?? '3')

async function measure(engine: string, db: () => Promise<{ location: string; drop: () => Promise<void> }>): Promise<void> {
  console.log(
    `\n${engine}: ${importRounds} imports, each into a new store by a process of its own (as \`docgate import\`); median seconds per file`,
  )
  const runs: ReturnType<typeof timedRun>[] = []
  for (let round = 0; round < importRounds; round++) {
    const target = await db()
    try {
      runs.push(timedRun(ROOT, target.location))
    } finally {
      await target.drop()
    }
  }
  console.log(`${'file'.padEnd(36)}${'objects'.padStart(10)}${'seconds'.padStart(10)}${'objects/s'.padStart(12)}`)
  files.forEach((f, i) => {
    const s = median(runs.map((r) => r.files[i]!))
    console.log(
      `${f.name.padEnd(36)}${String(f.objects).padStart(10)}${s.toFixed(2).padStart(10)}${Math.round(f.objects / s)
        .toString()
        .padStart(12)}`,
    )
  })
  console.log(
    `${'read models, built after the last file'.padEnd(46)}${median(runs.map((r) => r.ready))
      .toFixed(2)
      .padStart(10)}`,
  )
  const totals = runs.map((r) => r.total)
  const total = median(totals)
  console.log(
    `${'total'.padEnd(36)}${String(objects).padStart(10)}${total.toFixed(2).padStart(10)}${Math.round(objects / total)
      .toString()
      .padStart(12)}`,
  )
  console.log(`imports: ${totals.map((t) => `${t.toFixed(2)} s (${Math.round(objects / t)}/s)`).join(', ')}`)

  const perLine = (ns: bigint, n: number): string => (Number(ns) / 1000 / n).toFixed(1).padStart(10)
  console.log('\nfloor, microseconds per object:')
  console.log(`${'file'.padEnd(36)}${'parse'.padStart(10)}${'write'.padStart(10)}${'objects/s'.padStart(12)}`)
  const floorTarget = await db()
  const floor = await openWritable(floorTarget.location)
  for (const f of files) {
    const lines = readFileSync(f.path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
    let t0 = process.hrtime.bigint()
    const values = lines.map((l) => JSON.parse(l) as unknown)
    const parse = process.hrtime.bigint() - t0
    const ops: Operation[] = []
    for (const v of values) {
      const checked = validate(v)
      if (checked.ok) ops.push(checked.operation)
    }
    t0 = process.hrtime.bigint()
    await floor.transaction(async () => {
      const writer = new Writer(floor)
      for (const op of ops) await writer.apply(op)
      await writer.flush()
    })
    const write = process.hrtime.bigint() - t0
    const best = Math.round((f.objects * 1e9) / Number(parse + write))
    console.log(`${f.name.padEnd(36)}${perLine(parse, f.objects)}${perLine(write, f.objects)}${String(best).padStart(12)}`)
  }
  await floor.close()
  await floorTarget.drop()
}

/** The code of `revision` checked out under `dir` and built there, with this checkout's packages. */
function buildRevision(revision: string, dir: string): string {
  const root = join(dir, `rev-${revision.replace(/[^A-Za-z0-9]/g, '_')}`)
  mkdirSync(root, { recursive: true })
  execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${revision}" | tar -x -C "${root}"`], { stdio: 'inherit' })
  if (!existsSync(join(root, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'))
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' })
  return root
}

const baseline = process.env.BENCH_IMPORT_BASELINE
if (baseline) {
  const rounds = Number(process.env.BENCH_ROUNDS ?? '5')
  const base = buildRevision(baseline, dir)
  console.log(`\nSQLite, ${baseline} against this code, alternated (objects/s)`)
  console.log(`${'round'.padEnd(8)}${baseline.padStart(12)}${'this code'.padStart(12)}${'ratio'.padStart(8)}`)
  const ratios: number[] = []
  for (let round = 1; round <= rounds; round++) {
    const before = objects / timedRun(base, join(dir, 'baseline.db')).total
    const now = objects / timedRun(ROOT, join(dir, 'current.db')).total
    ratios.push(now / before)
    console.log(
      `${String(round).padEnd(8)}${Math.round(before).toString().padStart(12)}${Math.round(now).toString().padStart(12)}${(now / before).toFixed(2).padStart(8)}`,
    )
  }
  const middle = median(ratios)
  console.log(
    `median ratio ${middle.toFixed(2)} (range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}); within 25 %: ${middle >= 0.75 ? 'yes' : 'no'}`,
  )
}

let n = 0
await measure('SQLite', async () => ({ location: join(dir, `bench-${++n}.db`), drop: async () => {} }))
const pgUrl = process.env.DOCGATE_BENCH_PG_URL ?? process.env.DOCGATE_TEST_PG_URL
if (pgUrl) {
  const admin = new pg.Client({ connectionString: pgUrl })
  await admin.connect()
  try {
    await measure('PostgreSQL', async () => {
      const name = `docgate_bench_${randomBytes(4).toString('hex')}`
      await admin.query(`CREATE DATABASE ${name}`)
      const u = new URL(pgUrl)
      u.pathname = `/${name}`
      return { location: u.toString(), drop: async () => void (await admin.query(`DROP DATABASE IF EXISTS ${name}`)) }
    })
  } finally {
    await admin.end()
  }
}
