// `npm run bench:attachments`: streaming big attachments. A store whose expense requests
// carry BENCH_FILES × BENCH_FILE_MB of attachments (default 50 × 10 MB) is imported through
// the import path; `docgate serve` runs as a child process; `payments/get?full=true` is
// downloaded while the server's RSS is sampled every 100 ms from /proc/<pid>/status.
// The client never holds the body: it hashes each Base64 `Данные` as it arrives and parses
// the JSON that remains around them. Then battery S3: BENCH_SLOW_READERS (default 50)
// connections request the same answer and never read it, for BENCH_SLOW_SECONDS (default
// 20), while a probe requests `payments` every 100 ms; back-pressure must keep the server's
// RSS growth under 100 MiB.
import { createHash, randomBytes } from 'node:crypto'
import type { Hash } from 'node:crypto'
import { createWriteStream, readFileSync, rmSync } from 'node:fs'
import { get } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import { once } from 'node:events'
import { hashPassword } from '../src/auth/password.js'
import { readEntries } from '../src/import/read.js'
import { importEntries } from '../src/import/run.js'
import { openWritable } from '../src/app/store.js'
import { putUser } from '../src/users/store.js'
import { BENCH_AUTH, benchDir, percentile, probe, startProcess } from './harness.js'

const FILES = Number(process.env.BENCH_FILES ?? '50')
const FILE_BYTES = Math.round(Number(process.env.BENCH_FILE_MB ?? '10') * 1024 * 1024)
const PER_IMPORT = 5
const MB = 1024 * 1024
const uuid = (kind: number, i: number) => `00000000-0000-4000-8000-${kind.toString(16).padStart(4, '0')}${i.toString(16).padStart(8, '0')}`

async function writeLines(path: string, objects: Iterable<unknown>): Promise<void> {
  const out = createWriteStream(path)
  for (const obj of objects) if (!out.write(JSON.stringify(obj) + '\n')) await once(out, 'drain')
  out.end()
  await once(out, 'finish')
}

/** Writes the import files; returns them and each attachment's expected size and SHA-256 by file name. */
async function generate(dir: string): Promise<{ files: string[]; expected: Map<string, { size: number; sha256: string }> }> {
  const files = [join(dir, 'requests.ndjson')]
  await writeLines(
    files[0]!,
    Array.from({ length: FILES }, (_, i) => ({
      type: 'Документ.ЗаявкаНаРасходованиеСредств',
      ref: uuid(1, i),
      Номер: `ЗР-${String(i + 1).padStart(5, '0')}`,
      Дата: '2026-01-10T10:00:00',
      ДатаРасхода: `2026-02-${String((i % 28) + 1).padStart(2, '0')}`,
      СуммаДокумента: 1000 + i,
      Проведен: true,
    })),
  )
  const expected = new Map<string, { size: number; sha256: string }>()
  // Several files (one transaction each), one attachment per line: no line is bigger than one file's Base64.
  for (let first = 0; first < FILES; first += PER_IMPORT) {
    const path = join(dir, `attachments-${first / PER_IMPORT + 1}.ndjson`)
    const lines = function* () {
      for (let i = first; i < Math.min(FILES, first + PER_IMPORT); i++) {
        const bytes = randomBytes(FILE_BYTES)
        const name = `скан-${i + 1}.bin`
        expected.set(name, { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') })
        yield {
          type: 'Справочник.ХранилищеДополнительнойИнформации',
          ref: uuid(2, i),
          Наименование: name,
          Объект: { type: 'Документ.ЗаявкаНаРасходованиеСредств', ref: uuid(1, i) },
          ИмяФайла: name,
          Данные: bytes.toString('base64'),
        }
      }
    }
    await writeLines(path, lines())
    files.push(path)
  }
  return { files, expected }
}

const MARKER = Buffer.from('"Данные":"')

/** Splits the response into the JSON around the attachments (kept) and their Base64 content (hashed, counted). */
class Scanner {
  readonly skeleton: Buffer[] = []
  readonly found: { chars: number; bytes: number; sha256: string }[] = []
  #carry = Buffer.alloc(0)
  #current: { hash: Hash; chars: number; bytes: number; rest: Buffer } | undefined

  push(chunk: Buffer): void {
    let buf = chunk
    let pos = 0
    while (pos < buf.length) {
      if (this.#current) {
        const end = buf.indexOf(0x22, pos)
        this.#feed(buf.subarray(pos, end < 0 ? buf.length : end))
        if (end < 0) return
        this.#finish()
        pos = end
        continue
      }
      const text = this.#carry.length > 0 ? Buffer.concat([this.#carry, buf.subarray(pos)]) : buf.subarray(pos)
      const at = text.indexOf(MARKER)
      if (at < 0) {
        const keep = Math.max(0, text.length - MARKER.length + 1)
        this.skeleton.push(Buffer.from(text.subarray(0, keep)))
        this.#carry = Buffer.from(text.subarray(keep))
        return
      }
      this.skeleton.push(Buffer.from(text.subarray(0, at + MARKER.length)))
      this.#carry = Buffer.alloc(0)
      this.#current = { hash: createHash('sha256'), chars: 0, bytes: 0, rest: Buffer.alloc(0) }
      buf = text
      pos = at + MARKER.length
    }
  }

  end(): string {
    this.skeleton.push(this.#carry)
    return Buffer.concat(this.skeleton).toString('utf8')
  }

  #feed(part: Buffer): void {
    const c = this.#current!
    c.chars += part.length
    const all = c.rest.length > 0 ? Buffer.concat([c.rest, part]) : part
    const whole = all.length - (all.length % 4)
    const bytes = Buffer.from(all.subarray(0, whole).toString('latin1'), 'base64')
    c.hash.update(bytes)
    c.bytes += bytes.length
    c.rest = Buffer.from(all.subarray(whole))
  }

  #finish(): void {
    const c = this.#current!
    if (c.rest.length > 0) throw new Error(`Base64 of attachment ${this.found.length + 1} does not end on a 4-character boundary`)
    this.found.push({ chars: c.chars, bytes: c.bytes, sha256: c.hash.digest('hex') })
    this.#current = undefined
  }
}

function rssKb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0)
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') }
}

const dir = benchDir()
const db = join(dir, 'bench.db')
console.log(`generating ${FILES} attachments × ${(FILE_BYTES / MB).toFixed(1)} MiB in ${dir}`)
const { files, expected } = await generate(dir)
const sql = await openWritable(db)
let t0 = performance.now()
for (const file of files) {
  const report = await importEntries(sql, readEntries(file))
  if (!report.ok) throw new Error(`${file} rejected: ${JSON.stringify(report.invalid.slice(0, 3))}`)
}
console.log(`imported ${files.length} files in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
await putUser(sql, 'bench', await hashPassword('bench', { logN: 14 }), ['*'])
await sql.close()

const server = await startProcess(['bin/docgate.js', 'serve', '--db', db, '--port', '0'])
const pid = server.child.pid!
const authorization = BENCH_AUTH

async function slowReaders(): Promise<void> {
  const readers = Number(process.env.BENCH_SLOW_READERS ?? '50')
  const seconds = Number(process.env.BENCH_SLOW_SECONDS ?? '20')
  const { hostname, port } = new URL(server.url)
  const before = rssKb(pid).rss
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, rssKb(pid).rss)), 100)
  const sockets = Array.from({ length: readers }, () => {
    const s = connect(Number(port), hostname, () =>
      s.write(`GET /main/hs/payments/get?full=true HTTP/1.1\r\nHost: bench\r\nAuthorization: ${authorization}\r\n\r\n`),
    )
    s.on('error', () => {})
    s.pause()
    return s
  })
  const p = probe(`${server.url}/main/hs/payments/get`, 100)
  await new Promise((r) => setTimeout(r, seconds * 1000))
  const { latencies, errors } = await p.stop()
  clearInterval(sampler)
  for (const s of sockets) s.destroy()
  const p99 = percentile(latencies, 99)
  const grown = (peak - before) / 1024
  console.log(
    `slow readers (S3): ${readers} connections not reading full=true for ${seconds} s: server RSS +${grown.toFixed(0)} MiB (target < 100); ` +
      `probe p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms, ${errors} errors`,
  )
  if (grown >= 100 || errors > 0) process.exitCode = 1
}

try {
  const baseline = rssKb(pid).rss
  let peak = baseline
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssKb(pid).rss)
  }, 100)
  const scanner = new Scanner()
  let total = 0
  let firstByte = 0
  t0 = performance.now()
  const status = await new Promise<number>((resolve, reject) => {
    const req = get(`${server.url}/main/hs/payments/get?full=true`, { headers: { authorization } }, (res) => {
      res.on('data', (chunk: Buffer) => {
        if (total === 0) firstByte = performance.now() - t0
        total += chunk.length
        scanner.push(chunk)
      })
      res.on('end', () => resolve(res.statusCode ?? 0))
      res.on('error', reject)
    })
    req.on('error', reject)
  })
  const seconds = (performance.now() - t0) / 1000
  clearInterval(sampler)
  const { rss, hwm } = rssKb(pid)
  peak = Math.max(peak, rss)

  // The JSON with every Base64 string emptied must parse and name the attachments in the order they came.
  const body = JSON.parse(scanner.end()) as { data: { Вложения: { ИмяФайла: string; Данные: string }[] }[]; errors: unknown[] }
  const names = body.data.flatMap((d) => d.Вложения.map((a) => a.ИмяФайла))
  const problems: string[] = []
  if (status !== 200) problems.push(`HTTP ${status}`)
  if (body.errors.length > 0) problems.push(`errors: ${JSON.stringify(body.errors).slice(0, 200)}`)
  if (body.data.length !== FILES) problems.push(`${body.data.length} documents, expected ${FILES}`)
  if (names.length !== FILES || scanner.found.length !== FILES) problems.push(`${scanner.found.length} attachments, expected ${FILES}`)
  names.forEach((name, i) => {
    const want = expected.get(name)
    const got = scanner.found[i]
    if (!want || !got) return problems.push(`${name}: unexpected`)
    if (got.chars !== 4 * Math.ceil(want.size / 3))
      problems.push(`${name}: ${got.chars} Base64 characters, expected ${4 * Math.ceil(want.size / 3)}`)
    if (got.bytes !== want.size || got.sha256 !== want.sha256) problems.push(`${name}: content differs (${got.bytes} bytes)`)
  })

  const content = [...expected.values()].reduce((n, e) => n + e.size, 0)
  console.log(
    `attachments:       ${FILES} × ${(FILE_BYTES / MB).toFixed(1)} MiB = ${(content / MB).toFixed(0)} MiB (${(total / MB).toFixed(0)} MiB of JSON)`,
  )
  console.log(
    `server RSS:        ${(baseline / 1024).toFixed(0)} MiB before, peak ${(peak / 1024).toFixed(0)} MiB sampled, VmHWM ${(hwm / 1024).toFixed(0)} MiB (target < 300 MiB)`,
  )
  console.log(`time to first byte: ${firstByte.toFixed(0)} ms`)
  console.log(`throughput:        ${(total / MB / seconds).toFixed(0)} MiB/s of JSON (${seconds.toFixed(1)} s)`)
  console.log(
    problems.length === 0
      ? 'content:           every attachment complete, SHA-256 matches'
      : `FAILED:\n  ${problems.slice(0, 10).join('\n  ')}`,
  )
  if (problems.length > 0 || peak / 1024 >= 300) process.exitCode = 1
  await slowReaders()
} finally {
  server.child.kill('SIGTERM')
  await once(server.child, 'exit')
  rmSync(dir, { recursive: true, force: true })
}
