// `npm run bench:feeds`: the memory of a big CSV or Excel answer. `docgate serve` on a
// `docgate demo --scale N` store (bench/scale/store.ts builds or reuses it) answers, one at a
// time, the customer orders' full forms with one line per goods row (at scale 100 about
// 150,000 lines) as JSON, CSV and XLSX, and the same kept to three fields; the server's
// resident memory is sampled every 20 ms while each streams to a reader that drops it.
// Printed: lines, bytes, seconds and the server's peak RSS per request, and its RSS before;
// then, on a server that has first sent the plain JSON answer, how far this one raises its peak.
// Environment: BENCH_SCALE (default 100), BENCH_DB (a store to use as it is), BENCH_ONLY (a
// regular expression over the requests' names), BENCH_REPEATS (fresh servers per request, 1:
// the growth printed is their median, its range beside it).
import { request } from 'node:http'
import { readFileSync } from 'node:fs'
import { BENCH_AUTH, ROOT, median } from './harness.js'
import { startPinned, stop } from './scale/processes.js'
import { sqliteStore } from './scale/store.js'

const scale = Number(process.env.BENCH_SCALE ?? 100)
const q = (s: string) => encodeURIComponent(s)
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined
const repeats = Math.max(1, Math.round(Number(process.env.BENCH_REPEATS ?? 1)))
const CASES = [
  { name: 'orders full, JSON', path: '/main/hs/orders/get?full=true' },
  { name: 'orders full, CSV, a line per goods row', path: `/main/hs/orders/get?full=true&format=csv&rows=${q('Товары')}` },
  { name: 'orders full, XLSX, a line per goods row', path: `/main/hs/orders/get?full=true&format=xlsx&rows=${q('Товары')}` },
  {
    name: 'orders full, CSV, 3 fields, a line per goods row',
    path: `/main/hs/orders/get?full=true&format=csv&rows=${q('Товары')}&fields=${q('Номер,Дата,Товары.Количество')}`,
  },
  { name: 'orders full, JSON, 3 fields', path: `/main/hs/orders/get?full=true&fields=${q('Номер,Дата,Товары.Количество')}` },
  // The issue's 100,000 lines: at scale 100 the demo's last 15 months hold about that many.
  {
    name: 'orders of a period, CSV, a line per goods row',
    path: `/main/hs/orders/get?full=true&format=csv&rows=${q('Товары')}&from=01.09.2025&to=30.11.2026`,
  },
  {
    name: 'orders of a period, XLSX, a line per goods row',
    path: `/main/hs/orders/get?full=true&format=xlsx&rows=${q('Товары')}&from=01.09.2025&to=30.11.2026`,
  },
]

const rssKb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)

/** Reads the answer to its end, counting its bytes and its line ends. */
function drain(url: string): Promise<{ status: number; bytes: number; lines: number | undefined }> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { authorization: BENCH_AUTH } }, (res) => {
      let bytes = 0
      let lines = 0
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++
      })
      // Lines of a CSV answer, its header aside; other formats are not counted in lines.
      const csv = String(res.headers['content-type']).startsWith('text/csv')
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, lines: csv ? lines - 1 : undefined }))
      res.on('error', reject)
    })
      .on('error', reject)
      .end()
  })
}

const db = process.env.BENCH_DB ?? (await sqliteStore(ROOT, scale, 60 * 60_000))
// A big workbook takes longer than the default time limit of a request.
const serveArgs = [
  'bin/docgate.js',
  'serve',
  '--db',
  db,
  '--port',
  '0',
  '--access-log',
  'off',
  '--answer-cache',
  '0',
  '--request-timeout',
  '0',
]
console.log(`docgate serve on ${db} (scale ${scale}), answer cache off, no time limit; a fresh server per request`)
console.log('request | status | lines | bytes | seconds | server RSS before | peak | growth, a fresh server | growth over the plain answer')
const mb = (kb: number) => `${Math.round(kb / 1024)} MB`
const PLAIN = CASES[0]!.path

/** One request on a server, its peak RSS sampled every 20 ms. */
async function measured(pid: number, url: string) {
  const before = rssKb(pid)
  let peak = before
  const timer = setInterval(() => (peak = Math.max(peak, rssKb(pid))), 20)
  const start = performance.now()
  const got = await drain(url)
  clearInterval(timer)
  return { ...got, seconds: (performance.now() - start) / 1000, before, peak: Math.max(peak, rssKb(pid)) }
}

for (const c of CASES.filter((c) => !only || only.test(c.name))) {
  // A fresh server: what the first big answer costs the process (caches, heaps, allocator).
  // Repeated on fresh servers: the growth moves between runs (the runtime's collections).
  const runs: Awaited<ReturnType<typeof measured>>[] = []
  for (let r = 0; r < repeats; r++) {
    const server = await startPinned(1, serveArgs, ROOT)
    try {
      runs.push(await measured(server.child.pid!, server.url + c.path))
    } finally {
      await stop(server.child)
    }
  }
  const growths = runs.map((g) => g.peak - g.before).sort((a, b) => a - b)
  const got = runs[0]!
  // A server that has already sent the plain answer: what this shape adds to it.
  let over = '—'
  if (c.path !== PLAIN) {
    const warmed = await startPinned(1, serveArgs, ROOT)
    try {
      const pid = warmed.child.pid!
      const plain = await measured(pid, warmed.url + PLAIN)
      const again = await measured(pid, warmed.url + c.path)
      over = mb(Math.max(0, again.peak - plain.peak))
    } finally {
      await stop(warmed.child)
    }
  }
  const size = `${(got.bytes / 2 ** 20).toFixed(1)} MB`
  console.log(
    `${c.name} | ${got.status} | ${got.lines ?? '—'} | ${size} | ${got.seconds.toFixed(1)} | ${mb(got.before)} | ${mb(got.peak)} | ${mb(median(growths))}${repeats > 1 ? ` (${mb(growths[0]!)}–${mb(growths.at(-1)!)})` : ''} | ${over}`,
  )
}
