// Authenticator: success, failures, the verified-credential cache, revocation and grants.
import { test } from 'node:test'
import * as assert from 'node:assert/strict'
import { Authenticator } from '../../src/auth/authenticator.js'
import { hashPassword } from '../../src/auth/password.js'
import { basic, cheapDummyHash, FakeClock, TestDirectory } from './helpers.js'

const IP = '127.0.0.1'

async function setup(methods: readonly string[] = ['*']) {
  const users = new TestDirectory()
  await users.add('Иванов Иван', 'пароль№1', methods)
  const clock = new FakeClock()
  const auth = new Authenticator({ users, now: clock.now, dummyHash: await cheapDummyHash() })
  return { users, clock, auth, good: basic('Иванов Иван:пароль№1') }
}

test('right password → ok with the user name, one KDF', async () => {
  const { auth, good } = await setup()
  assert.deepEqual(await auth.authenticate([good], IP, 'payments'), { ok: true, user: 'Иванов Иван' })
  assert.equal(auth.kdfRuns, 1)
})

test('wrong password → fail, one KDF', async () => {
  const { auth } = await setup()
  assert.deepEqual(await auth.authenticate([basic('Иванов Иван:пароль№2')], IP, 'payments'), { ok: false })
  assert.equal(auth.kdfRuns, 1)
})

test('unknown user → fail after a dummy KDF', async () => {
  const { auth } = await setup()
  assert.deepEqual(await auth.authenticate([basic('Петров:пароль№1')], IP, 'payments'), { ok: false })
  assert.equal(auth.kdfRuns, 1)
})

test('unknown user whose password matches the dummy hash still fails', async () => {
  const users = new TestDirectory()
  const auth = new Authenticator({ users, dummyHash: await hashPassword('x', { logN: 10 }) })
  assert.deepEqual(await auth.authenticate([basic('nobody:x')], IP, 'payments'), { ok: false })
  assert.equal(auth.kdfRuns, 1)
})

test('unparseable header → fail without KDF', async () => {
  const { auth } = await setup()
  for (const values of [[], [''], ['Basic'], ['Bearer abc'], ['Basic dXNlcg==']]) {
    assert.deepEqual(await auth.authenticate(values, IP, 'payments'), { ok: false })
  }
  assert.equal(auth.kdfRuns, 0)
})

test('BOM-prefixed credentials of a real user → fail', async () => {
  const { auth } = await setup()
  const bom = `Basic ${Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Иванов Иван:пароль№1')]).toString('base64')}`
  assert.deepEqual(await auth.authenticate([bom], IP, 'payments'), { ok: false })
})

test('cache: 1,000 sequential requests with one credential run the KDF once', async () => {
  const { auth, good } = await setup()
  for (let i = 0; i < 1000; i++) assert.equal((await auth.authenticate([good], IP, 'payments')).ok, true)
  assert.equal(auth.kdfRuns, 1)
})

test('cache: 1,000 concurrent requests with one cold credential share one KDF', async () => {
  const { auth, good } = await setup()
  const results = await Promise.all(Array.from({ length: 1000 }, () => auth.authenticate([good], IP, 'payments')))
  assert.equal(results.filter((result) => result.ok).length, 1000)
  assert.equal(auth.kdfRuns, 1)
})

test('cache: an entry expires after the TTL (10 min)', async () => {
  const { auth, clock, good } = await setup()
  await auth.authenticate([good], IP, 'payments')
  clock.advance(10 * 60_000 - 1)
  await auth.authenticate([good], IP, 'payments')
  assert.equal(auth.kdfRuns, 1)
  clock.advance(1)
  assert.equal((await auth.authenticate([good], IP, 'payments')).ok, true)
  assert.equal(auth.kdfRuns, 2)
})

test('cache: a different spelling of the same credential is a different entry', async () => {
  const { auth, good } = await setup()
  await auth.authenticate([good], IP, 'payments')
  assert.equal((await auth.authenticate([good.replace('Basic', 'basic')], IP, 'payments')).ok, true)
  assert.equal(auth.kdfRuns, 2)
})

test('revoke: a cached credential fails on the next call', async () => {
  const { auth, users, good } = await setup()
  assert.equal((await auth.authenticate([good], IP, 'payments')).ok, true)
  users.revoke('Иванов Иван')
  assert.deepEqual(await auth.authenticate([good], IP, 'payments'), { ok: false })
  assert.equal(auth.kdfRuns, 2) // the dummy KDF of an unknown user
})

test('password change: the old cached credential fails, the new one works', async () => {
  const { auth, users, good } = await setup()
  assert.equal((await auth.authenticate([good], IP, 'payments')).ok, true)
  await users.add('Иванов Иван', 'новый пароль')
  assert.deepEqual(await auth.authenticate([good], IP, 'payments'), { ok: false })
  assert.deepEqual(await auth.authenticate([basic('Иванов Иван:новый пароль')], IP, 'payments'), { ok: true, user: 'Иванов Иван' })
})

test('re-adding a user with the same password (new salt) invalidates the cache entry but still succeeds', async () => {
  const { auth, users, good } = await setup()
  await auth.authenticate([good], IP, 'payments')
  await users.add('Иванов Иван', 'пароль№1')
  assert.equal((await auth.authenticate([good], IP, 'payments')).ok, true)
  assert.equal(auth.kdfRuns, 2)
})

test('grant: only the listed services, checked on cached requests too', async () => {
  const { auth, good } = await setup(['payments', 'receipts'])
  assert.deepEqual(await auth.authenticate([good], IP, 'payments'), { ok: true, user: 'Иванов Иван' })
  assert.deepEqual(await auth.authenticate([good], IP, 'receipts'), { ok: true, user: 'Иванов Иван' })
  assert.deepEqual(await auth.authenticate([good], IP, 'materials'), { ok: false })
  // No service (health): any issued user, whatever their grants.
  assert.deepEqual(await auth.authenticate([good], IP, null), { ok: true, user: 'Иванов Иван' })
  assert.equal(auth.kdfRuns, 1)
})

test('grant: a user with no services gets nothing, even on the first (uncached) call', async () => {
  const { auth, good } = await setup([])
  assert.deepEqual(await auth.authenticate([good], IP, 'payments'), { ok: false })
  assert.deepEqual(await auth.authenticate([good], IP, null), { ok: true, user: 'Иванов Иван' })
  assert.deepEqual(await auth.authenticate([basic('Иванов Иван:не тот')], IP, null), { ok: false })
})

test("grant: '*' grants every service", async () => {
  const { auth, good } = await setup(['*'])
  for (const service of ['payments', 'receipts', 'materials', 'warehouses']) {
    assert.deepEqual(await auth.authenticate([good], IP, service), { ok: true, user: 'Иванов Иван' })
  }
})

test('grant: a change of methods takes effect on the next call', async () => {
  const { auth, users, good } = await setup(['payments'])
  assert.equal((await auth.authenticate([good], IP, 'receipts')).ok, false)
  await users.add('Иванов Иван', 'пароль№1', ['payments', 'receipts'])
  assert.equal((await auth.authenticate([good], IP, 'receipts')).ok, true)
})

test('grant (A5): eleven calls to services not granted do not lock out the granted one', async () => {
  const { auth, good } = await setup(['payments'])
  const others = [
    'receipts',
    'morders',
    'transfers',
    'materials',
    'specifications',
    'nomenclature',
    'cashflows',
    'contracts',
    'counterparties',
    'warehouses',
    'organizations',
  ]
  for (const service of others) assert.deepEqual(await auth.authenticate([good], IP, service), { ok: false })
  assert.deepEqual(await auth.authenticate([good], IP, 'payments'), { ok: true, user: 'Иванов Иван' })
})
