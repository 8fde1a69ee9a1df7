// A1 header matrix, at the parser level. The HTTP-level run of the same rows belongs to the
// server's tests; here every row states the parser's literal answer.
import { test } from 'node:test'
import * as assert from 'node:assert/strict'
import { parseBasic } from '../../src/auth/basic.js'

const OK = 'dXNlcjpzZWNyZXQ=' // user:secret
const USER_SECRET = { user: 'user', password: 'secret' }

const rows: ReadonlyArray<readonly [string, readonly string[], { user: string; password: string } | null]> = [
  ['absent', [], null],
  ['empty value', [''], null],
  ['scheme only', ['Basic'], null],
  ['scheme and a space', ['Basic '], null],
  ['canonical', [`Basic ${OK}`], USER_SECRET],
  ['lower-case scheme', [`basic ${OK}`], USER_SECRET],
  ['upper-case scheme', [`BASIC ${OK}`], USER_SECRET],
  ['two spaces after the scheme (D2: accepted)', [`Basic  ${OK}`], USER_SECRET],
  ['trailing spaces', [`Basic ${OK}   `], USER_SECRET],
  ['tab after the scheme (D2: refused)', [`Basic\t${OK}`], null],
  ['leading space before the scheme', [` Basic ${OK}`], null],
  ['Bearer', [`Bearer ${OK}`], null],
  ['Digest', ['Digest username="user", realm="docgate", nonce="abc", uri="/", response="0"'], null],
  ['scheme without a separator', [`Basic${OK}`], null],
  ['token with *', ['Basic dXNlcjpz*WNyZXQ='], null],
  ['token with !', ['Basic dXNlcjpz!WNyZXQ='], null],
  ['space inside the token', ['Basic dXNl cjpzZWNyZXQ='], null],
  ['tab inside the token', ['Basic dXNl\tcjpzZWNyZXQ='], null],
  ['missing padding', ['Basic dXNlcjpzZWNyZXQ'], null],
  ['one padding character too many', ['Basic dXNlcjpzZWNyZXQ=='], null],
  ['=== padding', ['Basic dXNlcg==='], null],
  ['padding in the middle', ['Basic dXNl=cjpzZWNyZXQ'], null],
  ['standard alphabet with + and /', ['Basic dXNlcjp+fn4/Pz8='], { user: 'user', password: '~~~???' }],
  ['URL-safe alphabet - and _', ['Basic dXNlcjp-fn4_Pz8='], null],
  ['non-canonical trailing bits (R instead of Q)', ['Basic dXNlcjpzZWNyZXR='], null],
  ['non-canonical trailing bits, == padding', ['Basic dXNlcjpwYTpzcx=='], null],
  ['no colon', ['Basic dXNlcg=='], null],
  ['empty user', ['Basic OnBhc3M='], null],
  ['empty password', ['Basic dXNlcjo='], null],
  ['colon inside the password', ['Basic dXNlcjpwYTpzcw=='], { user: 'user', password: 'pa:ss' }],
  ['tab in the user', ['Basic dXMJZXI6c2VjcmV0'], null],
  ['NUL in the user', ['Basic dXMAZXI6c2VjcmV0'], null],
  ['DEL in the password', ['Basic dXNlcjpzZWN/cmV0'], null],
  ['two headers, good then bad', [`Basic ${OK}`, 'Basic !!!!'], null],
  ['two headers, bad then good', ['Basic !!!!', `Basic ${OK}`], null],
  ['two identical good headers', [`Basic ${OK}`, `Basic ${OK}`], null],
  // Decision: the BOM is kept as U+FEFF (ignoreBOM), so it parses to a name that no
  // provisioned user has; the authenticator then refuses it.
  ['BOM-prefixed credentials', ['Basic 77u/dXNlcjpzZWNyZXQ='], { user: '\uFEFFuser', password: 'secret' }],
]

for (const [label, values, expected] of rows) {
  test(`parseBasic: ${label}`, () => {
    assert.deepEqual(parseBasic(values), expected)
  })
}

test('parseBasic: an 8 KiB header parses without error', () => {
  const password = 'p'.repeat(6000)
  const header = `Basic ${Buffer.from(`user:${password}`).toString('base64')}`
  assert.equal(header.length, 8014)
  assert.deepEqual(parseBasic([header]), { user: 'user', password })
})

test('parseBasic: NFD input comes out in NFC (D1)', () => {
  const nfd = 'Ёлкина'.normalize('NFD')
  assert.equal(nfd.length, 7)
  const parsed = parseBasic([`Basic ${Buffer.from(`${nfd}:й`.normalize('NFD')).toString('base64')}`])
  assert.deepEqual(parsed, { user: 'Ёлкина', password: 'й' })
  assert.equal(parsed?.user.length, 6)
})
