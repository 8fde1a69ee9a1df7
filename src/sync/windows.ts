// Date windows of a scan (sync.md §7.2): calendar months from the month of the earliest
// value to the current month, the last one open-ended (it holds future dates); a month
// that needed more than 10 pages is read day by day from the next cycle on.

export interface Window {
  /** `*` (no window), `YYYY-MM`, `YYYY-MM-DD`; a trailing `+` marks the open-ended last one. */
  readonly id: string
  /** `YYYY-MM-DDT00:00:00`, inclusive. */
  readonly from?: string
  /** Exclusive; absent on the last window. */
  readonly to?: string
}

export const WHOLE: Window = { id: '*' }

const pad = (n: number) => String(n).padStart(2, '0')
const monthId = (y: number, m: number) => `${y}-${pad(m)}`
const dayStart = (d: string) => `${d}T00:00:00`

/** The local calendar day of `date` as `YYYY-MM-DD` (1C dates are the infobase's local time). */
export function localDay(date: Date = new Date()): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}

export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + n)
  return d.toISOString().slice(0, 10)
}

function daysOf(y: number, m: number): string[] {
  const n = new Date(Date.UTC(y, m, 0)).getUTCDate()
  return Array.from({ length: n }, (_, i) => `${y}-${pad(m)}-${pad(i + 1)}`)
}

/** Windows from the month of `earliest` (a 1C date-time) to the month of `today`. */
export function monthWindows(earliest: string, today: string, dayMonths: ReadonlySet<string>): Window[] {
  let y = Number(earliest.slice(0, 4))
  let m = Number(earliest.slice(5, 7))
  const ty = Number(today.slice(0, 4))
  const tm = Number(today.slice(5, 7))
  // An earliest value after the current month: one open-ended window from its month.
  if (y > ty || (y === ty && m > tm)) return [{ id: `${monthId(y, m)}+`, from: dayStart(`${monthId(y, m)}-01`) }]
  const out: Window[] = []
  for (;;) {
    const last = y === ty && m === tm
    const id = monthId(y, m)
    if (dayMonths.has(id)) {
      const days = daysOf(y, m).filter((d) => !last || d <= today)
      days.forEach((d, i) => {
        const open = last && i === days.length - 1
        out.push(open ? { id: `${d}+`, from: dayStart(d) } : { id: d, from: dayStart(d), to: dayStart(addDays(d, 1)) })
      })
    } else {
      const nextY = m === 12 ? y + 1 : y
      const nextM = m === 12 ? 1 : m + 1
      out.push(
        last
          ? { id: `${id}+`, from: dayStart(`${id}-01`) }
          : { id, from: dayStart(`${id}-01`), to: dayStart(`${monthId(nextY, nextM)}-01`) },
      )
    }
    if (last) return out
    if (m === 12) {
      y++
      m = 1
    } else m++
  }
}

/** `$filter` text of a window over `property` (`Date`, `Period`). */
export function windowFilter(property: string, w: Window): string | undefined {
  if (w.from === undefined) return undefined
  const lower = `${property} ge datetime'${w.from}'`
  return w.to === undefined ? lower : `${lower} and ${property} lt datetime'${w.to}'`
}

/**
 * The windows of a recent scan (§7.4): those of the last `months` calendar months, the
 * month of `today` counted, and the open-ended last one.
 */
export function recentWindows(windows: readonly Window[], today: string, months: number): Window[] {
  let y = Number(today.slice(0, 4))
  let m = Number(today.slice(5, 7)) - (months - 1)
  while (m < 1) {
    m += 12
    y--
  }
  const from = dayStart(`${monthId(y, m)}-01`)
  return windows.filter((w) => w.to === undefined || (w.from !== undefined && w.from >= from))
}
