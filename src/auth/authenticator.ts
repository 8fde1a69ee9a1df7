/**
 * The authentication decision for one request: Basic credentials → user, or a refusal.
 *
 * Order of the checks, each chosen so the expensive step runs as rarely as possible:
 *   1. strict parse (no KDF for malformed headers), unless the header was verified before:
 *      its cache key then names the user without a parse;
 *   2. lock check per (user, address) and per account, before anything else, so a locked
 *      client gets no KDF and no cache hit even with the right password;
 *   3. the verified-credential cache (a hit never runs the KDF);
 *   4. the KDF, deduplicated per credential, behind a concurrency gate;
 *   5. the service grant, on every request, cached or not.
 * Every refusal looks the same to the client (401); only `retryAfterSeconds` may differ.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto'
import { throttleAddress } from './address.js'
import { parseBasic } from './basic.js'
import type { BasicCredentials } from './basic.js'
import { KdfGate } from './kdf-gate.js'
import { LRUCache } from 'lru-cache'
import { sha256, unmatchableHash, verifyPassword } from './password.js'
import { PER_ACCOUNT, PER_ADDRESS, Throttle } from './throttle.js'

export interface UserRecord {
  readonly name: string
  readonly hash: string
  readonly methods: readonly string[] // service names, or '*' for all
}

/** An in-memory snapshot of the credential store; names are NFC (provisioning normalises). */
export interface UserDirectory {
  get(name: string): UserRecord | undefined
}

export interface AuthenticatorOptions {
  users: UserDirectory
  now?: () => number
  kdfConcurrency?: number
  kdfQueue?: number
  cacheTtlMs?: number
  dummyHash?: string
  /** Bound of each throttle table (entries); 20,000 by default. */
  throttleEntries?: number
  /** Bound of the verified-credential cache (entries); 10,000 by default. */
  cacheEntries?: number
  /** The password check; tests substitute an instrumented one. */
  verify?: (password: string, stored: string) => Promise<boolean>
}

export type AuthResult = { ok: true; user: string } | { ok: false; retryAfterSeconds?: number }

interface CachedCredential {
  readonly hashDigest: Buffer // SHA-256 of the record hash the credential was verified against
  readonly expiresAt: number
  /** The credential's user name (NFC) and its throttle key, so that a hit needs neither parse nor digest. */
  readonly user: string
  readonly accountKey: string
}

// 'busy': the KDF queue was full or the attempt allowance is taken by checks in flight.
type Verdict = 'match' | 'mismatch' | 'busy'

const FAIL: AuthResult = { ok: false }
const BUSY: AuthResult = { ok: false, retryAfterSeconds: 1 }

export class Authenticator {
  readonly #users: UserDirectory
  readonly #now: () => number
  readonly #ttlMs: number
  readonly #dummyHash: string
  readonly #verify: (password: string, stored: string) => Promise<boolean>
  readonly #gate: KdfGate
  // Per-instance secret: cache keys are useless outside this process, and a memory dump
  // of the cache holds no replayable header.
  readonly #secret = randomBytes(32).toString('base64')
  readonly #cache: LRUCache<string, CachedCredential>
  readonly #addresses = new LRUCache<string, string>({ max: 1000 })
  readonly #perAddress: Throttle
  readonly #perAccount: Throttle
  // Checks in flight, by credential and hash: identical concurrent requests (a client's
  // cold-cache burst) share one KDF. Bounded by the gate's concurrency plus queue.
  readonly #inflight = new Map<string, Promise<Verdict>>()
  readonly #digests = new WeakMap<UserRecord, Buffer>()
  readonly #dummyDigest: Buffer
  #kdfRuns = 0
  #kdfActive = 0
  #kdfPeak = 0

  constructor(options: AuthenticatorOptions) {
    this.#users = options.users
    this.#now = options.now ?? Date.now
    this.#ttlMs = options.cacheTtlMs ?? 10 * 60_000
    // A random key at OWASP cost: costs a full KDF and matches nothing. Cheap to build, so
    // it is made here rather than lazily.
    this.#dummyHash = options.dummyHash ?? unmatchableHash()
    this.#dummyDigest = sha256(this.#dummyHash)
    this.#verify = options.verify ?? verifyPassword
    this.#gate = new KdfGate(options.kdfConcurrency ?? 2, options.kdfQueue ?? 32)
    this.#cache = new LRUCache({ max: options.cacheEntries ?? 10_000 })
    // Entries exist only for failing names, so 20,000 per table is ample, and keeps both
    // tables under ~8 MB of heap however many names clients invent. Evicting a locked entry
    // would take 20,000 fresh KDF runs (~2 h at ~3 per second), longer than the longest
    // lock, and every retry against the target refreshes it.
    const throttleEntries = options.throttleEntries ?? 20_000
    this.#perAddress = new Throttle(PER_ADDRESS, throttleEntries)
    this.#perAccount = new Throttle(PER_ACCOUNT, throttleEntries)
  }

  /** KDF executions so far, dummy runs included (for tests and metrics). */
  get kdfRuns(): number {
    return this.#kdfRuns
  }

  /** KDF checks waiting for a slot of the gate. */
  get kdfQueued(): number {
    return this.#gate.queued
  }

  /** The highest number of KDFs that ever ran at the same time. */
  get kdfPeak(): number {
    return this.#kdfPeak
  }

  /** `service` null: any issued user passes, whatever their grants (health, decision "Health"). */
  async authenticate(headerValues: readonly string[], ip: string, service: string | null): Promise<AuthResult> {
    const header = headerValues[0]
    if (headerValues.length !== 1 || header === undefined) return FAIL
    // A credential verified before is known by its key alone: no parse, no name digest.
    const cacheKey = this.#cacheKeyOf(header)
    const known = this.#cache.get(cacheKey)
    let credentials: BasicCredentials | null = null
    if (known === undefined) {
      credentials = parseBasic(headerValues)
      if (credentials === null) return FAIL
    }
    const user = known?.user ?? credentials!.user

    // Throttle keys hold a 128-bit digest, not the name: names are unbounded in length, and
    // the tables must stay small whatever clients send (a collision would only make two
    // names share a counter, and finding one costs ~2^64 hashes).
    const accountKey = known?.accountKey ?? sha256(user).subarray(0, 16).toString('base64url')
    const addressKey = accountKey + this.#addressOf(ip)
    const start = this.#now()
    const wait = Math.max(this.#perAddress.lockedFor(addressKey, start), this.#perAccount.lockedFor(accountKey, start))
    if (wait > 0) return { ok: false, retryAfterSeconds: wait }

    const record = this.#users.get(user)
    const hashDigest = record === undefined ? this.#dummyDigest : this.#digestOf(record)

    let verdict: Verdict
    let cached = false
    if (known !== undefined && record !== undefined && this.#cacheHit(cacheKey, known, hashDigest, start)) {
      verdict = 'match'
      cached = true
    } else {
      // Expired or stale: the header parsed when it was stored, and parses the same now.
      credentials ??= parseBasic(headerValues)
      if (credentials === null) return FAIL
      const hash = record?.hash ?? this.#dummyHash
      verdict = await this.#check(`${cacheKey} ${hashDigest.toString('base64')}`, credentials.password, hash, addressKey, accountKey, start)
    }
    if (verdict === 'busy') return BUSY

    const now = this.#now()
    // An unknown user always fails, whatever the dummy check said (a test dummy hash may
    // well be the hash of some password).
    if (record === undefined || verdict === 'mismatch') {
      this.#perAddress.recordFailure(addressKey, now)
      this.#perAccount.recordFailure(accountKey, now)
      const lock = Math.max(this.#perAddress.lockedFor(addressKey, now), this.#perAccount.lockedFor(accountKey, now))
      return lock > 0 ? { ok: false, retryAfterSeconds: lock } : FAIL
    }

    // The TTL runs from the KDF check, not from the last hit: a credential is re-verified
    // at least once per TTL however busy it is.
    if (!cached) this.#cache.set(cacheKey, { hashDigest, expiresAt: now + this.#ttlMs, user, accountKey })
    // Not granted: 401 like a wrong password, but no throttle failure, because the password
    // was right. Counting it would lock out a client that merely called a service it lacks
    // (and then its granted calls too); a right guess teaches an attacker nothing the
    // granted services would not.
    if (service !== null && !record.methods.includes(service) && !record.methods.includes('*')) return FAIL

    this.#perAddress.recordSuccess(addressKey)
    this.#perAccount.recordSuccess(accountKey)
    return { ok: true, user: record.name }
  }

  // Records are an immutable snapshot: a changed password is a new record, so its digest
  // is computed once per record rather than once per request.
  #digestOf(record: UserRecord): Buffer {
    let digest = this.#digests.get(record)
    if (digest === undefined) this.#digests.set(record, (digest = sha256(record.hash)))
    return digest
  }

  /** A hit needs an unexpired entry verified against the user's *current* hash. */
  #cacheHit(cacheKey: string, entry: CachedCredential, hashDigest: Buffer, now: number): boolean {
    if (now < entry.expiresAt && timingSafeEqual(entry.hashDigest, hashDigest)) return true
    // Expired, or the password changed since: the entry can never hit again.
    this.#cache.delete(cacheKey)
    return false
  }

  // A keyed digest of the header: useless outside this process, and a memory dump of the
  // cache holds no replayable header. Keys are never shown to anyone, so the secret as a
  // prefix of one SHA-256 does what an HMAC would, in one call instead of three objects.
  #cacheKeyOf(header: string): string {
    return hash('sha256', this.#secret + header, 'base64')
  }

  // Clients keep their address across requests: its throttle form is worked out once.
  #addressOf(ip: string): string {
    let address = this.#addresses.get(ip)
    if (address === undefined) this.#addresses.set(ip, (address = throttleAddress(ip)))
    return address
  }

  /**
   * Runs (or joins) the KDF for one credential. Deliberately not `async` up to the
   * registration in `#inflight`, so concurrent identical requests see each other.
   */
  #check(flightKey: string, password: string, hash: string, addressKey: string, accountKey: string, now: number): Promise<Verdict> {
    const running = this.#inflight.get(flightKey)
    if (running !== undefined) return running

    if (!this.#perAddress.reserve(addressKey, now)) return Promise.resolve('busy')
    if (!this.#perAccount.reserve(accountKey, now)) {
      this.#perAddress.release(addressKey)
      return Promise.resolve('busy')
    }
    const release = (): void => {
      this.#inflight.delete(flightKey)
      this.#perAddress.release(addressKey)
      this.#perAccount.release(accountKey)
    }

    const run = this.#gate.run(() => this.#kdf(password, hash))
    if (run === undefined) {
      release()
      return Promise.resolve('busy')
    }
    const flight = run
      .then(
        (matches): Verdict => (matches ? 'match' : 'mismatch'),
        (): Verdict => 'mismatch',
      )
      .finally(release)
    this.#inflight.set(flightKey, flight)
    return flight
  }

  async #kdf(password: string, hash: string): Promise<boolean> {
    this.#kdfRuns += 1
    this.#kdfActive += 1
    this.#kdfPeak = Math.max(this.#kdfPeak, this.#kdfActive)
    try {
      return await this.#verify(password, hash)
    } finally {
      this.#kdfActive -= 1
    }
  }
}
