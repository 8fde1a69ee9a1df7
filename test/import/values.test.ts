// data-format.md § Values: an attachment's content is padded Base64 and nothing else.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Attr } from '../../src/model/define.js'
import type { SqlValue } from '../../src/store/sql.js'
import { storeValue, ValueError } from '../../src/import/values.js'

const DATA: Attr = { name: 'Данные', col: 'data', kind: 'base64' }

function store(value: unknown): { size: SqlValue; bytes: Buffer } {
  const out: SqlValue[] = []
  const blobs = new Map<string, Buffer>()
  storeValue(DATA, value, out, [], blobs)
  return { size: out[0]!, bytes: blobs.get('data')! }
}

describe('import values: Base64 content', () => {
  it('decodes padded Base64 of every length into its bytes and size', () => {
    assert.deepEqual(store(''), { size: 0, bytes: Buffer.alloc(0) })
    assert.deepEqual(store('QQ=='), { size: 1, bytes: Buffer.from('A') })
    assert.deepEqual(store('QUI='), { size: 2, bytes: Buffer.from('AB') })
    assert.deepEqual(store('QUJD'), { size: 3, bytes: Buffer.from('ABC') })
    assert.deepEqual(store('+/+/'), { size: 3, bytes: Buffer.from([0xfb, 0xff, 0xbf]) })
    const big = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7) & 0xff))
    assert.ok(store(big.toString('base64')).bytes.equals(big))
  })

  it('refuses text that is not padded Base64, whatever Buffer.from would make of it', () => {
    for (const text of [
      'QQ', // not a multiple of 4
      'QUJDR',
      'QQ=A', // padding inside
      'A===', // three padding characters
      '====',
      'QU-_', // the URL alphabet
      'ab_d',
      'QU D', // a space or a line break inside
      'QUI\n',
      'QUJ.',
      'ЖЖЖЖ',
      'QUJDQQ==QUJD', // padding between groups
    ]) {
      assert.throws(
        () => store(text),
        (err: unknown) => err instanceof ValueError && err.message === 'expected Base64 text',
        JSON.stringify(text),
      )
    }
    assert.throws(() => store(12), /expected Base64 text/)
    assert.throws(() => store(['QUJD']), /expected Base64 text/)
  })

  it('refuses valid Base64 outside an object attribute', () => {
    assert.throws(() => storeValue(DATA, 'QUJD', [], []), /binary values are allowed in object attributes only/)
  })
})
