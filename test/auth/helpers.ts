/**
 * Shared fixtures for the auth tests: header builders, hand-made legacy encoders, a fake
 * clock and an in-memory user directory with cheap hashes.
 */
import { normalizeCredential } from '../../src/auth/basic.js'
import type { UserDirectory, UserRecord } from '../../src/auth/authenticator.js'
import { hashPassword } from '../../src/auth/password.js'

/** `Basic <base64>` of the given bytes, or of the UTF-8 of the given text. */
export function basic(credentials: string | Uint8Array): string {
  const bytes = typeof credentials === 'string' ? Buffer.from(credentials, 'utf8') : Buffer.from(credentials)
  return `Basic ${bytes.toString('base64')}`
}

// ---- Legacy encoders. Unmappable characters become '?', as iconv-style encoders do. ----

type Encoder = (text: string) => Uint8Array

function singleByte(table: ReadonlyMap<string, number>): Encoder {
  return (text) =>
    Uint8Array.from([...text], (char) => {
      const code = char.codePointAt(0) ?? 0
      return code < 0x80 ? code : (table.get(char) ?? 0x3f)
    })
}

/** Maps the 64 letters А..я (U+0410..U+044F) to consecutive bytes from `first`. */
function contiguous(first: number, extras: Record<string, number>): Map<string, number> {
  const table = new Map(Object.entries(extras))
  for (let i = 0; i < 64; i++) table.set(String.fromCharCode(0x410 + i), first + i)
  return table
}

// Windows-1251: А..я at C0..FF. The extras include the characters of the classic mojibake
// "РџСЂРёРІРµС‚" (UTF-8 "Привет" read as cp1251).
export const cp1251 = singleByte(
  contiguous(0xc0, {
    Ё: 0xa8,
    ё: 0xb8,
    '№': 0xb9,
    Ђ: 0x80,
    '‚': 0x82,
    џ: 0x9f,
    І: 0xb2,
    µ: 0xb5,
  }),
)

// ISO-8859-5: А..я at B0..EF.
export const iso88595 = singleByte(contiguous(0xb0, { Ё: 0xa1, ё: 0xf1, '№': 0xf0 }))

// KOI8-R orders letters by their Latin transliteration; it has no '№'.
const KOI8_LOWER = 'юабцдефгхийклмнопярстужвьызшэщчъ'
const KOI8_UPPER = 'ЮАБЦДЕФГХИЙКЛМНОПЯРСТУЖВЬЫЗШЭЩЧЪ'
export const koi8r = singleByte(
  new Map([
    ...[...KOI8_LOWER].map((char, i): [string, number] => [char, 0xc0 + i]),
    ...[...KOI8_UPPER].map((char, i): [string, number] => [char, 0xe0 + i]),
    ['ё', 0xa3],
    ['Ё', 0xb3],
  ]),
)

export const utf16le: Encoder = (text) => Buffer.from(text, 'utf16le')

/** What `btoa`-style code does with non-Latin-1 text when it masks each code unit. */
export const latin1PerCodeUnit: Encoder = (text) => Uint8Array.from({ length: text.length }, (_, i) => text.charCodeAt(i) & 0xff)

/** CESU-8: each UTF-16 surrogate encoded on its own as a three-byte sequence. */
export const cesu8: Encoder = (text) => {
  const bytes: number[] = []
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdfff) bytes.push(0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f))
    else bytes.push(...Buffer.from(text.charAt(i), 'utf8'))
  }
  return Uint8Array.from(bytes)
}

/** UTF-8 except that '/' is written as the overlong two-byte form C0 AF. */
export const overlongSlash: Encoder = (text) =>
  Uint8Array.from([...text].flatMap((char) => (char === '/' ? [0xc0, 0xaf] : [...Buffer.from(char, 'utf8')])))

export const utf8WithBom: Encoder = (text) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')])

// ---- Clock and directory ----

export class FakeClock {
  time = 1_700_000_000_000
  readonly now = (): number => this.time
  advance(ms: number): void {
    this.time += ms
  }
}

/** A directory like the server's snapshot: names NFC-normalised at provisioning. */
export class TestDirectory implements UserDirectory {
  readonly #records = new Map<string, UserRecord>()

  get(name: string): UserRecord | undefined {
    return this.#records.get(name)
  }

  async add(name: string, password: string, methods: readonly string[] = ['*']): Promise<UserRecord> {
    const record = { name: normalizeCredential(name), hash: await hashPassword(password, { logN: 10 }), methods }
    this.#records.set(record.name, record)
    return record
  }

  revoke(name: string): void {
    this.#records.delete(normalizeCredential(name))
  }
}

export const cheapDummyHash = (): Promise<string> => hashPassword('dummy password', { logN: 10 })
