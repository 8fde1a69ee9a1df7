import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { reshaped } from '../../src/pipeline/output.js'

const ITEMS = [
  { Номер: 'А-1', Комментарий: 'скобки } ] { [ в строке', Вложенное: { Текст: 'кавычка \\" и \\\\' } },
  { Номер: 'А-2', Комментарий: 'обратная черта \\', Вложенное: { Текст: '"}"' } },
  { Номер: 'А-3', Комментарий: '', Вложенное: { Текст: 'ё' } },
]
const ENVELOPE = Buffer.from(JSON.stringify({ data: ITEMS, removed: [{ Номер: 'А-0', Дата: '01.01.2026' }], errors: ['ошибка'] }))

async function* slices(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size)
}

async function text(body: Buffer | AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = []
  for await (const part of reshaped(body, { format: 'json', fields: [['Номер'], ['Вложенное', 'Текст']] }, { fields: [] })) parts.push(part)
  return Buffer.concat(parts).toString()
}

describe('an answer read back item by item', () => {
  const expected = JSON.stringify({
    data: [
      { Номер: 'А-1', Вложенное: { Текст: 'кавычка \\" и \\\\' } },
      { Номер: 'А-2', Вложенное: { Текст: '"}"' } },
      { Номер: 'А-3', Вложенное: { Текст: 'ё' } },
    ],
    removed: [{ Номер: 'А-0', Дата: '01.01.2026' }],
    errors: ['ошибка'],
  })

  it('whole: brackets and escaped quotes inside strings do not end an item', async () => {
    assert.equal(await text(ENVELOPE), expected)
  })

  for (const size of [1, 2, 3, 7, 64]) {
    it(`in chunks of ${size} bytes, cut inside items, strings, escapes and letters: the same items`, async () => {
      assert.equal(await text(slices(ENVELOPE, size)), expected)
    })
  }

  it('an empty data array keeps the members after it', async () => {
    assert.equal(await text(Buffer.from('{"data":[],"errors":[]}')), '{"data":[],"errors":[]}')
  })

  it('a body that is not an answer envelope is refused', async () => {
    await assert.rejects(text(Buffer.from('[{"Номер":"А-1"}]')), /does not open with its data/)
  })
})
