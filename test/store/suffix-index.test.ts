// The number lookup through the suffix index (issue 12: a document by its number): on every
// engine the bounded read answers exactly what the scan does — literal `%`, `_`, `\`,
// Cyrillic case folded, a needle found twice in one value, characters at the top of
// Unicode — it follows incremental imports without stale entries, and it is the suffix
// index that answers, not the trigram index or a scan.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { ENDPOINTS, READ_MODELS } from '../../src/endpoints/index.js'
import { importEntries } from '../../src/import/run.js'
import { fold } from '../../src/values/fold.js'
import type { Condition, QueryPlan } from '../../src/store/plan.js'
import { compileBoundedPage } from '../../src/store/select.js'
import type { SqlPort, SqlValue } from '../../src/store/sql.js'
import { prefixEnd, suffixTable, suffixesOf } from '../../src/store/suffix.js'
import { RUNS, SEED } from '../fuzz/config.js'
import { BACKENDS, createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'
import { uuid } from '../support/refs.js'

const warehouse = (key: string, code: string) => ({
  type: 'Справочник.Склады',
  ref: uuid(key),
  Код: code,
  Наименование: `Склад ${key}`,
  ЭтоГруппа: false,
})
const entries = (objects: readonly unknown[]) => objects.map((value, i) => ({ line: i + 1, value }))

const CODES: Record<string, string> = {
  plain: '000000017',
  number: 'ЗР-000451',
  twice: 'ааа-ааа',
  run: 'аааа',
  literal: '10%_\\x',
  top: 'x\u{10FFFF}y',
  tops: 'ab\u{10FFFF}\u{10FFFF}',
  short: 'ab',
  empty: '',
}

const CAP = 50

/** More codes sharing `мн-` than a bounded lookup takes. */
const MANY: Record<string, string> = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`m${i}`, `мн-${String(i).padStart(4, '0')}`]))

/** The codes (by fixture key) a bounded lookup of `needle` answers, and how many candidates it read. */
async function lookup(sql: SqlPort, needle: string, suffixed = true): Promise<{ keys: string[]; n: number; cands: number }> {
  const c: Condition & { kind: 'contains' } = { kind: 'contains', column: 'code_f', value: fold(needle), indexed: true, suffixed }
  const plan: QueryPlan = { source: 'api_warehouses', columns: ['ref', 'short'], where: [c], orderBy: [{ column: 'ref', dir: 'asc' }] }
  const compiled = compileBoundedPage(plan, sql.dialect, c, CAP)
  assert.ok(compiled)
  const [row] = await sql.all<{ body: unknown; n: number; cands: number }>(compiled.sql, compiled.params)
  const body = sql.dialect.bytes.value(row?.body)
  const forms = body === null ? [] : (JSON.parse(`[${body.toString('utf8')}]`) as { Наименование: string }[])
  return { keys: forms.map((f) => f.Наименование.replace('Склад ', '')).sort(), n: Number(row?.n), cands: Number(row?.cands) }
}

const expected = (codes: Record<string, string>, needle: string): string[] =>
  Object.entries(codes)
    .filter(([, code]) => fold(code).includes(fold(needle)))
    .map(([k]) => k)
    .sort()

/** Entries the suffix table should hold for `codes`: a value of n ≥ 3 characters has n − 2 suffixes. */
const entriesFor = (codes: Record<string, string>): number =>
  Object.values(codes).reduce((sum, c) => sum + Math.max(0, [...c].length - 2), 0)

describe('prefixEnd: the least string above every string a prefix starts', () => {
  it('raises the last character, past U+10FFFF and the surrogates', () => {
    assert.equal(prefixEnd('019151'), '019152')
    assert.equal(prefixEnd('зр-'), 'зр.')
    assert.equal(prefixEnd('я'), 'ѐ')
    assert.equal(prefixEnd('a\u{10FFFF}'), 'b')
    assert.equal(prefixEnd('ab\u{10FFFF}\u{10FFFF}'), 'ac')
    assert.equal(prefixEnd('a\uD7FF'), 'a\uE000')
    assert.equal(prefixEnd('a\u{1D538}'), 'a\u{1D539}')
    assert.equal(prefixEnd('\u{10FFFF}\u{10FFFF}'), null)
  })
})

describe('suffixesOf: the entries of one value', () => {
  it('every suffix of 3+ characters, counting a character beyond U+FFFF as one', () => {
    assert.deepEqual(suffixesOf('зр-0451'), ['зр-0451', 'р-0451', '-0451', '0451', '451'])
    assert.deepEqual(suffixesOf('x\u{10FFFF}y'), ['x\u{10FFFF}y'])
    assert.deepEqual(suffixesOf('ab\u{10FFFF}\u{1D538}'), ['ab\u{10FFFF}\u{1D538}', 'b\u{10FFFF}\u{1D538}'])
    assert.deepEqual(suffixesOf('ab'), [])
    assert.deepEqual(suffixesOf(''), [])
  })
})

describe('which columns have a suffix index', () => {
  it("every document list's and catalogue's `code` and no other filter", () => {
    const suffixed = Object.fromEntries(READ_MODELS.filter((m) => m.suffixed).map((m) => [m.table, m.suffixed]))
    assert.deepEqual(suffixed, {
      api_payments: ['number_f'],
      api_receipts: ['number_f'],
      api_orders: ['number_f'],
      api_sorders: ['number_f'],
      api_specifications: ['code_f'],
      api_transfers: ['number_f'],
      api_morders: ['number_f'],
      api_demands: ['number_f'],
      api_warehouses: ['code_f'],
    })
    for (const ep of ENDPOINTS) {
      for (const p of ep.params)
        if (p.stage === 'database' && p.match === 'contains' && p.identifier) assert.equal(p.name, 'code', ep.service)
    }
  })
})

for (const backend of BACKENDS) {
  describe(`${backend}: the number lookup through the suffix index`, () => {
    let store: TestStore
    before(async () => {
      store = await createTestStore(backend)
      const report = await importEntries(store.writer, entries(Object.entries(CODES).map(([k, c]) => warehouse(k, c))))
      assert.equal(report.ok, true)
    })
    after(async () => {
      await store.writer.close()
      await store.cleanup()
    })

    const CASES: readonly [string, readonly string[]][] = [
      ['000', ['number', 'plain']],
      ['017', ['plain']],
      ['0000000017', []],
      ['зр-', ['number']],
      ['ЗР-000451', ['number']],
      ['р-0', ['number']],
      ['ааа', ['run', 'twice']],
      ['А-А', ['twice']],
      ['%_\\', ['literal']],
      ['0%_', ['literal']],
      ['_\\x', ['literal']],
      ['x\u{10FFFF}', ['top']],
      ['x\u{10FFFF}y', ['top']],
      ['b\u{10FFFF}\u{10FFFF}', ['tops']],
      ['zzz', []],
    ]
    for (const [needle, keys] of CASES) {
      it(`${JSON.stringify(needle)} finds ${JSON.stringify(keys)}, each once, as the scan does`, async () => {
        const found = await lookup(store.writer, needle)
        assert.deepEqual(found.keys, keys)
        assert.equal(found.n, keys.length)
        assert.deepEqual(found.keys, expected(CODES, needle))
        // Candidates are rows, not index entries: `ааа` is twice in one code, and three times in `аааа`.
        assert.equal(found.cands, keys.length)
      })
    }

    it('holds one entry per suffix of 3+ characters', async () => {
      const [row] = await store.writer.all<{ n: number }>(`SELECT count(*) AS n FROM ${suffixTable('api_warehouses', 'code_f')}`)
      assert.equal(Number(row!.n), 28)
      assert.equal(entriesFor(CODES), 28)
    })

    it('is what answers: the suffix table, not the trigram index', async () => {
      const c: Condition & { kind: 'contains' } = { kind: 'contains', column: 'code_f', value: '017', indexed: true, suffixed: true }
      const compiled = compileBoundedPage(
        { source: 'api_warehouses', columns: [], where: [c], orderBy: [{ column: 'ref', dir: 'asc' }] },
        store.writer.dialect,
        c,
        CAP,
      )!
      assert.match(compiled.sql, /FROM api_warehouses__code_f__suf WHERE suffix >= \? AND suffix < \? LIMIT 51/)
      assert.doesNotMatch(compiled.sql, /__trgm|MATCH|LIKE/)
      if (backend === 'sqlite') {
        const plan = (await store.writer.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${compiled.sql}`, compiled.params)).map(
          (r) => r.detail,
        )
        assert.ok(
          plan.some((d) => d.includes('SEARCH api_warehouses__code_f__suf USING PRIMARY KEY (suffix>? AND suffix<?)')),
          plan.join('\n'),
        )
      }
    })

    it('counts more than the cap as more: the caller then reads elsewhere', async () => {
      const report = await importEntries(store.writer, entries(Object.entries(MANY).map(([k, c]) => warehouse(k, c))))
      assert.equal(report.ok, true)
      assert.equal((await lookup(store.writer, 'мн-')).cands, CAP + 1)
      assert.deepEqual((await lookup(store.writer, 'мн-005')).keys, Array.from({ length: 10 }, (_, i) => `m${50 + i}`).sort())
    })

    it('follows incremental imports: a changed code leaves no entry behind', async () => {
      const report = await importEntries(store.writer, entries([warehouse('plain', 'ЗР-000999'), warehouse('new', 'нов-017')]))
      assert.equal(report.ok, true)
      assert.deepEqual((await lookup(store.writer, '0000000')).keys, [])
      assert.deepEqual((await lookup(store.writer, 'зр-000')).keys, ['number', 'plain'])
      assert.deepEqual((await lookup(store.writer, '-017')).keys, ['new'])
      const [row] = await store.writer.all<{ n: number }>(`SELECT count(*) AS n FROM ${suffixTable('api_warehouses', 'code_f')}`)
      assert.equal(Number(row!.n), entriesFor({ ...CODES, ...MANY, plain: 'ЗР-000999', new: 'нов-017' }))
    })

    it("keeps the entries of a row rebuilt with its code unchanged; a removed row's go", async () => {
      const changed = { DELETE: 0, INSERT: 0 }
      const spy = new Proxy(store.writer, {
        get(target, key) {
          if (key === 'run') {
            return async (text: string, params?: readonly SqlValue[]) => {
              const n = await target.run(text, params)
              if (text.startsWith('DELETE FROM api_warehouses__code_f__suf')) changed.DELETE += n
              return n
            }
          }
          if (key === 'insertRows') {
            return async (table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]) => {
              if (table === 'api_warehouses__code_f__suf') changed.INSERT += rows.length
              return target.insertRows(table, columns, rows)
            }
          }
          const value: unknown = Reflect.get(target, key, target)
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
      const run = async (objects: readonly unknown[]) => {
        changed.DELETE = changed.INSERT = 0
        assert.equal((await importEntries(spy, entries(objects))).ok, true)
        return { ...changed }
      }
      // Rebuilt (stored again), code as it was: its 7 entries stay where they are.
      assert.deepEqual(await run([warehouse('number', 'ЗР-000451')]), { DELETE: 0, INSERT: 0 })
      assert.deepEqual((await lookup(store.writer, 'р-0004')).keys, ['number'])
      // `нов-017`: 5 entries, gone with the row and back with it.
      assert.deepEqual(await run([{ type: 'Справочник.Склады', ref: uuid('new'), deleted: true }]), { DELETE: 5, INSERT: 0 })
      assert.deepEqual((await lookup(store.writer, '-017')).keys, [])
      assert.deepEqual(await run([warehouse('new', 'нов-017')]), { DELETE: 0, INSERT: 5 })
      assert.deepEqual((await lookup(store.writer, '-017')).keys, ['new'])
      // A new value sharing suffixes with the old one (`-00017`, `00017`, `0017`, `017`): all 6 go, then 6 come.
      assert.deepEqual(await run([warehouse('shared', 'АБ-00017')]), { DELETE: 0, INSERT: 6 })
      assert.deepEqual(await run([warehouse('shared', 'ВГ-00017')]), { DELETE: 6, INSERT: 6 })
      assert.deepEqual((await lookup(store.writer, 'аб-')).keys, [])
      assert.deepEqual((await lookup(store.writer, 'г-000')).keys, ['shared'])
      assert.deepEqual((await lookup(store.writer, '00017')).keys, ['shared'])
      const [row] = await store.writer.all<{ n: number }>(`SELECT count(*) AS n FROM ${suffixTable('api_warehouses', 'code_f')}`)
      assert.equal(Number(row!.n), entriesFor({ ...CODES, ...MANY, plain: 'ЗР-000999', new: 'нов-017', shared: 'ВГ-00017' }))
    })

    it('property: the bounded lookup equals an in-memory substring scan', async () => {
      const unit = fc.constantFrom('а', 'А', 'ё', 'Ё', 'е', '%', '_', '\\', '-', '0', '1', 'a', 'B', '\u{10FFFF}', '\u{1D538}', '\uFFFF')
      const codes = fc.sample(fc.string({ unit, minLength: 0, maxLength: 9 }), { numRuns: 40, seed: SEED })
      const fixture = Object.fromEntries(codes.map((c, i) => [`p${i}`, c]))
      const report = await importEntries(store.writer, entries(Object.entries(fixture).map(([k, c]) => warehouse(k, c))))
      assert.equal(report.ok, true)
      const all = { ...CODES, ...MANY, plain: 'ЗР-000999', new: 'нов-017', shared: 'ВГ-00017', ...fixture }
      const needle = fc.oneof(
        fc.string({ unit, minLength: 3, maxLength: 5 }),
        fc
          .tuple(fc.constantFrom(...codes.filter((c) => [...c].length >= 3)), fc.nat(), fc.integer({ min: 3, max: 6 }), fc.boolean())
          .map(([c, at, len, upper]) => {
            const chars = [...c]
            const from = at % Math.max(1, chars.length - 2)
            const piece = chars.slice(from, from + len).join('')
            return upper ? piece.toUpperCase() : piece
          })
          .filter((p) => [...p].length >= 3),
      )
      await fc.assert(
        fc.asyncProperty(needle, async (n) => {
          const want = expected(all, n)
          const found = await lookup(store.writer, n)
          if (found.cands > CAP) assert.ok(want.length > CAP)
          else {
            assert.deepEqual(found.keys, want)
            assert.equal(found.cands, want.length)
            // The trigram index's bounded read answers the same (its candidates may over-count).
            const trigram = await lookup(store.writer, n, false)
            if (trigram.cands <= CAP) assert.deepEqual(trigram.keys, want)
          }
        }),
        { numRuns: RUNS },
      )
    })
  })
}
