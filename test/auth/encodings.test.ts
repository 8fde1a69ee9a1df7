// A2: Cyrillic and emoji credentials. Only UTF-8 parses; every other encoding is refused by
// the parser itself (invalid UTF-8 or control characters), with no fallback decoding.
import { test } from 'node:test'
import * as assert from 'node:assert/strict'
import { Authenticator } from '../../src/auth/authenticator.js'
import { parseBasic } from '../../src/auth/basic.js'
import {
  basic,
  cesu8,
  cheapDummyHash,
  cp1251,
  FakeClock,
  iso88595,
  koi8r,
  latin1PerCodeUnit,
  overlongSlash,
  TestDirectory,
  utf16le,
  utf8WithBom,
} from './helpers.js'

const USERS: ReadonlyArray<readonly [string, string]> = [
  ['Иванов Иван', 'пароль№1'],
  ['Ёлкина', 'секрет'],
  ['user', 'Пароль'],
  ['Пётр 🚀', 'ракета🚀/взлёт'],
]

const WRONG_ENCODINGS = { cp1251, koi8r, iso88595, utf16le, latin1PerCodeUnit } as const

for (const [user, password] of USERS) {
  test(`A2 ${user}: UTF-8 parses to the exact strings`, () => {
    assert.deepEqual(parseBasic([basic(`${user}:${password}`)]), { user, password })
  })

  for (const [name, encode] of Object.entries(WRONG_ENCODINGS)) {
    test(`A2 ${user}: ${name} is refused`, () => {
      assert.equal(parseBasic([basic(encode(`${user}:${password}`))]), null)
    })
  }
}

test('A2 emoji user: CESU-8 surrogates are refused', () => {
  const bytes = cesu8('Пётр 🚀:ракета🚀/взлёт')
  assert.equal(bytes.length, Buffer.byteLength('Пётр 🚀:ракета🚀/взлёт') + 4)
  assert.equal(parseBasic([basic(bytes)]), null)
})

test('A2 overlong C0 AF for "/" is refused', () => {
  assert.deepEqual(parseBasic([basic('Пётр 🚀:ракета🚀/взлёт')]), { user: 'Пётр 🚀', password: 'ракета🚀/взлёт' })
  assert.equal(parseBasic([basic(overlongSlash('Пётр 🚀:ракета🚀/взлёт'))]), null)
})

test('A2 UTF-8 with a BOM keeps U+FEFF in the user name', () => {
  assert.deepEqual(parseBasic([basic(utf8WithBom('Ёлкина:секрет'))]), { user: '\uFEFFЁлкина', password: 'секрет' })
})

test('A2 the hand-made tables give the known bytes', () => {
  assert.deepEqual([...cp1251('Ёё№Яа')], [0xa8, 0xb8, 0xb9, 0xdf, 0xe0])
  assert.deepEqual([...koi8r('Пароль')], [0xf0, 0xc1, 0xd2, 0xcf, 0xcc, 0xd8])
  assert.deepEqual([...iso88595('Ёё№Яа')], [0xa1, 0xf1, 0xf0, 0xcf, 0xd0])
  assert.deepEqual([...latin1PerCodeUnit('Ёa')], [0x01, 0x61])
})

test('A2 mojibake: cp1251 bytes that are valid UTF-8 decode to other text and do not authenticate', async () => {
  // "РџСЂРёРІРµС‚" is what UTF-8 "Привет" looks like in cp1251. Its cp1251 bytes are exactly
  // the UTF-8 of "Привет", so the parser sees a different, well-formed name.
  const mojibake = 'РџСЂРёРІРµС‚'
  const bytes = cp1251(`${mojibake}:secret`)
  assert.deepEqual([...bytes.subarray(0, 4)], [0xd0, 0x9f, 0xd1, 0x80])
  assert.deepEqual(parseBasic([basic(bytes)]), { user: 'Привет', password: 'secret' })

  const users = new TestDirectory()
  await users.add(mojibake, 'secret')
  await users.add('Привет', 'another secret')
  const auth = new Authenticator({ users, now: new FakeClock().now, dummyHash: await cheapDummyHash() })
  assert.deepEqual(await auth.authenticate([basic(bytes)], '127.0.0.1', 'payments'), { ok: false })
  assert.deepEqual(await auth.authenticate([basic(`${mojibake}:secret`)], '127.0.0.1', 'payments'), { ok: true, user: mojibake })
})

test('A2 every provisioned user authenticates with UTF-8 and with nothing else', async () => {
  const users = new TestDirectory()
  for (const [user, password] of USERS) await users.add(user, password)
  const auth = new Authenticator({ users, now: new FakeClock().now, dummyHash: await cheapDummyHash() })
  for (const [user, password] of USERS) {
    assert.deepEqual(await auth.authenticate([basic(`${user}:${password}`)], '127.0.0.1', 'payments'), { ok: true, user })
    // (CESU-8 differs from UTF-8 only for characters outside the BMP: tested for the emoji below.)
    for (const encode of [...Object.values(WRONG_ENCODINGS), utf8WithBom]) {
      assert.equal((await auth.authenticate([basic(encode(`${user}:${password}`))], '127.0.0.2', 'payments')).ok, false)
    }
  }
  assert.equal((await auth.authenticate([basic(cesu8('Пётр 🚀:ракета🚀/взлёт'))], '127.0.0.2', 'payments')).ok, false)
  assert.equal((await auth.authenticate([basic(overlongSlash('Пётр 🚀:ракета🚀/взлёт'))], '127.0.0.2', 'payments')).ok, false)
})

test('D1: the NFD form of an NFC-provisioned name and password authenticates', async () => {
  const users = new TestDirectory()
  await users.add('Ёлкина Йошкар', 'пароль ё')
  const auth = new Authenticator({ users, now: new FakeClock().now, dummyHash: await cheapDummyHash() })
  const nfd = 'Ёлкина Йошкар:пароль ё'.normalize('NFD')
  assert.notEqual(nfd, 'Ёлкина Йошкар:пароль ё')
  assert.deepEqual(await auth.authenticate([basic(nfd)], '127.0.0.1', 'payments'), { ok: true, user: 'Ёлкина Йошкар' })
})
