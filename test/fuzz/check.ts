// The common response checks of reliability-battery.md (b) Conventions, C1 and C2, as one
// assertion per response, plus the oracles the fuzz properties share.
import assert from 'node:assert/strict'
import type { TestResponse } from '../support/app.js'

// Stack frames, absolute paths, driver error codes, connection strings.
const LEAKS: readonly RegExp[] = [
  /\bat .+:\d+:\d+/,
  /\/(work|home|usr|srv|app|src|tmp|var|opt|root)\//,
  /SQLSTATE/i,
  /postgres(ql)?:\/\//i,
  /docgate:docgate/,
]

export const HEALTH_BODY = { Статус: 'API доступен' }

/** Headers every answer carries (C2), whatever its status. */
function commonHeaders(res: TestResponse): void {
  assert.equal(res.headers['cache-control'], 'no-store')
  assert.equal(res.headers['x-content-type-options'], 'nosniff')
  assert.equal(res.headers['access-control-allow-credentials'], undefined)
  assert.equal(res.headers['x-powered-by'], undefined)
}

/**
 * A data endpoint's answer to any query: 200, JSON, exactly `{data: [...], errors: [...]}`
 * with string entries, `Access-Control-Allow-Origin: *`, and nothing that leaks internals.
 * `echoed` are the request's own decoded values: an `errors` entry may quote them.
 */
export function assertEnvelope(res: TestResponse, echoed: readonly string[] = []): { data: unknown[]; errors: string[] } {
  assert.equal(res.status, 200, `status ${res.status}: ${res.body.slice(0, 300)}`)
  commonHeaders(res)
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  assert.equal(res.headers['access-control-allow-origin'], '*')
  const body: unknown = JSON.parse(res.body)
  assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), 'body is an object')
  assert.deepEqual(Object.keys(body), ['data', 'errors'])
  const { data, errors } = body as { data: unknown; errors: unknown }
  assert.ok(Array.isArray(data), 'data is an array')
  assert.ok(Array.isArray(errors), 'errors is an array')
  for (const e of errors) assert.equal(typeof e, 'string', `errors entry ${JSON.stringify(e)}`)
  // Longest first, so a value that contains another is removed whole.
  const quoted = [...new Set(echoed)].filter((v) => v !== '').sort((a, b) => b.length - a.length)
  const own = (errors as string[]).map((e) => quoted.reduce((rest, v) => rest.replaceAll(v, ''), e)).join('\n')
  assertNoLeak(own)
  assertNoLeak(JSON.stringify(data))
  return { data, errors: errors as string[] }
}

export function assertNoLeak(text: string): void {
  for (const re of LEAKS) assert.doesNotMatch(text, re)
}

/** Health's answer: 200 with the spec's body and no CORS header. */
export function assertHealth(res: TestResponse): void {
  assert.equal(res.status, 200, `status ${res.status}: ${res.body.slice(0, 300)}`)
  commonHeaders(res)
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  assert.equal(res.headers['access-control-allow-origin'], undefined)
  assert.deepEqual(JSON.parse(res.body), HEALTH_BODY)
}

/** 404 `{"error":"Not Found"}`. */
export function assertNotFound(res: TestResponse): void {
  assert.equal(res.status, 404, `status ${res.status}: ${res.body.slice(0, 300)}`)
  commonHeaders(res)
  assert.equal(res.headers['access-control-allow-origin'], undefined)
  assert.equal(res.body, '{"error":"Not Found"}')
}

/** The spec's three date forms, and a real calendar day of year 1..9999 (spec § Common rules 3). */
export function isValidDate(value: string): boolean {
  const m = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(value) ?? /^(\d{2})-(\d{2})-(\d{4})$/.exec(value)
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  const [y, mo, d] = m ? [m[3], m[2], m[1]] : iso ? [iso[1], iso[2], iso[3]] : []
  if (y === undefined || mo === undefined || d === undefined) return false
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  const length = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
  return year >= 1 && length !== undefined && day >= 1 && day <= length
}

/** What the server reads from a query (decision D2: form decoding, first value per key). */
export function decodedQuery(query: string): { first: Map<string, string>; all: string[] } {
  const first = new Map<string, string>()
  const all: string[] = []
  for (const [k, v] of new URLSearchParams(query)) {
    if (!first.has(k)) first.set(k, v)
    all.push(k, v, v.replaceAll('_slash_', '/'))
  }
  return { first, all }
}

/** The reference substring filter of decision D6: NFC, Unicode lower case, literal. */
export const refFold = (text: string): string => text.normalize('NFC').toLowerCase()
export const refContains = (haystack: string, needle: string): boolean => needle === '' || refFold(haystack).includes(refFold(needle))
