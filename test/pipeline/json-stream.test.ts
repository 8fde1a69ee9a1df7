import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { Base64Blob, ChunkWriter, serialize } from '../../src/views/json-stream.js'
import { BLOB_CHUNK } from '../../src/store/blobs.js'

async function text(value: unknown): Promise<{ json: string; largest: number }> {
  const out = new ChunkWriter()
  const parts: Buffer[] = []
  for await (const part of serialize(value, out)) parts.push(part)
  const rest = out.take()
  if (rest) parts.push(rest)
  return { json: Buffer.concat(parts).toString(), largest: Math.max(...parts.map((p) => p.length)) }
}

describe('streaming JSON with Base64 content', () => {
  for (const size of [0, 1, 2, 3, 49_151, 49_153, BLOB_CHUNK, 2 * BLOB_CHUNK + 1000]) {
    it(`${size} bytes: the Base64 of the whole content, in parts under 128 KiB`, async () => {
      const data = randomBytes(size)
      const blob = new Base64Blob(size, async (offset, length) => data.subarray(offset, offset + length))
      const { json, largest } = await text({ Вложения: [{ ИмяФайла: 'скан.pdf', Данные: blob }] })
      assert.equal(json, JSON.stringify({ Вложения: [{ ИмяФайла: 'скан.pdf', Данные: data.toString('base64') }] }))
      assert.ok(largest < 128 * 1024, `a part of ${largest} bytes`)
    })
  }
})
