import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { bound } from '../../src/mcp/bound.js'

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
