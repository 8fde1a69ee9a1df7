import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import { describe, it } from 'node:test'
import { ResponseReader } from '../../bench/scale/responses.js'

/** The statuses `reader` reports for `bytes` given in pieces of `size` bytes. */
function statuses(bytes: Buffer, size: number): number[] {
  const seen: number[] = []
  const reader = new ResponseReader((status) => seen.push(status))
  for (let i = 0; i < bytes.length; i += size) reader.push(bytes.subarray(i, i + size))
  return seen
}

const LENGTH = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello')
const EMPTY = Buffer.from('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n')
const CHUNKED = Buffer.from(
  'HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n' +
    'a;ext=1\r\n0123456789\r\n3\r\n\r\n\r\r\n0\r\nx-trailer: 1\r\n\r\n',
)
const THREE = Buffer.concat([LENGTH, CHUNKED, EMPTY])

describe('the open loop reads answers without keeping them (bench/scale/responses.ts)', () => {
  for (const size of [1, 2, 3, 7, 64, THREE.length])
    it(`three answers in pieces of ${size} byte(s): one status each, in order`, () => {
      assert.deepEqual(statuses(THREE, size), [200, 500, 404])
    })

  it('an answer without a length or chunks is refused', () => {
    assert.throws(() => statuses(Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nabc'), 100), /neither content-length nor chunks/)
  })

  it('reads node:http answers, whole and streamed, on one keep-alive connection', async () => {
    const big = Buffer.alloc(300_000, 120)
    const server = createServer((req, res) => {
      if (req.url === '/whole') res.end(big)
      else {
        res.write(big.subarray(0, 100_000))
        setImmediate(() => res.end(big.subarray(100_000)))
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const socket = connect({ host: '127.0.0.1', port })
    const seen: number[] = []
    let received = 0
    const reader = new ResponseReader((status) => seen.push(status))
    await new Promise<void>((resolve) => {
      socket.on('data', (bytes: Buffer) => {
        received += bytes.length
        reader.push(bytes)
        if (seen.length === 3) resolve()
      })
      for (const path of ['/whole', '/streamed', '/whole']) socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`)
    })
    socket.destroy()
    server.close()
    assert.deepEqual(seen, [200, 200, 200])
    assert.ok(received > 900_000, `${received} bytes`)
  })
})
