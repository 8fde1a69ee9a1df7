// The words index of the specifications' ready materials rows (store/words.ts): each row
// kept again under every word of its item's folded code and name, carrying the printed row
// and its share, kept by the import with the rows; `material` of one word's characters
// reads the entries under the words that contain it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { readJoinedMaterials, readMatchingMaterials } from '../../src/endpoints/shared/spec-materials.js'
import { SPEC_MATERIAL_ROWS } from '../../src/endpoints/shared/spec-material-rows.js'
import { MATERIAL_ITEMS } from '../../src/endpoints/specifications.js'
import { isWordPart, joinInParts, readWordItems, vocabularyTable, wordItemsTable, wordsOf, wordsTable } from '../../src/store/words.js'
import { productionFixture, specificationsData } from '../fixtures/production.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'
import { uuid } from '../support/refs.js'

const q = encodeURIComponent
const WORDS = wordsTable(SPEC_MATERIAL_ROWS)
const VOCABULARY = vocabularyTable(SPEC_MATERIAL_ROWS)
const ITEMS = wordItemsTable('api_specifications')
const GENS = 'api_specifications__word_gens'

describe('words of a folded text', () => {
  it('are runs of letters and digits of three characters or more, each once', () => {
    assert.deepEqual(wordsOf('м-0004\nболт м12'), ['0004', 'болт', 'м12'])
    assert.deepEqual(wordsOf('э-0001\nкабель ввг 3х2,5'), ['0001', 'кабель', 'ввг', '3х2'])
    assert.deepEqual(wordsOf('кабель кабельный кабель'), ['кабель', 'кабельный'])
    assert.deepEqual(wordsOf('\n'), [])
    // Two characters written as four code units are still two.
    assert.deepEqual(wordsOf('𝟘𝟘 𝟘𝟘𝟘'), ['𝟘𝟘𝟘'])
  })

  it('items are joined by commas in parts of about the size asked, a comma never lost between parts', () => {
    const parts = (items: string[], size: number) =>
      joinInParts(
        items.map((i) => Buffer.from(i)),
        size,
      ).map((p) => p.toString())
    assert.deepEqual(parts(['{"a":1}', '{"b":2}', '{"c":3}'], 7), ['{"a":1}', ',{"b":2}', ',{"c":3}'])
    assert.deepEqual(parts(['{"a":1}', '{"b":2}', '{"c":3}'], 15), ['{"a":1},{"b":2}', ',{"c":3}'])
    assert.deepEqual(parts(['{"a":1}', '{"b":2}', '{"c":3}'], 1000), ['{"a":1},{"b":2},{"c":3}'])
    assert.deepEqual(parts([], 8), [])
  })

  it('a needle is looked up among them when it has no separator and three characters or more', () => {
    assert.equal(isWordPart('кабел'), true)
    assert.equal(isWordPart('000'), true)
    assert.equal(isWordPart('э-00'), false)
    assert.equal(isWordPart('ввг 3'), false)
    assert.equal(isWordPart('ка'), false)
    assert.equal(isWordPart('𝟘𝟘'), false)
  })
})

for (const backend of BACKENDS) {
  describe(`specifications: the words index of material rows (${backend})`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(productionFixture, { backend })
    })
    after(() => app.close())

    const vocabulary = async (): Promise<string[]> =>
      (await app.sql.all<{ word: string }>(`SELECT word FROM ${VOCABULARY}`)).map((r) => r.word).sort()
    /** Per specification under `word`: its entries' count and first and last lines. */
    const under = async (word: string): Promise<Map<string, [number, number, number]>> => {
      const rows = await app.sql.all<{ ref: string; n: number; first: number; last: number }>(
        `SELECT ref, COUNT(*) AS n, MIN(line) AS first, MAX(line) AS last FROM ${WORDS} WHERE word = ? GROUP BY ref`,
        [word],
      )
      return new Map(rows.map((r) => [r.ref, [Number(r.n), Number(r.first), Number(r.last)]]))
    }
    const materials = async (needle: string) => {
      const answer = (await app.api(`/main/hs/specifications/get?material=${q(needle)}`)).json
      assert.deepEqual(answer.errors, [])
      return answer.data.map((s: { Код: string; Материалы: { Код: string; Материал: string }[]; СуммаМатериалов: number }) => [
        s.Код,
        s.Материалы.map((r) => `${r.Код} ${r.Материал}`),
        s.СуммаМатериалов,
      ])
    }

    it('holds every word of the rows items, and each row under each of its words', async () => {
      assert.deepEqual(await vocabulary(), [
        '0001',
        '0002',
        '0003',
        '0004',
        '115',
        '3х2',
        'болт',
        'ввг',
        'кабель',
        'краска',
        'лист',
        'м12',
        'стальной',
        'труба',
      ])
      // The bolt rows: lines 1–5 of С-004, 1–10 of С-005, 1–21 of С-006, the deleted С-007's
      // one, and С-009's two after its dangling item (which has no words).
      assert.deepEqual(
        await under('болт'),
        new Map([
          [uuid('sp-bracket'), [5, 1, 5]],
          [uuid('sp-truss'), [10, 1, 10]],
          [uuid('sp-trestle'), [21, 1, 21]],
          [uuid('sp-archive'), [1, 1, 1]],
          [uuid('sp-beam'), [2, 2, 3]],
        ]),
      )
      const [entry] = await app.sql.all<{ short: Buffer | string; part: Buffer | string }>(
        `SELECT short, part FROM ${WORDS} WHERE word = ? AND ref = ?`,
        ['кабель', uuid('sp-shield')],
      )
      assert.equal(Buffer.from(entry!.part).toString(), '600')
      assert.deepEqual(JSON.parse(Buffer.from(entry!.short).toString()), {
        Код: 'Э-0001',
        Материал: 'Кабель ВВГ 3х2,5',
        Количество: 3,
        Единица: 'м',
        Цена: 200,
        Сумма: 600,
        НоменклатурнаяГруппа: 'Электротехника',
      })
    })

    /** The specifications' ready items under `word`, in the index's order: each one's code, rows and total. */
    const items = async (word: string) =>
      (
        await app.sql.all<{ item: Buffer | Uint8Array }>(`SELECT item FROM ${ITEMS} WHERE word = ? ORDER BY sort_name, code, ref`, [word])
      ).map((r) => {
        const s = JSON.parse(Buffer.from(r.item).toString()) as { Код: string; Материалы: { Код: string }[]; СуммаМатериалов: number }
        return [s.Код, s.Материалы.map((m) => m.Код), s.СуммаМатериалов]
      })

    it('keeps each specification ready under each word of its rows, in the list order, with those rows alone', async () => {
      // The deleted С-007 is in no list: its rows are under "болт", it has no item.
      assert.deepEqual(await items('болт'), [
        ['С-009', ['М-0004', 'М-0004'], 0.3],
        ['С-004', ['М-0004', 'М-0004', 'М-0004', 'М-0004', 'М-0004'], 150],
        ['С-005', Array(10).fill('М-0004'), 550],
        ['С-006', Array(21).fill('М-0004'), 2310],
      ])
      assert.deepEqual(await items('кабель'), [['С-002', ['Э-0001'], 600]])
      // A needle inside one word alone is that word's items, read as they are kept.
      const answer = (await app.api(`/main/hs/specifications/get?material=${q('болт')}`)).json
      const [first] = await app.sql.all<{ item: Buffer | Uint8Array }>(
        `SELECT item FROM ${ITEMS} WHERE word = ? ORDER BY sort_name, code, ref`,
        ['болт'],
      )
      assert.deepEqual(answer.data[0], JSON.parse(Buffer.from(first!.item).toString()))
      assert.deepEqual(
        (await materials('олт')).map((s: unknown[]) => s[0]),
        ['С-009', 'С-004', 'С-005', 'С-006'],
      )
    })

    it('reads the rows under every word that holds the needle, each row once', async () => {
      // "000" is in the four codes' words: every row with an item, as the page's own scan finds them.
      const read = await readMatchingMaterials(app.sql, '000')
      const owners = [...read.keys()]
      const scanned = await readJoinedMaterials(app.sql, owners, '000', undefined)
      assert.equal(owners.length, 8)
      for (const owner of owners) {
        const [one] = scanned(owner)
        assert.equal(read.get(owner)!.list!.toString(), one!.list!.toString(), owner)
        assert.equal(read.get(owner)!.parts!.toString(), one!.parts!.toString(), owner)
      }
      assert.equal(read.get(uuid('sp-trestle'))!.parts!.toString().split(',').length, 21)
      assert.deepEqual(await materials('краск'), [['С-001', ['М-0003 Краска ПФ-115'], 750]])
    })

    it("gives a new generation only to the words whose items change; PostgreSQL reads a word's items once per generation", async () => {
      const gens = async () =>
        new Map((await app.sql.all<{ word: string; gen: number }>(`SELECT word, gen FROM ${GENS}`)).map((r) => [r.word, Number(r.gen)]))
      const reads: string[] = []
      const sql = app.sql
      // Statements on the items, counted once where one method calls the other (PGlite's readBytes).
      let inside = false
      for (const method of ['all', 'readBytes'] as const) {
        const own = (sql[method] as (...a: unknown[]) => Promise<unknown>).bind(sql)
        Object.defineProperty(sql, method, {
          configurable: true,
          value: async (query: string, ...rest: unknown[]) => {
            if (inside) return own(query, ...rest)
            if (query.includes(ITEMS)) reads.push(query)
            inside = true
            try {
              return await own(query, ...rest)
            } finally {
              inside = false
            }
          },
        })
      }
      const text = async (word: string) =>
        Buffer.concat((await readWordItems(sql, 'api_specifications', MATERIAL_ITEMS, word)).items).toString()
      try {
        const bolts = await text('болт')
        const before = await gens()
        assert.deepEqual([...before.keys()].sort(), await vocabulary())
        const renamed = await app.importMore([
          {
            type: 'Справочник.Номенклатура',
            ref: uuid('n-paint'),
            Код: 'М-0003',
            Наименование: 'Краска ПФ-115 белая',
            ЭтоГруппа: false,
            ЕдиницаИзмерения: uuid('unit-kg'),
          },
        ])
        assert.equal(renamed.ok, true)
        const after = await gens()
        const changed = [...after.keys()].filter((w) => after.get(w) !== before.get(w)).sort()
        // С-001, the one specification holding the paint, is rebuilt: every word of its rows
        // (the pipe's М-0001 «Труба 57/3,5» too), and only those.
        assert.deepEqual(changed, ['0001', '0003', '115', 'белая', 'краска', 'труба'])
        reads.length = 0
        assert.match(await text('краска'), /Краска ПФ-115 белая/)
        assert.equal(reads.length, 1)
        assert.match(await text('краска'), /Краска ПФ-115 белая/)
        // Where docgate joins the items (PostgreSQL) it keeps them; SQLite joins them in one
        // value per request and keeps nothing.
        const keeps = sql.dialect.pageJoin === 'client'
        assert.equal(reads.length, keeps ? 1 : 2)
        // Joined for each request: no answer is kept.
        const [a, b] = [
          await readWordItems(sql, 'api_specifications', MATERIAL_ITEMS, 'краска'),
          await readWordItems(sql, 'api_specifications', MATERIAL_ITEMS, 'краска'),
        ]
        assert.notEqual(a.items[0], b.items[0])
        assert.equal(Buffer.concat(a.items).equals(Buffer.concat(b.items)), true)
        assert.equal(reads.length, keeps ? 1 : 4)
        // A word whose items stayed is not read again where they are kept.
        assert.equal(await text('болт'), bolts)
        assert.equal(reads.length, keeps ? 1 : 5)
      } finally {
        for (const method of ['all', 'readBytes']) Reflect.deleteProperty(sql, method)
      }
    })

    it('follows an import that renames an item and one that empties a specification', async () => {
      const renamed = await app.importMore([
        {
          type: 'Справочник.Номенклатура',
          ref: uuid('n-cable'),
          Код: 'Э-0001',
          Наименование: 'Кабель кабельный',
          ЭтоГруппа: false,
          ЕдиницаИзмерения: uuid('unit-m'),
        },
      ])
      assert.equal(renamed.ok, true)
      assert.deepEqual(await under('кабельный'), new Map([[uuid('sp-shield'), [1, 1, 1]]]))
      assert.deepEqual(await under('ввг'), new Map())
      assert.deepEqual(await items('кабельный'), [['С-002', ['Э-0001'], 600]])
      assert.deepEqual(await items('ввг'), [])
      // A row holding two words that contain the needle prints once.
      assert.deepEqual(await materials('кабел'), [['С-002', ['Э-0001 Кабель кабельный'], 600]])
      // A word no row holds any more stays in the vocabulary and finds nothing.
      assert.equal((await vocabulary()).includes('ввг'), true)
      assert.deepEqual(await materials('ввг'), [])

      const emptied = await app.importMore([
        {
          type: 'Справочник.СпецификацииНоменклатуры',
          ref: uuid('sp-trestle'),
          Код: 'С-006',
          Наименование: 'Эстакада',
          ЭтоГруппа: false,
          Материалы: [],
        },
      ])
      assert.equal(emptied.ok, true)
      assert.equal((await under('болт')).has(uuid('sp-trestle')), false)
      assert.deepEqual(
        (await items('болт')).map((s) => s[0]),
        ['С-009', 'С-004', 'С-005'],
      )
      assert.deepEqual(
        (await materials('болт')).map((s: unknown[]) => s[0]),
        ['С-009', 'С-004', 'С-005'],
      )

      // A renamed specification moves in the list: its items leave their old place.
      const beam = specificationsData.find((o) => o.ref === uuid('sp-beam'))!
      const moved = await app.importMore([{ ...beam, Наименование: 'Ящик' }])
      assert.equal(moved.ok, true)
      assert.deepEqual(await items('болт'), [
        ['С-004', ['М-0004', 'М-0004', 'М-0004', 'М-0004', 'М-0004'], 150],
        ['С-005', Array(10).fill('М-0004'), 550],
        ['С-009', ['М-0004', 'М-0004'], 0.3],
      ])
      assert.deepEqual(
        (await materials('болт')).map((s: unknown[]) => s[0]),
        ['С-004', 'С-005', 'С-009'],
      )
    })
  })
}
