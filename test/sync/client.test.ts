// The source client against a scripted local server: headers, encoding, retries (§8),
// the concurrency cap, gzip and the error texts; each sent from this thread, and handed
// through a port to the thread that serves it (as a sync run's thread does).
import * as assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, describe, test } from 'node:test'
import { MessageChannel } from 'node:worker_threads'
import { gzipSync } from 'node:zlib'
import { Source, type SourceError } from '../../src/sync/source/client.js'
import { inGroups, pages } from '../../src/sync/pages.js'
import { PortTransport, serveTransport } from '../../src/sync/source/transport.js'
import type { Transport } from '../../src/sync/source/transport.js'

type Handler = (req: IncomingMessage, res: ServerResponse) => void
let handler: Handler = (_req, res) => res.end()
const seen: IncomingMessage[] = []
let inFlight = 0
let maxInFlight = 0
const server = createServer((req, res) => {
  seen.push(req)
  inFlight++
  maxInFlight = Math.max(maxInFlight, inFlight)
  res.on('close', () => inFlight--)
  handler(req, res)
})
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}/base/odata/standard.odata`
after(() => server.close())

/** Where the requests leave from: this thread, or the thread serving a port (here the same one). */
const vias: { name: string; make?: (concurrency: number) => Transport }[] = [
  { name: 'sent from this thread' },
  {
    name: 'handed through a port',
    make: (concurrency) => {
      const lane = new MessageChannel()
      serveTransport(lane.port1)
      return new PortTransport(lane.port2, concurrency)
    },
  },
]

for (const via of vias) describe(via.name, () => suite(via))

function suite(via: (typeof vias)[number]): void {
  const source = (extra: Partial<ConstructorParameters<typeof Source>[0]> = {}) =>
    new Source({
      root,
      user: 'Иванов',
      password: 'секрет',
      concurrency: 1,
      readTimeoutMs: 2000,
      retryDelaysMs: [1, 1, 1, 1],
      transport: via.make?.(extra.concurrency ?? 1),
      ...extra,
    })

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json;charset=utf-8' })
    res.end(JSON.stringify(body))
  }

  test('GET with UTF-8 Basic credentials, Accept JSON, gzip accepted, Cyrillic percent-encoded', async () => {
    seen.length = 0
    handler = (_req, res) => json(res, 200, { value: [] })
    const s = source()
    await s.json(() => s.url('Catalog_Номенклатура', { $format: 'json', $filter: "Date ge datetime'2026-01-01T00:00:00'" }))
    const req = seen[0]!
    assert.equal(req.method, 'GET')
    assert.equal(
      req.url,
      '/base/odata/standard.odata/Catalog_%D0%9D%D0%BE%D0%BC%D0%B5%D0%BD%D0%BA%D0%BB%D0%B0%D1%82%D1%83%D1%80%D0%B0?$format=json&$filter=Date%20ge%20datetime%272026-01-01T00%3A00%3A00%27',
    )
    assert.equal(req.headers.authorization, `Basic ${Buffer.from('Иванов:секрет', 'utf8').toString('base64')}`)
    assert.equal(req.headers.accept, 'application/json')
    assert.equal(req.headers['accept-encoding'], 'gzip')
    await s.close()
  })

  test('no user: no Authorization header', async () => {
    seen.length = 0
    handler = (_req, res) => json(res, 200, { value: [] })
    const s = source({ user: undefined })
    await s.json(() => s.url('X', { $format: 'json' }))
    assert.equal(seen[0]!.headers.authorization, undefined)
    await s.close()
  })

  test('a gzip answer is decoded', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      res.end(gzipSync(JSON.stringify({ value: [{ Ref_Key: 'a' }] })))
    }
    const s = source()
    assert.deepEqual((await s.json(() => s.url('X'))).body, { value: [{ Ref_Key: 'a' }] })
    await s.close()
  })

  test('5xx is retried up to 5 attempts in all, then fails with the odata.error text', async () => {
    seen.length = 0
    handler = (_req, res) => json(res, 500, { 'odata.error': { code: '-1', message: { lang: 'ru', value: 'Ошибка обработчика' } } })
    const s = source()
    let retries = 0
    await assert.rejects(
      s.json(() => s.url('X'), { beforeRetry: () => retries++ }),
      (err: SourceError) =>
        err.kind === 'status' && err.status === 500 && err.code === '-1' && err.message === 'HTTP 500: Ошибка обработчика',
    )
    assert.equal(seen.length, 5)
    assert.equal(retries, 4)
    await s.close()
  })

  test('400, 404 and 501 are never retried; a non-JSON error body is named by its status line', async () => {
    for (const status of [400, 404, 501]) {
      seen.length = 0
      handler = (_req, res) => {
        res.writeHead(status, { 'content-type': 'text/html' })
        res.end('<html>nope</html>')
      }
      const s = source()
      await assert.rejects(
        s.json(() => s.url('X')),
        (err: SourceError) => err.status === status && err.message.startsWith(`HTTP ${status} `),
      )
      assert.equal(seen.length, 1)
      await s.close()
    }
  })

  test('401 is a refusal of the credentials, never retried, with no secret in the text', async () => {
    seen.length = 0
    handler = (_req, res) => json(res, 401, {})
    const s = source()
    await assert.rejects(
      s.json(() => s.url('X')),
      (err: SourceError) => {
        assert.equal(err.message, 'source refused the credentials (HTTP 401)')
        assert.equal(err.kind, 'credentials')
        return true
      },
    )
    assert.equal(seen.length, 1)
    await s.close()
  })

  test('a 200 that is not JSON fails without retry (Atom)', async () => {
    seen.length = 0
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/atom+xml' })
      res.end('<feed/>')
    }
    const s = source()
    await assert.rejects(
      s.json(() => s.url('X')),
      (err: SourceError) => err.kind === 'not-json',
    )
    assert.equal(seen.length, 1)
    await s.close()
  })

  test('a refused connection is "unreachable", counts as the source being down, and names where and how often it was tried', async () => {
    const s = new Source({
      root: 'http://127.0.0.1:1/x',
      concurrency: 1,
      readTimeoutMs: 1000,
      retryDelaysMs: [1],
      transport: via.make?.(1),
    })
    await assert.rejects(
      s.json(() => s.url('X')),
      (err: SourceError) => {
        assert.equal(err.message, 'nothing answers at 127.0.0.1:1 (connection refused), 2 attempts over 0 s')
        return err.kind === 'unreachable' && err.sourceDown
      },
    )
    await s.close()
  })

  test('a 401 says when no user or no password was given', async () => {
    handler = (_req, res) => json(res, 401, {})
    for (const [user, password, line] of [
      [undefined, undefined, 'source refused the credentials (HTTP 401): no user was given (--user or DOCGATE_SOURCE_USER)'],
      ['Иванов', '', 'source refused the credentials (HTTP 401): no password was given (--password-stdin or DOCGATE_SOURCE_PASSWORD)'],
    ] as const) {
      const s = source({ user, password })
      await assert.rejects(
        s.json(() => s.url('X')),
        (err: SourceError) => err.kind === 'credentials' && err.message === line,
      )
      await s.close()
    }
  })

  test('no byte within the read timeout fails the attempt and is retried', async () => {
    seen.length = 0
    let n = 0
    handler = (_req, res) => {
      if (n++ === 0) return // never answers
      json(res, 200, { value: [] })
    }
    const s = source({ readTimeoutMs: 200 })
    assert.deepEqual((await s.json(() => s.url('X'))).body, { value: [] })
    assert.equal(seen.length, 2)
    await s.close()
  })

  test('never more than `concurrency` requests in flight', async () => {
    maxInFlight = 0
    handler = (_req, res) => setTimeout(() => json(res, 200, { value: [] }), 30)
    for (const concurrency of [1, 2]) {
      maxInFlight = 0
      const s = source({ concurrency })
      await Promise.all(Array.from({ length: 8 }, () => s.json(() => s.url('X'))))
      assert.equal(maxInFlight, concurrency)
      await s.close()
    }
  })

  test('§8: a page shrunk after a 5xx counts among the 5 attempts: 5 requests in all, each smaller', async () => {
    seen.length = 0
    handler = (_req, res) => json(res, 500, { 'odata.error': { code: '-1', message: { lang: 'ru', value: 'слишком тяжело' } } })
    const s = source()
    const paging = { size: 1000, adaptive: true }
    await assert.rejects(
      async () => {
        for await (const _ of pages(s, { set: 'X', orderby: 'Ref_Key' }, paging)) assert.fail('no page')
      },
      (err: SourceError) => err.status === 500,
    )
    const tops = seen.map((r) => Number(new URL(r.url!, 'http://h').searchParams.get('$top')))
    assert.deepEqual(tops, [1000, 250, 62, 15, 3])
    await s.close()
  })

  test("§8: a group of keys read again in quarters counts those reads among each key's 5 attempts", async () => {
    seen.length = 0
    handler = (_req, res) => json(res, 500, { 'odata.error': { code: '-1', message: { lang: 'ru', value: 'слишком тяжело' } } })
    const s = source()
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`)
    const groups: number[] = []
    await assert.rejects(
      inGroups(s, keys, async (group, opts) => {
        groups.push(group.length)
        await s.json(() => s.url('X', { $filter: group.join(',') }), opts)
        return []
      }),
      (err: SourceError) => err.status === 500,
    )
    // 20 keys, then the first quarter of 5, of 2, then the first key alone twice: its 5 attempts.
    assert.deepEqual(groups, [20, 5, 2, 1])
    assert.equal(seen.length, 5)
    // A group that succeeds once shrunk is read whole: the keys of the other quarters start afresh from their group's count.
    seen.length = 0
    let n = 0
    handler = (_req, res) => (n++ === 0 ? json(res, 500, {}) : json(res, 200, { value: [1] }))
    const got = await inGroups(
      s,
      keys,
      async (group, opts) => (await s.json<{ value: number[] }>(() => s.url('X', { $filter: group.join(',') }), opts)).body.value,
    )
    assert.deepEqual(got, [1, 1, 1, 1])
    assert.equal(seen.length, 5)
    await s.close()
  })
}
