/**
 * Consecutive-failure lockout, checked before any KDF runs.
 *
 * One class serves both tables the authenticator keeps:
 * - per (user, address): after `threshold` = 10 failures, a lock of 1 s that doubles on each
 *   further failure after a lock has expired, up to 15 min (the AWS Cognito pattern quoted by
 *   the OWASP WSTG). Guessing slows to a crawl, yet nobody can lock a user out for long.
 * - per account: after 100 consecutive failures from any addresses, a 15-min lock
 *   (NIST SP 800-63B §5.2.2), renewed by each failure after it expires.
 *
 * Attempts whose KDF is still running are counted as `pending`, so a client that fires many
 * guesses in parallel gets no more KDF runs than one that sends them one by one.
 */
import { LRUCache } from 'lru-cache'

export interface ThrottlePolicy {
  /** Consecutive failures that trigger the first lock. */
  readonly threshold: number
  readonly firstLockMs: number
  readonly maxLockMs: number
}

export const PER_ADDRESS: ThrottlePolicy = { threshold: 10, firstLockMs: 1_000, maxLockMs: 15 * 60_000 }
export const PER_ACCOUNT: ThrottlePolicy = { threshold: 100, firstLockMs: 15 * 60_000, maxLockMs: 15 * 60_000 }

interface Entry {
  failures: number
  pending: number
  lockedUntil: number
  lockMs: number
}

export class Throttle {
  readonly #policy: ThrottlePolicy
  readonly #entries: LRUCache<string, Entry>

  constructor(policy: ThrottlePolicy, capacity: number) {
    this.#policy = policy
    this.#entries = new LRUCache({ max: capacity })
  }

  /**
   * Whole seconds until `key` may try again (at least 1 while locked); 0 when not locked.
   * This is the first look at a key in each request, so it alone refreshes the LRU order.
   */
  lockedFor(key: string, now: number): number {
    const entry = this.#entries.get(key)
    if (entry === undefined || now >= entry.lockedUntil) return 0
    return Math.max(1, Math.ceil((entry.lockedUntil - now) / 1000))
  }

  /**
   * Reserves one password check for `key`. Refused while locked, or when the attempts
   * already in flight use up what is left before the next lock: the full threshold at
   * first, then one attempt per expired lock window.
   */
  reserve(key: string, now: number): boolean {
    const entry = this.#entries.peek(key)
    if (entry === undefined) {
      this.#entries.set(key, { failures: 0, pending: 1, lockedUntil: 0, lockMs: 0 })
      return true
    }
    if (now < entry.lockedUntil) return false
    const allowance = entry.failures < this.#policy.threshold ? this.#policy.threshold - entry.failures : 1
    if (entry.pending >= allowance) return false
    entry.pending += 1
    return true
  }

  /** Returns a reservation once its password check has finished (or never started). */
  release(key: string): void {
    const entry = this.#entries.peek(key)
    if (entry === undefined) return
    if (entry.pending > 0) entry.pending -= 1
    // A reservation whose check never ran (KDF queue full) leaves nothing worth keeping.
    if (entry.pending === 0 && entry.failures === 0 && entry.lockMs === 0) this.#entries.delete(key)
  }

  recordFailure(key: string, now: number): void {
    let entry = this.#entries.peek(key)
    if (entry === undefined) {
      entry = { failures: 0, pending: 0, lockedUntil: 0, lockMs: 0 }
      this.#entries.set(key, entry)
    }
    // A failure that finishes while a lock is already running was admitted before the lock;
    // escalating on it would punish one burst as if it were many lock windows.
    if (now < entry.lockedUntil) return
    entry.failures += 1
    if (entry.failures < this.#policy.threshold) return
    entry.lockMs = entry.lockMs === 0 ? this.#policy.firstLockMs : Math.min(entry.lockMs * 2, this.#policy.maxLockMs)
    entry.lockedUntil = now + entry.lockMs
  }

  /** A success ends the run of consecutive failures and forgets the lock history. */
  recordSuccess(key: string): void {
    const entry = this.#entries.peek(key)
    if (entry === undefined) return
    if (entry.pending > 0) {
      // Keep the reservations of checks still running; only the failure history goes.
      entry.failures = 0
      entry.lockedUntil = 0
      entry.lockMs = 0
    } else {
      this.#entries.delete(key)
    }
  }
}
