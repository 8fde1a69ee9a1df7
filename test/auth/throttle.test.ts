// A7: brute-force throttling through the Authenticator, on a fake clock with cheap hashes.
import { test } from 'node:test'
import * as assert from 'node:assert/strict'
import { throttleAddress } from '../../src/auth/address.js'
import { Authenticator } from '../../src/auth/authenticator.js'
import { basic, cheapDummyHash, FakeClock, TestDirectory } from './helpers.js'

const GOOD = basic('U:right password')
const WRONG = basic('U:wrong password')
const wrong = (i: number): string => basic(`U:wrong password ${i}`)

async function setup(options: { kdfQueue?: number } = {}) {
  const users = new TestDirectory()
  await users.add('U', 'right password')
  const clock = new FakeClock()
  const auth = new Authenticator({ users, now: clock.now, dummyHash: await cheapDummyHash(), ...options })
  const attempt = (header: string, ip = '127.0.0.1') => auth.authenticate([header], ip, 'payments')
  return { auth, clock, attempt }
}

test('10 failures lock (user, ip): the right password from that ip fails without KDF, another ip succeeds', async () => {
  const { auth, attempt } = await setup()
  for (let i = 1; i <= 9; i++) assert.deepEqual(await attempt(WRONG), { ok: false })
  assert.deepEqual(await attempt(WRONG), { ok: false, retryAfterSeconds: 1 })
  assert.equal(auth.kdfRuns, 10)
  assert.deepEqual(await attempt(GOOD), { ok: false, retryAfterSeconds: 1 })
  assert.equal(auth.kdfRuns, 10)
  assert.deepEqual(await attempt(GOOD, '127.0.0.2'), { ok: true, user: 'U' })
  assert.equal(auth.kdfRuns, 11)
})

test('a cached right credential is also refused from a locked ip', async () => {
  const { auth, attempt } = await setup()
  assert.equal((await attempt(GOOD)).ok, true)
  for (let i = 0; i < 10; i++) await attempt(WRONG)
  assert.deepEqual(await attempt(GOOD), { ok: false, retryAfterSeconds: 1 })
  assert.equal(auth.kdfRuns, 11)
})

test('the lock expires after 1 s; the next failure locks for 2 s, then 4 s', async () => {
  const { auth, clock, attempt } = await setup()
  for (let i = 0; i < 10; i++) await attempt(WRONG)
  clock.advance(999)
  assert.deepEqual(await attempt(WRONG), { ok: false, retryAfterSeconds: 1 })
  assert.equal(auth.kdfRuns, 10)
  clock.advance(1)
  assert.deepEqual(await attempt(WRONG), { ok: false, retryAfterSeconds: 2 })
  assert.equal(auth.kdfRuns, 11)
  clock.advance(1999)
  assert.deepEqual(await attempt(GOOD), { ok: false, retryAfterSeconds: 1 })
  clock.advance(1)
  assert.deepEqual(await attempt(WRONG), { ok: false, retryAfterSeconds: 4 })
  assert.equal(auth.kdfRuns, 12)
})

test('the lock doubles up to 15 min and stays there', async () => {
  const { clock, attempt } = await setup()
  for (let i = 0; i < 9; i++) await attempt(WRONG)
  const locks: Array<number | undefined> = []
  for (let window = 0; window < 13; window++) {
    const result = await attempt(WRONG)
    assert.equal(result.ok, false)
    const seconds = result.ok ? undefined : result.retryAfterSeconds
    locks.push(seconds)
    clock.advance((seconds ?? 0) * 1000)
  }
  assert.deepEqual(locks, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900])
})

test('a success after an expired lock resets the counter of that ip', async () => {
  const { auth, clock, attempt } = await setup()
  for (let i = 0; i < 10; i++) await attempt(WRONG)
  clock.advance(1000)
  assert.deepEqual(await attempt(GOOD), { ok: true, user: 'U' })
  for (let i = 0; i < 9; i++) assert.deepEqual(await attempt(WRONG), { ok: false })
  assert.equal(auth.kdfRuns, 20)
})

test('A7: 1,000 sequential wrong attempts from one ip run the KDF 10 times; another ip still logs in', async () => {
  const { auth, attempt } = await setup()
  for (let i = 0; i < 1000; i++) {
    assert.equal((await attempt(wrong(i))).ok, false)
    if (i === 500) assert.deepEqual(await attempt(GOOD, '127.0.0.2'), { ok: true, user: 'U' })
  }
  assert.equal(auth.kdfRuns, 11)
})

test('concurrent wrong guesses from one ip get no more KDF runs than sequential ones', async () => {
  const { auth, attempt } = await setup({ kdfQueue: 64 })
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => attempt(wrong(i))))
  assert.equal(results.filter((result) => result.ok).length, 0)
  assert.equal(auth.kdfRuns, 10)
  assert.deepEqual(await attempt(GOOD), { ok: false, retryAfterSeconds: 1 })
})

test('account cap: 100 consecutive failures over many ips lock the account for everyone for 15 min, no KDF', async () => {
  const { auth, clock, attempt } = await setup()
  for (let i = 0; i < 99; i++) assert.deepEqual(await attempt(wrong(i), `10.0.${i >> 8}.${i & 255}`), { ok: false })
  assert.deepEqual(await attempt(wrong(99), '10.0.1.0'), { ok: false, retryAfterSeconds: 900 })
  assert.equal(auth.kdfRuns, 100)
  for (const ip of ['127.0.0.1', '127.0.0.2', '10.9.9.9']) {
    assert.deepEqual(await attempt(GOOD, ip), { ok: false, retryAfterSeconds: 900 })
  }
  assert.equal(auth.kdfRuns, 100)
  clock.advance(15 * 60_000)
  assert.deepEqual(await attempt(GOOD), { ok: true, user: 'U' })
})

test('A7: 200 failures over 20 ips (10 each) hit the account cap at the 100th', async () => {
  const { auth, attempt } = await setup()
  for (let host = 2; host <= 21; host++) {
    for (let i = 0; i < 10; i++) await attempt(wrong(host * 100 + i), `127.0.0.${host}`)
  }
  assert.equal(auth.kdfRuns, 100)
  assert.deepEqual(await attempt(GOOD, '127.0.0.99'), { ok: false, retryAfterSeconds: 900 })
})

test('the account count is of consecutive failures: a success resets it', async () => {
  const { auth, attempt } = await setup()
  for (let i = 0; i < 99; i++) await attempt(wrong(i), `10.0.0.${i}`)
  assert.equal((await attempt(GOOD, '10.0.1.1')).ok, true)
  for (let i = 0; i < 99; i++) assert.deepEqual(await attempt(wrong(i), `10.0.2.${i}`), { ok: false })
  assert.equal((await attempt(GOOD, '10.0.1.1')).ok, true)
  assert.equal(auth.kdfRuns, 199) // 198 failures + 1 right password; its second use is cached
})

test('unknown users are throttled exactly like known ones (no existence oracle)', async () => {
  const { auth, attempt } = await setup()
  for (let i = 0; i < 9; i++) assert.deepEqual(await attempt(basic(`ghost:${i}`)), { ok: false })
  assert.deepEqual(await attempt(basic('ghost:9')), { ok: false, retryAfterSeconds: 1 })
  assert.deepEqual(await attempt(basic('ghost:10')), { ok: false, retryAfterSeconds: 1 })
  assert.equal(auth.kdfRuns, 10)
})

test('unparseable headers are not counted as failures', async () => {
  const { auth, attempt } = await setup()
  for (let i = 0; i < 50; i++) await attempt('Basic dXNlcg==')
  assert.deepEqual(await attempt(GOOD), { ok: true, user: 'U' })
  assert.equal(auth.kdfRuns, 1)
})

test('one IPv6 /64 is one address for the throttle', async () => {
  const { auth, attempt } = await setup()
  for (let i = 1; i <= 10; i++) await attempt(WRONG, `2001:db8:1:2::${i.toString(16)}`)
  assert.deepEqual(await attempt(GOOD, '2001:db8:1:2:ffff:ffff:ffff:ffff'), { ok: false, retryAfterSeconds: 1 })
  assert.deepEqual(await attempt(GOOD, '2001:db8:1:3::1'), { ok: true, user: 'U' })
  assert.equal(auth.kdfRuns, 11)
})

test('throttleAddress: IPv4 as is, mapped IPv4 unwrapped, IPv6 reduced to its /64', () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:10.1.2.3', '10.1.2.3'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0DB8:0001:0002:0003:0004:0005:0006', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
    ['not an address', 'not an address'],
  ]
  for (const [ip, expected] of cases) assert.equal(throttleAddress(ip), expected, ip)
})
