// HTTP Basic with UTF-8 credentials (RFC 7617, charset="UTF-8"), the way docgate reads them.
// btoa() alone takes only Latin-1 text and throws on a Cyrillic name, so the UTF-8 bytes are
// turned into one character per byte first; TextEncoder and btoa exist in browsers and Node.

/** The `Authorization` header value for a user name and password. */
export function basicAuthorization(user: string, password: string): string {
  // The first colon separates the two: a name with one could never be told apart.
  if (user.includes(':')) throw new TypeError('An HTTP Basic user name cannot contain ":"')
  const bytes = new TextEncoder().encode(`${user}:${password}`)
  let binary = ''
  // In slices: String.fromCharCode(...bytes) of a long password would overflow the call stack.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return `Basic ${btoa(binary)}`
}
