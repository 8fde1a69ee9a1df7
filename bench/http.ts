// `npm run bench`: requests per second and p99 latency of docgate endpoints on demo
// data under a loopback load, beside a bare node:http server sending the same bytes.
// Environment: BENCH_SECONDS (default 5), BENCH_SCALE (demo scale, default 1),
// DOCGATE_BENCH_PG_URL or DOCGATE_TEST_PG_URL (also measure on PostgreSQL; a database is
// created there and dropped), BENCH_ACCESS_LOG=off (serve with `--access-log off`),
// BENCH_ONLY (a regular expression: only the endpoints whose name matches).
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { BENCH_AUTH, benchDir, fmt, load, prepareDemo, startProcess } from './harness.js'
import { TARGETS } from './targets.js'

const seconds = Number(process.env.BENCH_SECONDS ?? '5')
const scale = Number(process.env.BENCH_SCALE ?? '1')
const dir = benchDir()
const auth = { authorization: BENCH_AUTH }

async function measure(engine: string, db: string): Promise<void> {
  const accessLog = process.env.BENCH_ACCESS_LOG === 'off' ? ['--access-log', 'off'] : []
  const docgate = await startProcess(['bin/docgate.js', 'serve', '--db', db, '--port', '0', ...accessLog])
  console.log(
    `\n${engine}: demo scale ${scale}, ${seconds} s per run, 20 connections, loopback, access log ${accessLog.length ? 'off' : 'on'}`,
  )
  console.log(
    `${'endpoint'.padEnd(44)}${'bytes'.padStart(9)}${'docgate/s'.padStart(11)}${'p99 ms'.padStart(9)}${'bare/s'.padStart(11)}${'p99 ms'.padStart(9)}${'ratio'.padStart(8)}`,
  )
  try {
    const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined
    for (const target of TARGETS.filter((t) => !only || only.test(t.name))) {
      const res = await fetch(docgate.url + target.path, { headers: auth })
      const body = Buffer.from(await res.arrayBuffer())
      if (res.status !== 200) throw new Error(`${target.path}: HTTP ${res.status} ${body.toString().slice(0, 200)}`)
      const file = join(dir, 'body.bin')
      writeFileSync(file, body)
      const cors = res.headers.get('access-control-allow-origin') ? 'cors' : 'none'
      const bare = await startProcess(['dist/bench/bare-server.js', file, res.headers.get('content-type')!, cors])
      try {
        const ours = await load(docgate.url + target.path, auth, seconds)
        const base = await load(bare.url + target.path, auth, seconds)
        console.log(
          `${target.name.padEnd(44)}${fmt(body.length)}${fmt(ours.rps).padStart(11)}${fmt(ours.p99)}${fmt(base.rps).padStart(11)}${fmt(base.p99)}${(ours.rps / base.rps).toFixed(3).padStart(8)}` +
            (ours.errors + base.errors > 0 ? `  errors: ${ours.errors}/${base.errors}` : ''),
        )
      } finally {
        bare.child.kill()
      }
    }
  } finally {
    docgate.child.kill('SIGTERM')
  }
}

const sqlite = join(dir, 'bench.db')
await prepareDemo(sqlite, scale)
await measure('sqlite', sqlite)

const pgUrl = process.env.DOCGATE_BENCH_PG_URL ?? process.env.DOCGATE_TEST_PG_URL
if (pgUrl) {
  const name = `docgate_bench_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: pgUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(pgUrl)
  url.pathname = `/${name}`
  try {
    await prepareDemo(url.toString(), scale)
    await measure('postgres', url.toString())
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
}
