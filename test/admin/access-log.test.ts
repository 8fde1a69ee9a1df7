// The access log never holds credentials, whatever the request: generated users and
// passwords (any Unicode), right or wrong, on every route, with the password also sent as
// a query value. FUZZ_RUNS / FUZZ_SEED as in test/fuzz (config.ts).
import assert from 'node:assert/strict'
import { setImmediate as tick } from 'node:timers/promises'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { RUNS } from '../fuzz/config.js'
import { BACKENDS, READER } from '../support/app.js'
import type { TestUser } from '../support/app.js'
import { startOps } from './support.js'
import type { OpsApp } from './support.js'

const CTL = /[\u0000-\u001f\u007f-\u009f]/
const text = (min: number) =>
  fc.string({ unit: 'binary', minLength: min, maxLength: 24 }).filter((s) => !CTL.test(s) && s === s.normalize('NFC') && s.trim() === s)
const USERS: TestUser[] = fc
  .sample(
    fc.tuple(
      text(1).filter((n) => !n.includes(':')),
      text(8),
    ),
    { numRuns: 6, seed: 11 },
  )
  .map(([name, password], i) => ({ name: `${name}${i}`, password }))
  .filter((u) => !u.name.includes(u.password))

const PATHS = ['/main/hs/warehouses/get', '/main/hs/health', '/main/hs/payments/get', '/main/hs/nope/get', '/openapi.json', '/elsewhere']

/** Every string anywhere in a parsed log line. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)])
  return []
}

for (const backend of BACKENDS) {
  describe(`${backend}: the access log never contains credentials`, () => {
    let ops: OpsApp
    before(async () => {
      ops = await startOps(warehousesFixture, { backend, users: [READER, ...USERS] })
    })
    after(() => ops.close())

    it('neither the Authorization value, nor its token, nor the password, whatever the request', async () => {
      let n = 0
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            user: fc.constantFrom(...USERS),
            wrong: fc.option(text(8), { nil: undefined }),
            path: fc.constantFrom(...PATHS),
            inQuery: fc.boolean(),
            scheme: fc.constantFrom('Basic', 'basic', 'BASIC'),
          }),
          async ({ user, wrong, path, inQuery, scheme }) => {
            const password = wrong ?? user.password
            const token = Buffer.from(`${user.name}:${password}`, 'utf8').toString('base64')
            const authorization = `${scheme} ${token}`
            const id = `case-${n++}`
            const query = inQuery ? `?password=${encodeURIComponent(password)}&code=1&token=${encodeURIComponent(token)}` : ''
            const res = await ops.app.get(path + query, { authorization, 'x-request-id': id })
            await tick()
            const lines = ops.access.lines.filter((l) => l.reqId === id)
            assert.equal(lines.length, 1)
            const raw = ops.access.raw.find((r) => r.includes(`"${id}"`))!
            const secrets = [authorization, token, password, ...(wrong === undefined ? [] : [wrong])]
            for (const secret of secrets) {
              assert.equal(raw.includes(secret), false, `raw line holds ${JSON.stringify(secret)}`)
              for (const s of strings(lines[0]))
                assert.equal(s.includes(secret), false, `${JSON.stringify(s)} holds ${JSON.stringify(secret)}`)
            }
            // Only an authenticated name is logged: a refused one may be a mistyped password.
            assert.equal(lines[0]!.user, res.status === 200 && path !== '/openapi.json' ? user.name : null)
          },
        ),
        { numRuns: Math.max(40, Math.round(RUNS / 2)) },
      )
    })
  })
}

describe('--log-query-values', () => {
  let ops: OpsApp
  before(async () => {
    ops = await startOps(warehousesFixture, { backend: 'sqlite', logQueryValues: true })
  })
  after(() => ops.close())

  it('adds the values, decoded, beside the names', async () => {
    await ops.app.get('/main/hs/warehouses/get?code=000000001&search=%D0%A1%D0%BA%D0%BB%D0%B0%D0%B4+2&flag', {
      'x-request-id': 'with-values',
    })
    await tick()
    const line = ops.access.lines.find((l) => l.reqId === 'with-values')!
    assert.deepEqual(line.params, ['code', 'search', 'flag'])
    assert.deepEqual(line.values, { code: '000000001', search: 'Склад 2', flag: '' })
  })
})
