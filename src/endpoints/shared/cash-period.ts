// The effective period of a cash statement (spec § GET /main/hs/cashflows/get): `from`
// alone ends today, `to` alone starts at 01.01.0001, `date` is one whole day, none is
// 01.01.0001 to today. Days are inclusive at both ends.
import { dmy, isoDay, parseDay, today } from '../../values/dates.js'
import type { Day } from '../../values/dates.js'
import { messages } from '../../values/messages.js'

export interface CashPeriod {
  /** ISO days, both inclusive. */
  readonly from: string
  readonly to: string
}

const FIRST_DAY: Day = { year: 1, month: 1, day: 1 }

/**
 * An invalid date is reported and then treated as not given (spec § Errors: `data` holds
 * what could be selected). A valid `date` wins over `from`/`to` ("one day instead of
 * from/to"). A period that ends before it starts is reported and selects nothing.
 */
export function cashPeriod(values: ReadonlyMap<string, string>, now: Date, issues: string[]): CashPeriod | undefined {
  const day = (name: string): Day | undefined => {
    const raw = values.get(name)
    if (raw === undefined) return undefined
    const d = parseDay(raw)
    if (!d) issues.push(messages.badDate(name, raw))
    return d
  }
  const from = day('from')
  const to = day('to')
  const one = day('date')
  if (one) return { from: isoDay(one), to: isoDay(one) }
  const period = { from: isoDay(from ?? FIRST_DAY), to: isoDay(to ?? today(now)) }
  if (period.from > period.to) {
    issues.push(messages.periodReversed(dmy(period.from), dmy(period.to)))
    return undefined
  }
  return period
}
