// reliability-battery.md (b) A1 over HTTP (the parser-level rows are in test/auth/basic.test.ts)
// and A3: generated user names and passwords, provisioned through the real user store, get
// 200 with their UTF-8 Basic header; every byte mutation of that credential gets 401
// unless it still spells a provisioned credential (0 false accepts, 0 false rejects).
// FUZZ_RUNS scales A3 (150 → 30 users × 20 mutations); FUZZ_SEED repeats a run (config.ts).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp, TestResponse, TestUser } from '../support/app.js'
import { assertNoLeak } from './check.js'
import { RUNS, SEED } from './config.js'

const USERS = Math.max(5, Math.round((30 * RUNS) / 150))
const MUTATIONS = 20
const REALM = 'Basic realm="docgate", charset="UTF-8"'
const DATA = '/main/hs/warehouses/get'
const HEALTH = '/main/hs/health'

const CTL = /[\u0000-\u001f\u007f]/
const token = (text: string | Uint8Array): string =>
  Buffer.from(typeof text === 'string' ? Buffer.from(text, 'utf8') : text).toString('base64')
const header = (tok: string): Record<string, string> => ({ authorization: `Basic ${tok}` })

async function expect401(app: TestApp, path: string, headers: Record<string, string | string[]>, label: string): Promise<TestResponse> {
  const res = await app.get(path, headers as Record<string, string>)
  assert.equal(res.status, 401, `${label}: ${res.status} ${res.body.slice(0, 200)}`)
  assert.equal(res.headers['www-authenticate'], REALM, label)
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', label)
  assert.equal(res.headers['access-control-allow-origin'], undefined, label)
  assert.equal(res.body, '{"error":"Unauthorized"}', label)
  return res
}

// ---- A1: the header matrix, over HTTP ----
const A1_USERS: TestUser[] = [
  { name: 'user', password: 'secret' },
  { name: 'колон', password: 'pa:ss' },
  { name: 'Ёлкина', password: 'й' },
  { name: 'длинный', password: 'p'.repeat(6000) },
  // Its credential's Base64 holds `+` and `/` (…OnVzZXI6fn5+Pz8/), so the URL-safe spelling differs.
  { name: 'тильда', password: 'user:~~~???' },
]
const OK = token('user:secret')
const A1_ROWS: readonly (readonly [string, Record<string, string | string[]>, 200 | 401])[] = [
  ['absent', {}, 401],
  ['empty value', { authorization: '' }, 401],
  ['scheme only', { authorization: 'Basic' }, 401],
  ['scheme and a space', { authorization: 'Basic ' }, 401],
  ['canonical', { authorization: `Basic ${OK}` }, 200],
  ['lower-case scheme', { authorization: `basic ${OK}` }, 200],
  ['upper-case scheme', { authorization: `BASIC ${OK}` }, 200],
  ['two spaces after the scheme (D2)', { authorization: `Basic  ${OK}` }, 200],
  ['a tab after the scheme (D2)', { authorization: `Basic\t${OK}` }, 401],
  ['Bearer', { authorization: `Bearer ${OK}` }, 401],
  ['Digest', { authorization: 'Digest username="user", realm="docgate", nonce="abc", uri="/", response="0"' }, 401],
  ['token with *', { authorization: `Basic ${OK.slice(0, 4)}*${OK.slice(5)}` }, 401],
  ['token with !', { authorization: `Basic ${OK.slice(0, 4)}!${OK.slice(5)}` }, 401],
  ['space inside the token', { authorization: `Basic ${OK.slice(0, 4)} ${OK.slice(4)}` }, 401],
  ['missing padding', { authorization: `Basic ${OK.replace(/=+$/, '')}` }, 401],
  ['one padding character too many', { authorization: `Basic ${OK}=` }, 401],
  ['=== padding', { authorization: `Basic ${token('user:secre')}=` }, 401],
  ['standard alphabet with + and /', header(token('тильда:user:~~~???')), 200],
  ['URL-safe alphabet', header(token('тильда:user:~~~???').replace(/\+/g, '-').replace(/\//g, '_')), 401],
  ['no colon', header(token('user')), 401],
  ['empty user', header(token(':secret')), 401],
  ['empty password', header(token('user:')), 401],
  ['a colon inside the password', header(token('колон:pa:ss')), 200],
  ['the user split at the wrong colon', header(token('колон:pa')), 401],
  ['tab in the user', header(token('us\ter:secret')), 401],
  ['NUL in the user', header(token('us\0er:secret')), 401],
  ['two headers, good then bad', { authorization: [`Basic ${OK}`, 'Basic eDp5'] }, 401],
  ['two headers, bad then good', { authorization: ['Basic eDp5', `Basic ${OK}`] }, 401],
  ['two identical good headers', { authorization: [`Basic ${OK}`, `Basic ${OK}`] }, 401],
  ['an 8 KiB header with the right password', header(token(`длинный:${'p'.repeat(6000)}`)), 200],
  ['an 8 KiB header with a wrong password', header(token(`длинный:${'q'.repeat(6000)}`)), 401],
  ['credentials prefixed with a BOM', header(token('\uFEFFuser:secret')), 401],
  ['NFD form of an NFC user (D1)', header(token('Ёлкина:й'.normalize('NFD'))), 200],
]

for (const backend of BACKENDS)
  describe(`${backend}: A1 header matrix over HTTP`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(warehousesFixture, { backend, users: A1_USERS })
    })
    after(() => app.close())

    for (const [label, headers, status] of A1_ROWS) {
      it(`${label} → ${status} on data and on health`, async () => {
        for (const path of [DATA, HEALTH]) {
          if (status === 401) await expect401(app, path, headers, `${label} ${path}`)
          else assert.equal((await app.get(path, headers as Record<string, string>)).status, 200, `${label} ${path}`)
        }
      })
    }

    it('unknown user and wrong password get byte-identical 401 answers', async () => {
      const unknown = await expect401(app, DATA, header(token('никто:secret')), 'unknown user')
      const wrong = await expect401(app, DATA, header(token('user:wrong!')), 'wrong password')
      // Date and the request id differ per answer whoever asks.
      const visible = (res: TestResponse) =>
        Object.entries(res.headers).filter(([k]) => k !== 'date' && k !== 'content-length' && k !== 'x-request-id')
      assert.deepEqual(visible(unknown), visible(wrong))
      assert.equal(unknown.body, wrong.body)
    })
  })

// ---- A3: the credential property ----
const noCtl = (s: string) => s !== '' && !CTL.test(s)
const text = (maxLength: number) =>
  fc.oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength }),
    fc.string({ unit: 'grapheme-composite', minLength: 1, maxLength }),
    fc.string({ unit: fc.constantFrom(...'АаБбЁёЙйЯя ЪъIiİı№'), minLength: 1, maxLength }),
  )
const userName = text(12).filter((s) => noCtl(s) && !s.includes(':'))
const password = text(16).filter(noCtl)
const credentials = fc.uniqueArray(fc.tuple(userName, password), {
  minLength: USERS,
  maxLength: USERS,
  selector: ([name]) => name.normalize('NFC'),
})

/** What a spec-abiding server makes of a mutated token: D2 spaces, canonical Base64, fatal UTF-8, first colon, NFC. */
function spelled(tok: string): string | null {
  const m = /^ *([^ ]+) *$/.exec(tok)
  if (!m?.[1] || Buffer.from(m[1], 'base64').toString('base64') !== m[1]) return null
  let decoded: string
  try {
    decoded = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Buffer.from(m[1], 'base64'))
  } catch {
    return null
  }
  const colon = decoded.indexOf(':')
  const [u, p] = [decoded.slice(0, colon), decoded.slice(colon + 1)]
  return colon > 0 && noCtl(u) && noCtl(p) ? `${u.normalize('NFC')}:${p.normalize('NFC')}` : null
}

// Header values a client can send: visible ASCII, space and tab (RFC 9110 field-value).
const HEADER_BYTE = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constant(0x09))
const mutation = fc.record({
  // Mostly the UTF-8 bytes (re-encoded, so the change reaches the decoder), sometimes the
  // Base64 text itself (most of those fail the strict Base64 check).
  target: fc.oneof({ arbitrary: fc.constant('bytes' as const), weight: 3 }, { arbitrary: fc.constant('token' as const), weight: 1 }),
  kind: fc.constantFrom('flip', 'drop', 'add'),
  at: fc.nat(),
  // Mostly a single low bit (a flipped ASCII or continuation-byte bit keeps the UTF-8 valid,
  // so the change reaches the password check) or a printable byte; sometimes any byte.
  byte: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 5 }).map((k) => 1 << k), weight: 3 },
    { arbitrary: fc.integer({ min: 0x20, max: 0x7e }), weight: 2 },
    { arbitrary: fc.integer({ min: 1, max: 255 }), weight: 2 },
  ),
  headerByte: HEADER_BYTE,
})
type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never

function mutate(input: Uint8Array, m: Mutation, byte: number): Uint8Array {
  const out = [...input]
  if (m.kind === 'add') out.splice(m.at % (out.length + 1), 0, byte)
  else if (out.length > 0 && m.kind === 'drop') out.splice(m.at % out.length, 1)
  else if (out.length > 0) {
    const i = m.at % out.length
    out[i] = m.target === 'bytes' ? out[i]! ^ byte : byte === out[i] ? (byte === 0x41 ? 0x42 : 0x41) : byte
  }
  return Uint8Array.from(out)
}

for (const backend of BACKENDS)
  describe(`${backend}: A3 generated credentials (FUZZ_SEED=${SEED})`, () => {
    const [pairs] = fc.sample(credentials, { seed: SEED, numRuns: 1 }) as [[string, string][]]
    const provisioned = new Set(pairs.map(([u, p]) => `${u.normalize('NFC')}:${p.normalize('NFC')}`))
    let app: TestApp
    before(async () => {
      app = await startApp(warehousesFixture, { backend, users: pairs.map(([name, pass]) => ({ name, password: pass })) })
    })
    after(() => app.close())

    it(`${USERS} users: the UTF-8 Basic header gets 200 on data and health`, async () => {
      for (const [u, p] of pairs) {
        for (const path of [DATA, HEALTH]) {
          const res = await app.get(path, header(token(`${u}:${p}`)))
          assert.equal(res.status, 200, `${JSON.stringify(u)} / ${JSON.stringify(p)} on ${path}: ${res.status}`)
        }
      }
    })

    it(`${USERS * MUTATIONS} byte mutations: 401 unless they still spell a provisioned credential`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.nat(pairs.length - 1), mutation, async (index, m) => {
          const [u, p] = pairs[index]!
          const good = Buffer.from(`${u}:${p}`, 'utf8')
          const tok =
            m.target === 'bytes'
              ? token(mutate(good, m, m.byte))
              : Buffer.from(mutate(Buffer.from(token(good), 'latin1'), m, m.headerByte)).toString('latin1')
          const expected = provisioned.has(spelled(tok) ?? '') ? 200 : 401
          const res = await app.get(DATA, header(tok))
          assert.equal(res.status, expected, `${JSON.stringify(u)}:${JSON.stringify(p)} mutated to token ${JSON.stringify(tok)}`)
          if (expected === 401) assertNoLeak(res.body)
          // The right credential right after: no false reject, and it resets the failure count,
          // so the throttle never stands in for the password check being tested here.
          assert.equal((await app.get(DATA, header(token(good)))).status, 200, `${JSON.stringify(u)} rejected after a mutation`)
        }),
        { numRuns: USERS * MUTATIONS },
      )
    })
  })
