import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, it } from 'node:test'
import { tempDir } from '../support/app.js'
import { uuid } from '../support/refs.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const docgate = (args: string[], input?: string) =>
  spawnSync(process.execPath, ['bin/docgate.js', ...args], { cwd: ROOT, input, encoding: 'utf8', env: { ...process.env, DOCGATE_DB: '' } })

describe('docgate CLI', () => {
  const dir = tempDir()
  const db = join(dir, 'cli.db')

  it('import names every invalid line, writes nothing and exits non-zero, without a stack trace', () => {
    const file = join(dir, 'bad.ndjson')
    writeFileSync(
      file,
      [
        JSON.stringify({ type: 'Справочник.Склады', ref: uuid('a'), Наименование: 'А' }),
        'not json',
        JSON.stringify({ type: 'Справочник.Склады', Наименование: 'Б' }),
      ].join('\n'),
    )
    const r = docgate(['import', '--db', db, file])
    assert.equal(r.status, 1)
    assert.match(r.stderr, /rejected, nothing written: 2 invalid line\(s\)/)
    assert.match(r.stderr, /bad\.ndjson:2: \? -: not JSON: /)
    assert.match(r.stderr, /bad\.ndjson:3: Справочник\.Склады -: missing "ref"/)
    assert.doesNotMatch(r.stderr, /\n\s+at /)
  })

  it('import prints what it stored per type', () => {
    const file = join(dir, 'good.ndjson')
    writeFileSync(file, JSON.stringify({ type: 'Справочник.Склады', ref: uuid('a'), Наименование: 'А' }) + '\n')
    const r = docgate(['import', '--db', db, file])
    assert.equal(r.status, 0, r.stderr)
    assert.match(r.stdout, /good\.ndjson: imported 1 objects\n {2}Справочник\.Склады: 1\n/)
  })

  it('a missing file is one clear line', () => {
    const r = docgate(['import', '--db', db, join(dir, 'nope.ndjson')])
    assert.equal(r.status, 1)
    assert.match(r.stderr, /^docgate: ENOENT: no such file or directory/)
    assert.doesNotMatch(r.stderr, /\n\s+at /)
  })

  it('several files: each reported in turn; a missing one stops the command there', () => {
    const good = join(dir, 'first.ndjson')
    const after = join(dir, 'after.ndjson')
    writeFileSync(good, JSON.stringify({ type: 'Справочник.Склады', ref: uuid('f1'), Наименование: 'Первый' }) + '\n')
    writeFileSync(after, JSON.stringify({ type: 'Справочник.Склады', ref: uuid('f2'), Наименование: 'После' }) + '\n')
    const r = spawnSync(process.execPath, ['bin/docgate.js', 'import', '--db', db, good, join(dir, 'gone.ndjson'), after], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, DOCGATE_DB: '' },
    })
    assert.equal(r.signal, null, 'still running after 30 s')
    assert.equal(r.status, 1)
    assert.match(r.stdout, /first\.ndjson: imported 1 objects\n {2}Справочник\.Склады: 1\n/)
    assert.doesNotMatch(r.stdout, /after\.ndjson/)
    assert.match(r.stderr, /^docgate: ENOENT: no such file or directory, open '.*gone\.ndjson'\n$/)
  })

  it('users add (Unicode name, password from stdin), list and revoke', () => {
    const add = docgate(['users', 'add', 'Ёлкина', '--db', db, '--methods', 'health,warehouses', '--password-stdin'], 'секрет\n')
    assert.equal(add.status, 0, add.stderr)
    assert.equal(add.stdout, 'user Ёлкина added (methods: health,warehouses)\n')
    const list = docgate(['users', 'list', '--db', db])
    assert.match(list.stdout, /^Ёлкина\thealth,warehouses\t\d{4}-\d\d-\d\dT/)
    assert.doesNotMatch(list.stdout, /scrypt|секрет/)
    const revoke = docgate(['users', 'revoke', 'Ёлкина', '--db', db])
    assert.equal(revoke.stdout, 'user Ёлкина revoked\n')
    assert.equal(docgate(['users', 'list', '--db', db]).stdout, '')
  })

  it('users add rejects unknown methods', () => {
    const r = docgate(['users', 'add', 'x', '--db', db, '--methods', 'warehouses,nothing', '--password-stdin'], 'p')
    assert.equal(r.status, 1)
    assert.match(r.stderr, /^docgate: unknown method\(s\) nothing; known: /)
  })

  it("serve fails fast with one line when the store does not exist, in sync's words (store missing)", () => {
    const r = docgate(['serve', '--db', join(dir, 'missing.db'), '--port', '0'])
    assert.equal(r.status, 1)
    assert.match(r.stderr, /^docgate: store missing: .*missing\.db\n$/)
  })
})
