// `npm run bench:import`: objects per second of `docgate import` over demo NDJSON files.
// Environment: BENCH_SCALE (default 1).
import { createWriteStream } from 'node:fs'
import { join } from 'node:path'
import { once } from 'node:events'
import { demoFiles } from '../src/demo/generate.js'
import { readEntries } from '../src/import/read.js'
import { importEntries } from '../src/import/run.js'
import { openWritable } from '../src/store/open.js'
import { benchDir } from './harness.js'

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

const sql = await openWritable(join(dir, 'bench.db'))
console.log(`demo scale ${scale}: ${files.reduce((n, f) => n + f.objects, 0)} objects in ${files.length} files`)
console.log(`${'file'.padEnd(36)}${'objects'.padStart(10)}${'seconds'.padStart(10)}${'objects/s'.padStart(12)}`)
let total = 0
let totalSeconds = 0
for (const f of files) {
  const t0 = process.hrtime.bigint()
  const report = await importEntries(sql, readEntries(f.path))
  const s = Number(process.hrtime.bigint() - t0) / 1e9
  if (!report.ok) throw new Error(`${f.name} rejected: ${JSON.stringify(report.invalid.slice(0, 3))}`)
  total += f.objects
  totalSeconds += s
  console.log(`${f.name.padEnd(36)}${String(f.objects).padStart(10)}${s.toFixed(2).padStart(10)}${Math.round(f.objects / s).toString().padStart(12)}`)
}
console.log(`${'total'.padEnd(36)}${String(total).padStart(10)}${totalSeconds.toFixed(2).padStart(10)}${Math.round(total / totalSeconds).toString().padStart(12)}`)
await sql.close()
