/**
 * Dates as whole day numbers (days since 1970-01-01) so that date arithmetic in the
 * generators is integer arithmetic and formatting needs no Date objects.
 */

const DAY_MS = 86_400_000

export function dayFromIso(text: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (!m) throw new RangeError(`expected a date YYYY-MM-DD, got ${JSON.stringify(text)}`)
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const day = Date.UTC(y, mo - 1, d) / DAY_MS
  if (isoDate(day) !== text) throw new RangeError(`not a calendar date: ${text}`)
  return day
}

/** Civil date of a day number (H. Hinnant's days-to-civil algorithm). */
function civil(day: number): [number, number, number] {
  const z = day + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d]
}

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n)
}

export function isoDate(day: number): string {
  const [y, m, d] = civil(day)
  return `${y}-${two(m)}-${two(d)}`
}

/** `YYYY-MM-DDTHH:MM:SS`, local time of the accounting system. */
export function isoDateTime(day: number, secondOfDay: number): string {
  const h = Math.floor(secondOfDay / 3600)
  const mi = Math.floor((secondOfDay % 3600) / 60)
  return `${isoDate(day)}T${two(h)}:${two(mi)}:${two(secondOfDay % 60)}`
}

export function ruDate(day: number): string {
  const [y, m, d] = civil(day)
  return `${two(d)}.${two(m)}.${y}`
}

export function yearOf(day: number): number {
  return civil(day)[0]
}

/** Rounds to kopecks, half away from zero, as the API does. */
export function round2(x: number): number {
  const r = Math.round(Math.abs(x) * 100 + 1e-7) / 100
  return x < 0 ? -r : r
}

export function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}
