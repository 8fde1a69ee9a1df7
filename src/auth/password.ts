/**
 * Password hashing with scrypt, in a self-describing string format.
 *
 * Format: `scrypt$<log2 N>$<r>$<p>$<salt, Base64>$<key, Base64>`. The parameters travel with
 * each hash, so the cost can be raised later without invalidating stored passwords, and
 * tests can provision cheap hashes (`logN: 10`) that go through exactly the same check.
 */
import { hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { normalizeCredential } from './basic.js'

// OWASP Password Storage Cheat Sheet minimum for scrypt: N = 2^17, r = 8, p = 1.
const DEFAULT_LOG_N = 17
const BLOCK_SIZE = 8
const PARALLELISM = 1
const SALT_BYTES = 16
const KEY_BYTES = 32
// scrypt at N = 2^17, r = 8 needs about 128 MiB; Node's default limit of 32 MiB refuses it.
const MAX_MEMORY = 256 * 1024 * 1024

const SCHEME = 'scrypt'
const BASE64 = /^(?:[A-Za-z0-9+/]{4})+$|^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)$/
const SMALL_INTEGER = /^[1-9][0-9]?$/

interface ScryptParameters {
  readonly logN: number
  readonly r: number
  readonly p: number
}

export interface HashOptions {
  /** log2 of the scrypt cost N; 17 by default. Tests use 10 to stay fast. */
  readonly logN?: number
}

/** Hashes a password (after NFC normalisation) with a fresh random salt. */
export async function hashPassword(password: string, options: HashOptions = {}): Promise<string> {
  const parameters = { logN: options.logN ?? DEFAULT_LOG_N, r: BLOCK_SIZE, p: PARALLELISM }
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(normalizeCredential(password), salt, KEY_BYTES, parameters)
  return encode(parameters, salt, key)
}

/**
 * Checks a password against a stored hash. Any malformed hash, unsupported parameters or
 * scrypt failure gives `false`: a broken record must deny access, never throw into a 500.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = decode(stored)
  if (parsed === null) return false
  try {
    const key = await derive(normalizeCredential(password), parsed.salt, parsed.key.length, parsed.parameters)
    // Both buffers have the stored key's length, which timingSafeEqual requires.
    return timingSafeEqual(key, parsed.key)
  } catch {
    return false
  }
}

/**
 * A well-formed hash that no password matches (its key is random bytes, not derived from
 * anything). Verifying against it costs exactly one KDF at the given cost, which is what
 * the dummy run for unknown users needs.
 */
export function unmatchableHash(logN: number = DEFAULT_LOG_N): string {
  return encode({ logN, r: BLOCK_SIZE, p: PARALLELISM }, randomBytes(SALT_BYTES), randomBytes(KEY_BYTES))
}

// 64 symbols, so `byte & 63` is uniform; 20 symbols carry 120 bits.
const PASSWORD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const PASSWORD_LENGTH = 20

/** A strong random password from a URL-safe alphabet, for `users add` without a given one. */
export function generatePassword(): string {
  let password = ''
  for (const byte of randomBytes(PASSWORD_LENGTH)) password += PASSWORD_ALPHABET.charAt(byte & 63)
  return password
}

/** SHA-256 of the UTF-8 of `text`: fixed-length digests for keys and `timingSafeEqual`. */
export function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer')
}

function derive(password: string, salt: Buffer, length: number, parameters: ScryptParameters): Promise<Buffer> {
  const options = { N: 2 ** parameters.logN, r: parameters.r, p: parameters.p, maxmem: MAX_MEMORY }
  // The asynchronous form runs on the libuv pool, so a KDF never blocks the event loop.
  return new Promise((resolve, reject) => {
    scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

function encode(parameters: ScryptParameters, salt: Buffer, key: Buffer): string {
  const { logN, r, p } = parameters
  return [SCHEME, logN, r, p, salt.toString('base64'), key.toString('base64')].join('$')
}

function decode(stored: string): { parameters: ScryptParameters; salt: Buffer; key: Buffer } | null {
  const fields = stored.split('$')
  if (fields.length !== 6) return null
  const [scheme, logN, r, p, salt, key] = fields as [string, string, string, string, string, string]
  if (scheme !== SCHEME) return null
  if (![logN, r, p].every((field) => SMALL_INTEGER.test(field))) return null
  if (!BASE64.test(salt) || !BASE64.test(key)) return null
  const parameters = { logN: Number(logN), r: Number(r), p: Number(p) }
  // Bounds keep a corrupted record from asking for absurd work; memory is capped by maxmem.
  if (parameters.logN > 24 || parameters.r > 32 || parameters.p > 16) return null
  const saltBytes = Buffer.from(salt, 'base64')
  const keyBytes = Buffer.from(key, 'base64')
  if (saltBytes.length < 8 || keyBytes.length < 16 || keyBytes.length > 64) return null
  return { parameters, salt: saltBytes, key: keyBytes }
}
