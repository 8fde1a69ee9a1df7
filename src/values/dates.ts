// Date parameters (spec § Common rules 3): DD.MM.YYYY, YYYY-MM-DD, DD-MM-YYYY.
// Dates are plain calendar days as strings; JS Date is never used (it maps year 1 to 1901).

export interface Day {
  readonly year: number
  readonly month: number
  readonly day: number
}

const FORMATS: readonly [RegExp, (m: RegExpExecArray) => [string, string, string]][] = [
  [/^(\d{2})\.(\d{2})\.(\d{4})$/, (m) => [m[3]!, m[2]!, m[1]!]],
  [/^(\d{4})-(\d{2})-(\d{2})$/, (m) => [m[1]!, m[2]!, m[3]!]],
  [/^(\d{2})-(\d{2})-(\d{4})$/, (m) => [m[3]!, m[2]!, m[1]!]],
]

/** The day a parameter names, or undefined when it is not one of the three formats. */
export function parseDay(text: string): Day | undefined {
  for (const [re, pick] of FORMATS) {
    const m = re.exec(text)
    if (!m) continue
    const [y, mo, d] = pick(m).map(Number) as [number, number, number]
    return validDay(y, mo, d) ? { year: y, month: mo, day: d } : undefined
  }
  return undefined
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0')

/** `YYYY-MM-DD`, which compares correctly against stored `YYYY-MM-DDTHH:MM:SS`. */
export const isoDay = (d: Day): string => `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`

function nextDay(d: Day): Day {
  if (validDay(d.year, d.month, d.day + 1)) return { ...d, day: d.day + 1 }
  if (d.month < 12) return { year: d.year, month: d.month + 1, day: 1 }
  return { year: d.year + 1, month: 1, day: 1 }
}

/**
 * The exclusive upper bound of day `d` against stored `YYYY-MM-DDTHH:MM:SS` text: the next
 * day. After 31.12.9999 that would be `10000-01-01`, which sorts before every stored date,
 * so the last day ends at `9999-12-31T24` instead (after its last second, `T23:59:59`).
 */
export function dayEnd(d: Day): string {
  const next = nextDay(d)
  return next.year > 9999 ? `${isoDay(d)}T24` : isoDay(next)
}

/** Stored `YYYY-MM-DDTHH:MM:SS` (or '') → `DD.MM.YYYY` (or ''). */
export function dmy(stored: string): string {
  if (stored.length < 10) return ''
  return `${stored.slice(8, 10)}.${stored.slice(5, 7)}.${stored.slice(0, 4)}`
}

/** Today in the server's local time zone, as a Day. */
export function today(now: Date = new Date()): Day {
  return { year: now.getFullYear(), month: now.getMonth() + 1, day: now.getDate() }
}

export function validDay(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0
  return day <= days
}
