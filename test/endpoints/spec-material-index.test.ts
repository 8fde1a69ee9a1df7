// The index from a material's text to the specifications whose rows hold it: the trigram
// index of the ready rows' `material_f` (api_spec_material_rows), kept by the import in the
// transaction that changes a row or what it prints, read by `material` without `full`.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { readMatchingMaterials, specsWithMaterial } from '../../src/endpoints/shared/spec-materials.js'
import { SPEC_MATERIAL_ROWS } from '../../src/endpoints/shared/spec-material-rows.js'
import { missingTrigramIndexes } from '../../src/store/trigram.js'
import { productionFixture } from '../fixtures/production.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { uuid } from '../support/refs.js'

const refs = (...keys: string[]) => keys.map((k) => uuid(k)).sort()
const codes = async (app: TestApp, query: string): Promise<string[]> => {
  const answer = (await app.api(`/main/hs/specifications/get?${query}`)).json
  assert.deepEqual(answer.errors, [])
  return answer.data.map((s: { Код: string }) => s.Код)
}
const q = encodeURIComponent
const row = (item: string, Количество: number) => ({
  Номенклатура: uuid(item),
  Количество,
  ЕдиницаИзмерения: uuid('unit-pcs'),
  Цена: 10,
  Сумма: Количество * 10,
})

for (const backend of BACKENDS) {
  describe(`specifications: the index of material texts (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend })
    })
    after(() => app.close())

    it('is a trigram index of the ready rows, and names the specifications whose rows hold a word', async () => {
      assert.deepEqual(await missingTrigramIndexes(app.sql, [{ table: SPEC_MATERIAL_ROWS, search: ['material_f'] }]), [])
      // Болт М12 is in С-004, С-005, С-006, С-009 and the deleted С-007 (which the list leaves out).
      assert.deepEqual(await specsWithMaterial(app.sql, 'Болт'), refs('sp-bracket', 'sp-truss', 'sp-trestle', 'sp-archive', 'sp-beam'))
      assert.deepEqual(await codes(app, `material=${q('Болт')}`), ['С-009', 'С-004', 'С-005', 'С-006'])
      // Codes and names alike, any part of a word, folded (ё as е, any case).
      assert.deepEqual(await specsWithMaterial(app.sql, 'э-00'), refs('sp-shield'))
      assert.deepEqual(await specsWithMaterial(app.sql, 'ВВГ 3'), refs('sp-shield'))
      assert.deepEqual(await specsWithMaterial(app.sql, 'сталь'), refs('sp-truss', 'sp-support-2'))
      // Fewer than three characters have no trigram: the same answer by a scan.
      assert.deepEqual(await specsWithMaterial(app.sql, '12'), refs('sp-bracket', 'sp-truss', 'sp-trestle', 'sp-archive', 'sp-beam'))
      assert.deepEqual(await specsWithMaterial(app.sql, 'провод'), [])
      // A needle spanning a code and a name is not a lookup of the index.
      await assert.rejects(specsWithMaterial(app.sql, '0001\nкабель'), RangeError)
    })

    it('reads the matching rows first, by specification: their refs are what the list selects', async () => {
      const read = await readMatchingMaterials(app.sql, 'болт')
      // Each specification's shares of СуммаМатериалов, of its bolt rows only, in line order:
      // С-005's sheet row is not among them; the deleted С-007 is read, and the list leaves it out.
      const tens = (n: number) => Array.from({ length: n }, (_, i) => (i + 1) * 10).join(',')
      assert.deepEqual(
        new Map([...read].map(([ref, joined]) => [ref, joined.parts?.toString('utf8')])),
        new Map([
          [uuid('sp-archive'), '10'],
          [uuid('sp-bracket'), tens(5)],
          [uuid('sp-truss'), tens(10)],
          [uuid('sp-trestle'), tens(21)],
          [uuid('sp-beam'), '0.1,0.2'],
        ]),
      )
      const beam = JSON.parse(`[${read.get(uuid('sp-beam'))!.list!.toString('utf8')}]`)
      assert.deepEqual(
        beam.map((r: { Код: string; Сумма: number }) => [r.Код, r.Сумма]),
        [
          ['М-0004', 0.1],
          ['М-0004', 0.2],
        ],
      )
      assert.deepEqual(await readMatchingMaterials(app.sql, 'провод'), new Map())
      // The same specifications as the list, in its order (Наименование, case-insensitive).
      assert.deepEqual(await codes(app, `material=${q('болт')}`), ['С-009', 'С-004', 'С-005', 'С-006'])
      // Narrowed by a name, the list selects through the index in the statement instead.
      assert.deepEqual(await codes(app, `material=${q('болт')}&name=${q('ферм')}`), ['С-005'])
    })

    it('selects by the list of refs read, given as one parameter, quotes and backslashes kept', async () => {
      const d = app.sql.dialect
      const list = d.inList('ref', [uuid('sp-beam'), 'a"b\\c', uuid('sp-truss')])
      assert.deepEqual(
        list.params,
        d.name === 'sqlite'
          ? [`["${uuid('sp-beam')}","a\\"b\\\\c","${uuid('sp-truss')}"]`]
          : [`{"${uuid('sp-beam')}","a\\"b\\\\c","${uuid('sp-truss')}"}`],
      )
      const found = await app.sql.all<{ code: string }>(`SELECT code FROM api_specifications WHERE ${list.text} ORDER BY code`, list.params)
      assert.deepEqual(
        found.map((r) => r.code),
        ['С-005', 'С-009'],
      )
      const none = d.inList('ref', [])
      assert.deepEqual(await app.sql.all(`SELECT code FROM api_specifications WHERE ${none.text}`, none.params), [])
    })

    it('follows an import that changes a materials row, and one that renames its item', async () => {
      // С-002's cable row becomes a bolt row; С-010 gets a cable row beside its sheet.
      const report = await app.importMore([
        {
          type: 'Справочник.СпецификацииНоменклатуры',
          ref: uuid('sp-shield'),
          Код: 'С-002',
          Наименование: 'Щит распределительный',
          ЭтоГруппа: false,
          Материалы: [row('n-bolt', 3)],
        },
        {
          type: 'Справочник.СпецификацииНоменклатуры',
          ref: uuid('sp-support-2'),
          Код: 'С-010',
          Наименование: 'Опора',
          ЭтоГруппа: false,
          Материалы: [row('n-sheet', 2), row('n-cable', 7)],
        },
      ])
      assert.equal(report.ok, true)
      assert.deepEqual(await specsWithMaterial(app.sql, 'кабель'), refs('sp-support-2'))
      assert.deepEqual(
        await specsWithMaterial(app.sql, 'болт'),
        refs('sp-bracket', 'sp-truss', 'sp-trestle', 'sp-archive', 'sp-beam', 'sp-shield'),
      )
      assert.deepEqual(await codes(app, `material=${q('кабель')}`), ['С-010'])
      // The pipe is renamed: С-001's row now holds "кабель" though the specification is unchanged.
      const renamed = await app.importMore([
        {
          type: 'Справочник.Номенклатура',
          ref: uuid('n-pipe'),
          Код: 'М-0001',
          Наименование: 'Кабель-канал 57',
          ЭтоГруппа: false,
          ЕдиницаИзмерения: uuid('unit-m'),
        },
      ])
      assert.equal(renamed.ok, true)
      assert.deepEqual(await specsWithMaterial(app.sql, 'кабель'), refs('sp-frame', 'sp-support-2'))
      assert.deepEqual(await specsWithMaterial(app.sql, 'труба'), [])
      assert.deepEqual(await codes(app, `material=${q('кабель')}`), ['С-010', 'С-001'])
    })

    it('selects more than a thousand specifications read by a scan of the list order, which carries the short forms on SQLite', async () => {
      const before = await codes(app, `material=${q('болт')}`)
      const many = Array.from({ length: 1001 }, (_, i) => `Я-${String(i + 1).padStart(4, '0')}`)
      const report = await app.importMore(
        many.map((code, i) => ({
          type: 'Справочник.СпецификацииНоменклатуры',
          ref: uuid(`sp-many-${i}`),
          Код: code,
          Наименование: `Ярус ${code}`,
          ЭтоГруппа: false,
          Материалы: [row('n-sheet', 1), row('n-bolt', i + 1)],
        })),
      )
      assert.equal(report.ok, true)
      // "Ярус" sorts after every name of the fixture; each prints its bolt row only.
      const answer = (await app.api(`/main/hs/specifications/get?material=${q('болт')}`)).json
      assert.deepEqual(answer.errors, [])
      assert.deepEqual(
        answer.data.map((s: { Код: string }) => s.Код),
        [...before, ...many],
      )
      const last = answer.data.at(-1)
      assert.deepEqual(
        last.Материалы.map((r: { Код: string; Количество: number; Сумма: number }) => [r.Код, r.Количество, r.Сумма]),
        [['М-0004', 1001, 10010]],
      )
      assert.equal(last.СуммаМатериалов, 10010)
      const d = app.sql.dialect
      const scan = d.inList('ref', [uuid('sp-many-0')], true)
      if (d.name === 'sqlite') {
        assert.equal(scan.text, '+ref IN (SELECT value FROM json_each(?))')
        const plan = await app.sql.all<{ detail: string }>(
          `EXPLAIN QUERY PLAN SELECT ref, short FROM api_specifications WHERE ${scan.text} ORDER BY sort_name, code, ref`,
          scan.params,
        )
        assert.deepEqual(
          plan.filter((p) => p.detail.includes('api_specifications')).map((p) => p.detail),
          ['SCAN api_specifications USING COVERING INDEX api_specifications__sort_name_code_ref_short'],
        )
      } else assert.equal(scan.text, 'ref = ANY(?::text[])')
      const found = await app.sql.all<{ code: string }>(`SELECT code FROM api_specifications WHERE ${scan.text}`, scan.params)
      assert.deepEqual(
        found.map((r) => r.code),
        ['Я-0001'],
      )
    })
  })
}
