// `docgate sync` as an operator runs it: separate processes for the fake 1C and the sync,
// the exit codes and lines of sync.md §2, SIGTERM under --every (§9.9), and no secret in
// any output or table (§9.10).
import * as assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { SqliteStore } from '../../src/store/sqlite.js'
import { tempDir } from '../support/stores.js'

const BIN = join(process.cwd(), 'bin', 'docgate.js')
const USER = 'Синхронизатор'
const PASSWORD = 'p@ss-Секрет-42'
const AUTH = Buffer.from(`${USER}:${PASSWORD}`, 'utf8').toString('base64')

interface Done {
  code: number | null
  out: string
  err: string
}

function start(
  args: string[],
  input?: string,
  env: Record<string, string> = {},
): { child: ChildProcess; done: Promise<Done>; out: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout!.on('data', (c) => (out += c))
  child.stderr!.on('data', (c) => (err += c))
  child.stdin!.end(input ?? '')
  const done = new Promise<Done>((resolve) => child.on('close', (code) => resolve({ code, out, err })))
  return { child, done, out: () => out }
}

const run = (args: string[], input?: string, env?: Record<string, string>) => start(args, input, env).done

async function waitFor(get: () => string, re: RegExp, ms = 60_000): Promise<RegExpMatchArray> {
  const end = Date.now() + ms
  for (;;) {
    const m = re.exec(get())
    if (m) return m
    if (Date.now() > end) throw new Error(`timed out waiting for ${re}; got: ${get().slice(-500)}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('docgate sync from the command line', () => {
  const dir = tempDir()
  let fake: ReturnType<typeof start>
  let url = ''

  before(async () => {
    fake = start(['fake-1c', '--demo', '--scale', '0.05', '--port', '0', '--user', USER, '--password-stdin'], `${PASSWORD}\n`)
    url = (await waitFor(fake.out, /fake 1C OData on (http:\/\/\S+)/))[1]!
  })
  after(() => {
    fake.child.kill('SIGTERM')
  })

  test('bad arguments exit 2 with one line (misuse: then the synopsis), before anything is attempted', async () => {
    const db = join(dir, 'never.db')
    for (const args of [
      ['sync', '--source', url, '--once', '--every', '5', '--db', db],
      ['sync', '--check', '--full', '--source', url, '--db', db],
      ['sync', '--source', url.replace('http://', `http://${USER}:x@`), '--db', db],
      ['sync', '--source', `${url}?$format=json`, '--db', db],
      ['sync', '--source', url, '--every', '0', '--db', db],
      ['sync', '--status', '--db', db],
      ['sync', '--source', url, '--full', '--scan-all', '--db', db],
      ['sync', '--status', '--scan-all', '--db', db],
    ]) {
      const r = await run(args)
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`)
      const [line, ...synopsis] = r.err.trim().split('\n')
      assert.match(line!, /^docgate: /)
      assert.ok(synopsis.length === 0 || /^usage: docgate sync /.test(synopsis[0]!), r.err)
    }
  })

  test('wrong credentials: exit 1, the refusal named, nothing written', async () => {
    const db = join(dir, 'refused.db')
    const r = await run(['sync', '--source', url, '--user', USER, '--password-stdin', '--db', db], 'wrong\n')
    assert.equal(r.code, 1)
    assert.match(r.err, /^source refused the credentials \(HTTP 401\)$/m)
  })

  test('a run, --status, and SIGTERM under --every: exit 0 with a consistent store; no secret anywhere', async () => {
    const db = join(dir, 'synced.db')
    const env = { DOCGATE_SOURCE_USER: USER, DOCGATE_SOURCE_PASSWORD: PASSWORD }
    const once = await run(['sync', '--source', `${url}/`, '--db', db], undefined, env)
    assert.equal(once.code, 0, once.err)
    assert.match(
      once.out,
      /^Catalog_Организации → Справочник\.Организации: read 2, written 2, deleted 0, skipped 0, warnings 0; [\d.]+ s, \d+ objects\/s$/m,
    )
    assert.match(once.out, /^cycle complete: \d+ entity sets; read \d+, written \d+, deleted 0; [\d.]+ s$/m)

    const status = await run(['sync', '--status', '--db', db])
    assert.equal(status.code, 0, status.err)
    const lines = status.out.trim().split('\n')
    assert.equal(lines[0], `source: ${url}`)
    assert.match(lines[1]!, /^last cycle: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d → \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, complete$/)
    assert.match(lines[2]!, /^entity set {2,}last complete scan {4}last full scan {8}objects {2}last error$/)
    // A first load is each set's first full scan.
    const at = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d'
    assert.ok(
      lines.some((l) => new RegExp(`^Catalog_Организации {2,}${at} {3}${at} {9}2 {2}—$`).test(l)),
      lines.join('\n'),
    )
    assert.ok(
      lines.some((l) => new RegExp(`^AccumulationRegister_ЗаявкиНаРасходованиеСредств {2}${at} {3}${at} {9}6 {2}—$`).test(l)),
      lines.join('\n'),
    )

    const loop = start(['sync', '--every', '1', '--source', url, '--user', USER, '--password-stdin', '--db', db], `${PASSWORD}\r\n`)
    await waitFor(loop.out, /^Catalog_Склады → /m)
    loop.child.kill('SIGTERM')
    const stopped = await loop.done
    assert.equal(stopped.code, 0, stopped.err)

    const again = await run(['sync', '--once', '--source', url, '--db', db], undefined, env)
    assert.equal(again.code, 0, again.err)
    for (const l of again.out.split('\n').filter((x) => x.includes(' → '))) assert.match(l, /written 0, deleted 0,/)

    // No secret in any output, nor in any table of the store.
    const sql = new SqliteStore(db, { readonly: true })
    const tables = await sql.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
    let everything = ''
    for (const { name } of tables)
      everything += JSON.stringify(await sql.all(`SELECT * FROM ${name}`), (_k, v) => (v && v.type === 'Buffer' ? '' : v))
    await sql.close()
    for (const text of [once.out, once.err, status.out, stopped.out, stopped.err, again.out, again.err, everything]) {
      assert.ok(!text.includes(PASSWORD), 'password leaked')
      assert.ok(!text.includes(AUTH), 'Authorization value leaked')
    }
  })

  test('a second sync on the same store exits 2 naming the holder', async () => {
    const db = join(dir, 'locked.db')
    const env = { DOCGATE_SOURCE_USER: USER, DOCGATE_SOURCE_PASSWORD: PASSWORD }
    const first = start(['sync', '--every', '60', '--source', url, '--db', db], undefined, env)
    await waitFor(first.out, /^cycle complete/m)
    const second = await run(['sync', '--once', '--source', url, '--db', db], undefined, env)
    first.child.kill('SIGTERM')
    await first.done
    assert.equal(second.code, 2)
    assert.match(second.err, new RegExp(`another docgate sync is running on this store \\(pid ${first.child.pid} on \\S+\\)`))
  })
})
