// A8: KDF concurrency limit and queue, with an instrumented password check that only
// finishes when the test says so (no timing involved).
import { test } from 'node:test'
import * as assert from 'node:assert/strict'
import { setImmediate as tick } from 'node:timers/promises'
import { Authenticator } from '../../src/auth/authenticator.js'
import type { AuthResult } from '../../src/auth/authenticator.js'
import { KdfGate } from '../../src/auth/kdf-gate.js'
import { basic, cheapDummyHash, TestDirectory } from './helpers.js'

/** A password check that counts runs in flight and waits for `finishNext`. */
class HeldVerifier {
  active = 0
  peak = 0
  readonly #held: Array<() => void> = []
  readonly verify = (): Promise<boolean> => {
    this.active += 1
    this.peak = Math.max(this.peak, this.active)
    return new Promise((resolve) =>
      this.#held.push(() => {
        this.active -= 1
        resolve(false)
      }),
    )
  }
  get held(): number {
    return this.#held.length
  }
  finishNext(): boolean {
    const next = this.#held.shift()
    next?.()
    return next !== undefined
  }
}

test('A8: concurrency never exceeds the limit and a full queue fails at once without KDF', async () => {
  const verifier = new HeldVerifier()
  const auth = new Authenticator({
    users: new TestDirectory(),
    dummyHash: await cheapDummyHash(),
    kdfConcurrency: 2,
    kdfQueue: 3,
    verify: verifier.verify,
  })
  const settled: AuthResult[] = []
  const requests = Array.from({ length: 10 }, (_, i) =>
    auth.authenticate([basic(`flood-${i}:x`)], `10.0.0.${i}`, 'payments').then((result) => {
      settled.push(result)
      return result
    }),
  )
  await tick()
  assert.equal(verifier.active, 2)
  assert.equal(settled.length, 5)
  assert.deepEqual(
    settled,
    Array.from({ length: 5 }, () => ({ ok: false, retryAfterSeconds: 1 })),
  )

  while (verifier.finishNext()) await tick()
  const results = await Promise.all(requests)
  assert.equal(results.filter((result) => result.ok).length, 0)
  assert.equal(verifier.peak, 2)
  assert.equal(auth.kdfPeak, 2)
  assert.equal(auth.kdfRuns, 5)
})

test('A8: a rejected (queue-full) request does not count as a throttle failure', async () => {
  const verifier = new HeldVerifier()
  const users = new TestDirectory()
  await users.add('U', 'p')
  const auth = new Authenticator({ users, dummyHash: await cheapDummyHash(), kdfConcurrency: 1, kdfQueue: 0, verify: verifier.verify })
  const first = auth.authenticate([basic('flood:x')], '10.0.0.1', 'payments')
  for (let i = 0; i < 20; i++) {
    assert.deepEqual(await auth.authenticate([basic(`U:${i}`)], '10.0.0.2', 'payments'), { ok: false, retryAfterSeconds: 1 })
  }
  verifier.finishNext()
  await first
  assert.equal(auth.kdfRuns, 1)
  assert.equal(verifier.held, 0)
})

test('KdfGate: a freed slot goes to the queued task, so a newcomer cannot exceed the limit', async () => {
  const gate = new KdfGate(1, 1)
  let running = 0
  let peak = 0
  const order: string[] = []
  const task =
    (name: string, hold: Promise<void> = Promise.resolve()) =>
    async (): Promise<void> => {
      running += 1
      peak = Math.max(peak, running)
      await hold
      order.push(name)
      running -= 1
    }
  let finishFirst = (): void => {}
  const first = gate.run(
    task(
      'first',
      new Promise((resolve) => {
        finishFirst = resolve
      }),
    ),
  )
  const queued = gate.run(task('queued'))
  assert.equal(gate.run(task('refused')), undefined)
  finishFirst()
  await first
  // The slot passed straight to 'queued'; a task arriving now must queue behind it.
  const late = gate.run(task('late'))
  assert.notEqual(late, undefined)
  await Promise.all([queued, late])
  assert.deepEqual(order, ['first', 'queued', 'late'])
  assert.equal(peak, 1)
})

test('KdfGate: limits are validated', () => {
  assert.throws(() => new KdfGate(0, 1), RangeError)
  assert.throws(() => new KdfGate(1, -1), RangeError)
})
