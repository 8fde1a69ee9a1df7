/**
 * Parsing of the HTTP Basic `Authorization` header (RFC 7617), strict on purpose.
 *
 * The spec says credentials are Base64 of UTF-8 and that any other encoding gets 401, so
 * nothing here repairs or guesses: lenient Base64 (Node's own decoder skips bad characters)
 * or lossy UTF-8 (`Buffer#toString` turns cp1251 into U+FFFD) would let two different byte
 * strings reach the same user, or let a wrongly encoded name become some other valid name.
 * Anything unusual yields `null`, and the caller answers 401.
 */

export interface BasicCredentials {
  readonly user: string
  readonly password: string
}

// The scheme is case-insensitive (RFC 7235 §2.1). Decision D2: one or more spaces before the
// token are accepted, tabs are not, trailing spaces are. The token itself is any run of
// non-space characters here; the Base64 check below decides whether it is acceptable, so a
// space inside the token fails this pattern and a tab inside it fails the Base64 check.
const HEADER = /^basic +([^ ]+) *$/i

// RFC 4648 §4 alphabet, whole quanta only, with exactly the padding the length requires.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

// RFC 7617 §2: user-id and password must not contain control characters (RFC 5234 CTL).
const CONTROL = /[\u0000-\u001f\u007f]/

// `fatal` turns every malformed sequence (overlong forms, CESU-8 surrogates, stray
// continuation bytes, single-byte code pages) into an exception instead of U+FFFD.
// `ignoreBOM` keeps a leading U+FEFF in the text, so a BOM-prefixed credential is a
// different name and cannot match a provisioned user.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Parses the `Authorization` header values of one request into NFC-normalised credentials.
 *
 * `values` must hold every `Authorization` value the request carried (from `rawHeaders`):
 * a request with two such headers is ambiguous and gets `null`, the same answer every time.
 */
export function parseBasic(values: readonly string[]): BasicCredentials | null {
  if (values.length !== 1) return null
  const match = HEADER.exec(values[0] ?? '')
  const token = match?.[1]
  if (token === undefined || !isCanonicalBase64(token)) return null

  let text: string
  try {
    text = UTF8.decode(Buffer.from(token, 'base64'))
  } catch {
    return null
  }

  // The first colon separates the two parts, so a password may contain colons and a user
  // name may not (RFC 7617 §2).
  const colon = text.indexOf(':')
  if (colon < 0) return null
  const user = text.slice(0, colon)
  const password = text.slice(colon + 1)
  if (user.length === 0 || password.length === 0) return null
  if (CONTROL.test(user) || CONTROL.test(password)) return null

  // Decision D1: names and passwords are compared in NFC, as RFC 7617's charset="UTF-8"
  // prescribes, so a client that sends NFD (macOS file names, some keyboards) still matches.
  return { user: normalizeCredential(user), password: normalizeCredential(password) }
}

/** The one normalisation applied to names and passwords, at provisioning and at check time. */
export function normalizeCredential(text: string): string {
  return text.normalize('NFC')
}

/**
 * True when `token` is Base64 that a standard encoder could have produced: the strict
 * alphabet and padding, and no set bits after the last encoded byte. Without the last
 * rule `dQ==` and `dR==` would both decode to `u`, so one credential would have many
 * spellings (and many cache keys).
 */
function isCanonicalBase64(token: string): boolean {
  if (!BASE64.test(token)) return false
  if (token.endsWith('==')) return (ALPHABET.indexOf(token.charAt(token.length - 3)) & 0x0f) === 0
  if (token.endsWith('=')) return (ALPHABET.indexOf(token.charAt(token.length - 2)) & 0x03) === 0
  return true
}
