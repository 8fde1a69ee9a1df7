// npm run bench:sync — a demo set (BENCH_SCALE, default 10) served by `docgate fake-1c` in
// its own process, synced into an empty SQLite store (and PostgreSQL when
// DOCGATE_BENCH_PG_URL or DOCGATE_TEST_PG_URL is set): objects/s end to end, requests,
// bytes, the sync's peak RSS, the fake's own CPU share (it must not be the bottleneck),
// then a second, unchanged cycle. Targets (issue 10): ≥ 5,000 objects/s, the unchanged
// cycle under 10% of the first, RSS < 300 MB.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { sync } from '../src/cli/sync.js'
import type { Source } from '../src/sync/source/client.js'
import { ROOT, benchDir } from './harness.js'

const SCALE = process.env.BENCH_SCALE ?? '10'
const TICKS = 100 // USER_HZ on Linux

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS
}

async function startFake(): Promise<{ url: string; pid: number; stop: () => void }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/docgate.js'), 'fake-1c', '--demo', '--scale', SCALE, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c
      const m = /fake 1C OData on (\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    child.once('exit', (code) => reject(new Error(`fake-1c exited with ${code}`)))
  })
  return { url, pid: child.pid!, stop: () => child.kill('SIGTERM') }
}

interface Cycle {
  seconds: number
  read: number
  written: number
  requests: number
  bytes: number
  fakeCpu: number
  lines: string[]
}

async function cycle(url: string, db: string, fakePid: number): Promise<Cycle> {
  const lines: string[] = []
  let source: Source | undefined
  const cpu0 = cpuSeconds(fakePid)
  const t0 = performance.now()
  const code = await sync(
    { source: url, db, once: true, ...(process.env.BENCH_MAP ? { map: process.env.BENCH_MAP } : {}) },
    { sink: { out: (l) => lines.push(l), err: (l) => lines.push(l) }, onSource: (s) => (source = s) },
  )
  const seconds = (performance.now() - t0) / 1000
  const fakeCpu = cpuSeconds(fakePid) - cpu0
  if (code !== 0) throw new Error(`sync exited ${code}:\n${lines.slice(-10).join('\n')}`)
  const m = /read (\d+), written (\d+)/.exec(lines.find((l) => l.startsWith('cycle complete'))!)!
  return { seconds, read: Number(m[1]), written: Number(m[2]), requests: source!.requests, bytes: source!.bytes, fakeCpu, lines }
}

async function engine(name: string, db: string, url: string, pid: number): Promise<void> {
  const first = await cycle(url, db, pid)
  const rss = process.resourceUsage().maxRSS / 1024
  const second = await cycle(url, db, pid)
  const rate = first.read / first.seconds
  console.log(`\n${name}: scale ${SCALE}`)
  console.log(`  first load:  ${first.read} objects read, ${first.written} written in ${first.seconds.toFixed(1)} s = ${Math.round(rate)} objects/s (target ≥ 5000)`)
  console.log(`               ${first.requests} requests, ${(first.bytes / 1e6).toFixed(1)} MB; fake 1C CPU ${first.fakeCpu.toFixed(1)} s = ${Math.round((100 * first.fakeCpu) / first.seconds)}% of the wall time`)
  console.log(`               peak RSS of the sync process ${Math.round(rss)} MB (target < 300)`)
  console.log(`  unchanged:   ${second.read} read, ${second.written} written in ${second.seconds.toFixed(1)} s = ${((100 * second.seconds) / first.seconds).toFixed(1)}% of the first (target < 10%), ${second.requests} requests`)
  const slow = first.lines.filter((l) => / → /.test(l)).sort((a, b) => Number(/; ([\d.]+) s,/.exec(b)?.[1]) - Number(/; ([\d.]+) s,/.exec(a)?.[1]))
  console.log('  slowest sets of the first load:')
  for (const l of slow.slice(0, 5)) console.log(`    ${l}`)
  if (process.env.BENCH_LINES) for (const l of first.lines) console.log(`  | ${l}`)
}

const fake = await startFake()
try {
  await engine('SQLite', join(benchDir(), 'sync.db'), fake.url, fake.pid)
  const pgUrl = process.env.DOCGATE_BENCH_PG_URL ?? process.env.DOCGATE_TEST_PG_URL
  if (pgUrl) {
    const name = `docgate_bench_${randomBytes(4).toString('hex')}`
    const admin = new pg.Client({ connectionString: pgUrl })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    const u = new URL(pgUrl)
    u.pathname = `/${name}`
    try {
      await engine('PostgreSQL', u.toString(), fake.url, fake.pid)
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    }
  }
} finally {
  fake.stop()
}
