import { test } from 'node:test'
import * as assert from 'node:assert/strict'
import { generatePassword, hashPassword, unmatchableHash, verifyPassword } from '../../src/auth/password.js'

const FORMAT = /^scrypt\$10\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/

test('hashPassword: cheap hash has the self-describing format (16-byte salt, 32-byte key)', async () => {
  assert.match(await hashPassword('secret', { logN: 10 }), FORMAT)
})

test('hashPassword: the default parameters are OWASP scrypt N = 2^17, r = 8, p = 1', async () => {
  // The only default-cost hash in the suite (~0.7 s).
  const hash = await hashPassword('secret')
  assert.equal(hash.split('$').slice(0, 4).join('$'), 'scrypt$17$8$1')
})

test('hashPassword: two hashes of one password differ (random salt)', async () => {
  const [a, b] = await Promise.all([hashPassword('secret', { logN: 10 }), hashPassword('secret', { logN: 10 })])
  assert.notEqual(a, b)
})

test('verifyPassword: right password → true, wrong → false', async () => {
  const hash = await hashPassword('пароль№1', { logN: 10 })
  assert.equal(await verifyPassword('пароль№1', hash), true)
  assert.equal(await verifyPassword('пароль№2', hash), false)
  assert.equal(await verifyPassword('', hash), false)
})

test('verifyPassword: NFC and NFD spellings of a password are the same password (D1)', async () => {
  const hash = await hashPassword('ёлка'.normalize('NFD'), { logN: 10 })
  assert.equal(await verifyPassword('ёлка', hash), true)
})

test('verifyPassword: malformed stored strings → false', async () => {
  const good = await hashPassword('secret', { logN: 10 })
  const [, , , , salt, key] = good.split('$')
  const malformed = [
    '',
    'secret',
    'plain$secret',
    `bcrypt$10$8$1$${salt}$${key}`,
    `scrypt$10$8$1$${salt}`,
    `scrypt$10$8$1$${salt}$${key}$extra`,
    `scrypt$x$8$1$${salt}$${key}`,
    `scrypt$0$8$1$${salt}$${key}`,
    `scrypt$010$8$1$${salt}$${key}`,
    `scrypt$10$8$1$${salt}$not-base64!`,
    `scrypt$10$8$1$$${key}`,
    `scrypt$10$8$1$${salt}$AAAA`, // 3-byte key: too short to mean anything
    `scrypt$25$8$1$${salt}$${key}`, // cost beyond the accepted bound
    `scrypt$22$32$1$${salt}$${key}`, // needs more memory than maxmem: scrypt refuses
  ]
  for (const stored of malformed) assert.equal(await verifyPassword('secret', stored), false, stored)
  assert.equal(await verifyPassword('secret', good), true)
})

test('unmatchableHash: well-formed, and the password it was "made from" does not exist', async () => {
  const hash = unmatchableHash(10)
  assert.match(hash, FORMAT)
  assert.equal(await verifyPassword('', hash), false)
  assert.equal(await verifyPassword('dummy', hash), false)
})

test('generatePassword: 20 URL-safe characters, different each time', () => {
  const passwords = new Set(Array.from({ length: 100 }, generatePassword))
  assert.equal(passwords.size, 100)
  for (const password of passwords) assert.match(password, /^[A-Za-z0-9_-]{20}$/)
})
