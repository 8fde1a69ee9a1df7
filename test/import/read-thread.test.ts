// read.ts: lines read, parsed and validated in the checking thread arrive as the calling
// thread's own validation would make them, in line order, for every kind of line.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { demoFiles } from '../../src/demo/generate.js'
import { readEntries, readFiles } from '../../src/import/read.js'
import type { Entry } from '../../src/import/read.js'
import { validate } from '../../src/import/validate.js'
import { uuid } from '../support/refs.js'
import { tempDir } from '../support/stores.js'

const W = 'Справочник.Склады'
const wh = (key: string, name: string) => ({ type: W, ref: uuid(key), Код: key, Наименование: name })

async function all(path: string): Promise<Entry[]> {
  const out: Entry[] = []
  for await (const e of readEntries(path)) out.push(e)
  return out
}

describe('import lines checked in a thread of their own', () => {
  const dir = tempDir()

  it('every demo line arrives as validate makes it: declarations, tabular parts, records, attachment bytes', async () => {
    let upserts = 0
    let records = 0
    let blobs = 0
    for (const file of demoFiles({ scale: 1, seed: 1 })) {
      const lines = [...file.objects()].map((o) => JSON.stringify(o))
      const path = join(dir, `${file.name}.ndjson`)
      writeFileSync(path, lines.join('\n') + '\n')
      const entries = await all(path)
      assert.deepEqual(
        entries.map((e) => e.line),
        lines.map((_, i) => i + 1),
        file.name,
      )
      for (const [i, e] of entries.entries()) {
        assert.ok('checked' in e, `${file.name}:${i + 1}`)
        const expected = validate(JSON.parse(lines[i]!))
        assert.deepStrictEqual(e.checked, expected, `${file.name}:${i + 1}`)
        if (!e.checked.ok || !expected.ok) continue
        const op = e.checked.operation
        // The declaration is the module's own object, not a copy.
        if (op.op !== 'delete') assert.equal(op.decl, (expected.operation as typeof op).decl)
        if (op.op === 'records') records++
        if (op.op === 'upsert') {
          upserts++
          for (const data of op.blobs.values()) {
            assert.ok(Buffer.isBuffer(data))
            blobs++
          }
        }
      }
    }
    assert.ok(upserts > 1000 && records > 1000 && blobs > 100, `${upserts} upserts, ${records} record sets, ${blobs} attachments`)
  })

  it('invalid lines keep their numbers and reasons; blank lines are skipped', async () => {
    const path = join(dir, 'mixed.ndjson')
    writeFileSync(
      path,
      [
        JSON.stringify(wh('a', 'А')),
        '{"type": oops}',
        '',
        JSON.stringify({ type: W, ref: 'x' }),
        JSON.stringify({ type: W, ref: uuid('b'), deleted: true }),
      ].join('\n'),
    )
    const entries = await all(path)
    assert.equal(entries.length, 4)
    assert.deepEqual(
      entries.map((e) => e.line),
      [1, 2, 4, 5],
    )
    assert.match((entries[1] as { error: string }).error, /^not JSON: /)
    assert.deepEqual((entries[2] as { checked: unknown }).checked, { ok: false, type: W, ref: 'x', reasons: ['"ref" is not a UUID: "x"'] })
    assert.deepEqual((entries[3] as { checked: unknown }).checked, {
      ok: true,
      unknownKeys: [],
      operation: { op: 'delete', type: W, ref: uuid('b') },
    })
  })

  it('a file that cannot be read fails the reading with the system message and code', async () => {
    const path = join(dir, 'absent.ndjson')
    await assert.rejects(all(path), (err: NodeJS.ErrnoException) => {
      assert.equal(err.code, 'ENOENT')
      assert.equal(err.message, `ENOENT: no such file or directory, open '${path}'`)
      return true
    })
  })

  it('a reader that stops early releases the thread: the next file is read whole', async () => {
    const big = join(dir, 'big.ndjson')
    writeFileSync(big, Array.from({ length: 5000 }, (_, i) => JSON.stringify(wh(`k${i}`, `Склад ${i}`))).join('\n'))
    for await (const e of readEntries(big)) {
      assert.equal(e.line, 1)
      break
    }
    const entries = await all(big)
    assert.equal(entries.length, 5000)
    assert.deepEqual(entries.at(-1), { line: 5000, checked: validate(wh('k4999', 'Склад 4999')) })
  })

  it('a reader closed before its end fails whoever reads it on, never ends as if the file ended', async () => {
    const path = join(dir, 'closed.ndjson')
    writeFileSync(path, Array.from({ length: 3000 }, (_, i) => JSON.stringify(wh(`c${i}`, `Ц ${i}`))).join('\n'))
    const reader = readEntries(path)
    reader.close()
    const seen: number[] = []
    await assert.rejects(
      (async () => {
        for await (const e of reader) seen.push(e.line)
      })(),
      { message: `the reading of ${path} was stopped` },
    )
    assert.deepEqual(seen, [])
  })

  it('two files read at once each get their own lines', async () => {
    const a = join(dir, 'a.ndjson')
    const b = join(dir, 'b.ndjson')
    writeFileSync(a, Array.from({ length: 1200 }, (_, i) => JSON.stringify(wh(`a${i}`, `А ${i}`))).join('\n'))
    writeFileSync(b, Array.from({ length: 900 }, (_, i) => JSON.stringify(wh(`b${i}`, `Б ${i}`))).join('\n'))
    const [ea, eb] = await Promise.all([all(a), all(b)])
    const names = (es: Entry[]) =>
      es.map((e) => ('checked' in e && e.checked.ok && e.checked.operation.op === 'upsert' ? e.checked.operation.presentation : '?'))
    assert.deepEqual(
      names(ea),
      Array.from({ length: 1200 }, (_, i) => `А ${i}`),
    )
    assert.deepEqual(
      names(eb),
      Array.from({ length: 900 }, (_, i) => `Б ${i}`),
    )
  })

  it('files read in turn: each its own lines, an unreadable one fails alone, the next still read', async () => {
    const paths = ['one', 'absent', 'two'].map((n) => join(dir, `turn-${n}.ndjson`))
    writeFileSync(paths[0]!, Array.from({ length: 700 }, (_, i) => JSON.stringify(wh(`o${i}`, `Один ${i}`))).join('\n'))
    writeFileSync(paths[2]!, JSON.stringify(wh('t', 'Два')))
    const outcomes: (number | string)[] = []
    for (const entries of readFiles(paths)) {
      try {
        let n = 0
        for await (const _ of entries) n++
        outcomes.push(n)
      } catch (err) {
        outcomes.push((err as NodeJS.ErrnoException).code!)
      }
    }
    assert.deepEqual(outcomes, [700, 'ENOENT', 1])
  })

  it('a reader made and never read does not keep the process alive', () => {
    const path = join(dir, 'unread.ndjson')
    writeFileSync(path, Array.from({ length: 3000 }, (_, i) => JSON.stringify(wh(`u${i}`, `У ${i}`))).join('\n'))
    const module = new URL('../../src/import/read.js', import.meta.url).href
    const script = `const { readEntries } = await import(${JSON.stringify(module)}); readEntries(${JSON.stringify(path)}); console.log('made')`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 })
    assert.equal(r.signal, null, 'still running after 20 s')
    assert.equal(r.status, 0, r.stderr)
    assert.equal(r.stdout, 'made\n')
  })
})
