import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DocgateError, createDocgateClient } from '../src/client.js'

// What the client puts on the wire and how it reads failures, with a fetch that answers itself.
function recording(answer: () => Response) {
  const seen: Request[] = []
  const client = createDocgateClient({
    baseUrl: 'https://erp.example.com/',
    user: 'Иван',
    password: 'пароль',
    fetch: async (request) => {
      seen.push(request)
      return answer()
    },
  })
  return { client, seen }
}
const ENVELOPE = () =>
  new Response('{"data":[],"errors":[]}', { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } })

describe('requests', () => {
  it('GET on the service path, the query percent-encoded as UTF-8, full as true, the UTF-8 Basic header', async () => {
    const { client, seen } = recording(ENVELOPE)
    assert.deepEqual(await client.receipts({ supplier: 'ООО "Ромашка" & Co', from: '01.03.2024', to: undefined, full: true }), {
      data: [],
      errors: [],
    })
    assert.equal(seen.length, 1)
    assert.equal(seen[0]!.method, 'GET')
    assert.equal(
      seen[0]!.url,
      'https://erp.example.com/main/hs/receipts/get?supplier=%D0%9E%D0%9E%D0%9E%20%22%D0%A0%D0%BE%D0%BC%D0%B0%D1%88%D0%BA%D0%B0%22%20%26%20Co&from=01.03.2024&full=true',
    )
    assert.equal(seen[0]!.headers.get('authorization'), 'Basic 0JjQstCw0L060L/QsNGA0L7Qu9GM')
  })

  it('full: false and no parameters send no query', async () => {
    const { client, seen } = recording(ENVELOPE)
    await client.payments({ full: false })
    await client.health().catch(() => {})
    assert.deepEqual(
      seen.map((r) => r.url),
      ['https://erp.example.com/main/hs/payments/get', 'https://erp.example.com/main/hs/health'],
    )
  })

  it('a throttled 401 carries Retry-After', async () => {
    const { client } = recording(
      () =>
        new Response('{"error":"Unauthorized"}', {
          status: 401,
          headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '30' },
        }),
    )
    await assert.rejects(client.payments(), { name: 'DocgateError', status: 401, detail: 'Unauthorized', retryAfterSeconds: 30 })
  })

  it("health's 500 is text, and a data endpoint's 500 is JSON: both give their message", async () => {
    const text = recording(
      () => new Response('database is locked', { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' } }),
    )
    await assert.rejects(
      text.client.health(),
      (err: unknown) =>
        err instanceof DocgateError && err.status === 500 && err.detail === 'database is locked' && err.retryAfterSeconds === undefined,
    )
    const json = recording(
      () => new Response('{"error":"SQLITE_BUSY"}', { status: 500, headers: { 'content-type': 'application/json; charset=utf-8' } }),
    )
    await assert.rejects(json.client.payments.stream(), {
      status: 500,
      detail: 'SQLITE_BUSY',
      message: 'docgate answered 500: SQLITE_BUSY',
    })
  })
})
