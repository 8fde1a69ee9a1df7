import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EnvelopeScanner, EnvelopeStream } from '../src/envelope-stream.js'

const ITEMS = [
  { Номер: 'ЗР-0001', Комментарий: 'Оплата по счету №15', Вложения: [{ ИмяФайла: 'акт.txt', Данные: '0JDQutGC' }] },
  { Номер: 'ЗР-"2"', Комментарий: 'скобки ]}[{, запятые, кавычки \\" и \\\\', Сумма: 1500.5, Проведен: false },
  'строка',
  7,
  null,
  [1, [2, { a: [] }]],
]
const ERRORS = ['Неверный формат даты в параметре date: "31.02.2024" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)']
const BODY = JSON.stringify({ data: ITEMS, errors: ERRORS })
const bytes = new TextEncoder().encode(BODY)

function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(c)
      controller.close()
    },
  })
}

async function readAll<T>(stream: EnvelopeStream<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of stream) out.push(item)
  return out
}

describe('EnvelopeStream', () => {
  it('yields every item and then knows the errors, wherever the bytes are split (inside a Cyrillic letter, an escape, a key)', async () => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      const stream = new EnvelopeStream(streamOf([bytes.subarray(0, cut), bytes.subarray(cut)]))
      assert.deepEqual(await readAll(stream), ITEMS, `split at byte ${cut}`)
      assert.deepEqual(stream.errors, ERRORS, `split at byte ${cut}`)
    }
  })

  it('reads a body delivered one byte at a time', async () => {
    const stream = new EnvelopeStream(streamOf([...bytes].map((b) => Uint8Array.of(b))))
    assert.deepEqual(await readAll(stream), ITEMS)
    assert.deepEqual(stream.errors, ERRORS)
  })

  it('hands over the first item before the rest of the body has arrived', async () => {
    let sendRest!: () => void
    const first = new TextEncoder().encode('{"data":[{"Номер":"1"},')
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(first)
        sendRest = () => {
          controller.enqueue(new TextEncoder().encode('{"Номер":"2"}],"errors":[]}'))
          controller.close()
        }
      },
    })
    const stream = new EnvelopeStream<{ Номер: string }>(body)
    const it = stream[Symbol.asyncIterator]()
    assert.deepEqual(await it.next(), { value: { Номер: '1' }, done: false })
    assert.equal(stream.errors, undefined)
    sendRest()
    assert.deepEqual(await it.next(), { value: { Номер: '2' }, done: false })
    assert.deepEqual(await it.next(), { value: undefined, done: true })
    assert.deepEqual(stream.errors, [])
  })

  it('cancels the body when the reader stops early', async () => {
    let cancelled: unknown = 'no'
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"data":[1,2,'))
      },
      cancel(reason) {
        cancelled = reason
      },
    })
    const stream = new EnvelopeStream<number>(body)
    for await (const n of stream) if (n === 1) break
    assert.equal(cancelled, undefined)
    assert.equal(stream.errors, undefined)
    await assert.rejects(readAll(stream), { message: 'This answer has already been read' })
  })

  it('reads an empty data array', async () => {
    const stream = new EnvelopeStream(streamOf([new TextEncoder().encode('{"data":[],"errors":["a"]}')]))
    assert.deepEqual(await readAll(stream), [])
    assert.deepEqual(stream.errors, ['a'])
  })

  it('rejects a body that ends early or is no envelope', async () => {
    const cases: [string, string][] = [
      ['{"data":[{"a":1},{"a"', 'The answer ended before its envelope was complete'],
      ['{"data":[1,2],"errors":["x"', 'The answer ended before its envelope was complete'],
      ['{"data":[1,2]}', 'The answer has no errors array of strings'],
      ['{"data":[1,2],"errors":[3]}', 'The answer has no errors array of strings'],
      ['{"error":"Unauthorized"}', 'The answer has no data array'],
      ['{"data":[1,,2],"errors":[]}', 'The data array of the answer has an empty item'],
      ['{"data":[1,2,],"errors":[]}', 'The data array of the answer has an empty item'],
    ]
    for (const [text, message] of cases) {
      await assert.rejects(readAll(new EnvelopeStream(streamOf([new TextEncoder().encode(text)]))), { name: 'SyntaxError', message }, text)
    }
  })
})

describe('EnvelopeScanner', () => {
  it('finds data after errors too', () => {
    const scanner = new EnvelopeScanner()
    assert.deepEqual(scanner.push('{"errors":["e"],"data":[{"x":"[,]"},2]}'), [{ x: '[,]' }, 2])
    assert.deepEqual(scanner.end(), ['e'])
  })
})
