import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { bound, boundTree } from '../../src/pipeline/bound.js'

async function* chunks(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8')
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size)
}
const texts = (rows: readonly Buffer[]) => rows.map((r) => r.toString('utf8'))

// Rows whose strings hold every byte the scanner treats specially: brackets, commas, quotes, escapes, Cyrillic.
const ROWS = [
  '{"Код":"A,1","Наименование":"Склад [север] {1}"}',
  '{"Код":"\\"2\\"","Наименование":"обратная \\\\ черта","Вложения":[{"ИмяФайла":"a]b"}]}',
  '{"Код":"3","Наименование":"ЦЕНТРАЛЬНЫЙ"}',
  '{"Код":"4","Наименование":""}',
]
const ENVELOPE = `{"data":[${ROWS.join(',')}],"errors":["Ошибка: документ 1","Неверный формат даты \\"x\\""]}`

describe('MCP: bounding an envelope', () => {
  it('keeps every row under the bound, whatever the chunk size', async () => {
    for (const size of [1, 2, 3, 7, 64, 10_000]) {
      const result = await bound(chunks(ENVELOPE, size))
      assert.deepEqual(texts(result.rows), ROWS, `chunk size ${size}`)
      assert.equal(result.total, 4)
      assert.equal(result.firstLeftOutBytes, undefined)
      assert.deepEqual(result.errors, ['Ошибка: документ 1', 'Неверный формат даты "x"'])
    }
  })

  it('keeps the first rows up to the row bound and counts the rest', async () => {
    for (const size of [1, 5, 10_000]) {
      const result = await bound(chunks(ENVELOPE, size), { rows: 2, bytes: 10_000 })
      assert.deepEqual(texts(result.rows), ROWS.slice(0, 2))
      assert.equal(result.total, 4)
      assert.equal(result.firstLeftOutBytes, Buffer.byteLength(ROWS[2]!))
      assert.equal(result.errors.length, 2)
    }
  })

  it('keeps the first rows up to the byte bound, contiguously', async () => {
    const [first, second, third, fourth] = ROWS.map((r) => Buffer.byteLength(r))
    // The fourth row would fit the bytes left, the third would not: rows are never skipped over.
    const room = fourth! + 1
    assert.ok(third! > room)
    const result = await bound(chunks(ENVELOPE, 3), { rows: 50, bytes: first! + second! + room })
    assert.deepEqual(texts(result.rows), ROWS.slice(0, 2))
    assert.equal(result.total, 4)
  })

  it('keeps no row when the first alone is over the byte bound, and says how large it is', async () => {
    const result = await bound(Buffer.from(ENVELOPE), { rows: 50, bytes: 10 })
    assert.deepEqual(result.rows, [])
    assert.equal(result.total, 4)
    assert.equal(result.firstLeftOutBytes, Buffer.byteLength(ROWS[0]!))
  })

  it('reads an empty answer and a computed (tree) answer', async () => {
    assert.deepEqual(await bound(Buffer.from('{"data":[],"errors":[]}')), { rows: [], total: 0, errors: [] })
    const tree = '{"data":[{"Наименование":"Группа","Дети":[{"Код":"1"},{"Код":"2"}]},{"Код":"3"}],"errors":[]}'
    const result = await bound(chunks(tree, 4))
    assert.deepEqual(texts(result.rows), ['{"Наименование":"Группа","Дети":[{"Код":"1"},{"Код":"2"}]}', '{"Код":"3"}'])
    assert.equal(result.total, 2)
  })
})

// A tree (materials): a top group two levels deep, then a top element; strings hold brackets and escapes.
const DEEP =
  '{"Код":"1","Наименование":"Металл [лист]","ЭтоГруппа":true,"Дети":[{"Код":"2","Наименование":"Сталь","ЭтоГруппа":true,"Дети":[{"Код":"3","Наименование":"Лист \\"А\\" ]","ЭтоГруппа":false}]},{"Код":"4","Наименование":"Пруток","ЭтоГруппа":false}]}'
const DEEP_CUT_2 =
  '{"Код":"1","Наименование":"Металл [лист]","ЭтоГруппа":true,"Дети":[{"Код":"2","Наименование":"Сталь","ЭтоГруппа":true,"Дети":[]},{"Код":"4","Наименование":"Пруток","ЭтоГруппа":false}]}'
const DEEP_CUT_1 = '{"Код":"1","Наименование":"Металл [лист]","ЭтоГруппа":true,"Дети":[]}'
const LEAF = '{"Код":"5","Наименование":"Болт","ЭтоГруппа":false}'
const TREE = `{"data":[${DEEP},${LEAF}],"errors":[]}`
const size = (...rows: string[]) => rows.reduce((n, r) => n + Buffer.byteLength(r), 0)

describe('MCP: bounding a tree', () => {
  it('keeps the tree whole when it fits', async () => {
    for (const chunk of [1, 3, 10_000]) {
      const result = await boundTree(chunks(TREE, chunk), { rows: 50, bytes: size(DEEP, LEAF) })
      assert.deepEqual(texts(result.rows), [DEEP, LEAF])
      assert.equal(result.total, 2)
      assert.equal(result.cutLevel, undefined)
    }
  })

  it('cuts children at the deepest level at which every top node fits, printing "Дети":[]', async () => {
    for (const chunk of [1, 2, 7, 10_000]) {
      const two = await boundTree(chunks(TREE, chunk), { rows: 50, bytes: size(DEEP_CUT_2, LEAF) })
      assert.deepEqual(texts(two.rows), [DEEP_CUT_2, LEAF], `chunk size ${chunk}`)
      assert.equal(two.cutLevel, 2)
      assert.equal(two.total, 2)
      assert.deepEqual(JSON.parse(`[${texts(two.rows).join(',')}]`)[0].Дети[0].Дети, [])
      const one = await boundTree(chunks(TREE, chunk), { rows: 50, bytes: size(DEEP_CUT_1, LEAF) })
      assert.deepEqual(texts(one.rows), [DEEP_CUT_1, LEAF])
      assert.equal(one.cutLevel, 1)
    }
  })

  it('with the row bound reached, cuts no deeper than it must for the rows it can show', async () => {
    const result = await boundTree(chunks(TREE, 5), { rows: 1, bytes: size(DEEP_CUT_2) })
    assert.deepEqual(texts(result.rows), [DEEP_CUT_2])
    assert.equal(result.total, 2)
    assert.equal(result.cutLevel, 2)
  })

  it('when not even the top node fits, keeps nothing and gives the size of the first one', async () => {
    const result = await boundTree(chunks(TREE, 4), { rows: 50, bytes: size(DEEP_CUT_1) - 1 })
    assert.deepEqual(result.rows, [])
    assert.equal(result.total, 2)
    assert.equal(result.firstLeftOutBytes, size(DEEP))
    assert.equal(result.cutLevel, undefined)
  })
})
