// Query string → what the request asks for, in the endpoint's own terms, plus the
// in-band problems (`errors` entries). Nothing here judges whether rows exist.
import type { Param, Period, Rule, Truthy } from './define.js'
import { dayEnd, isoDay, parseDay } from '../values/dates.js'
import { messages } from '../values/messages.js'

export interface ParsedRequest {
  /** Effective text of every given parameter, by its spec name (`_slash_` already replaced). */
  readonly values: ReadonlyMap<string, string>
  readonly flags: ReadonlyMap<string, boolean>
  readonly options: Readonly<Record<string, boolean>>
  /** Inclusive-exclusive day bounds on the period column: `from ≤ column < toExclusive`. */
  readonly ranges: readonly { readonly from: string; readonly toExclusive: string }[]
  readonly issues: string[]
}

interface Spec {
  readonly params: readonly Param[]
  readonly period?: Period
  readonly rules?: readonly Rule[]
}

/** First value of each key (decision D2: repeated keys → the first one wins). */
export function queryPairs(rawQuery: string): Map<string, string> {
  const pairs = new Map<string, string>()
  for (const [k, v] of new URLSearchParams(rawQuery)) if (!pairs.has(k)) pairs.set(k, v)
  return pairs
}

function lookup(
  pairs: ReadonlyMap<string, string>,
  p: { name: string; aliases?: readonly string[]; keyCaseInsensitive?: boolean },
): string | undefined {
  const names = [p.name, ...(p.aliases ?? [])]
  for (const [key, value] of pairs) {
    const hit = p.keyCaseInsensitive ? names.some((n) => n.toLowerCase() === key.toLowerCase()) : names.includes(key)
    // An empty value is the same as an absent parameter (decision D5).
    if (hit && value !== '') return value
  }
  return undefined
}

export const isIn = (set: Truthy, value: string): boolean => set.includes(value.toLowerCase())

export function parseRequest(spec: Spec, pairs: ReadonlyMap<string, string>): ParsedRequest {
  const values = new Map<string, string>()
  const flags = new Map<string, boolean>()
  const options: Record<string, boolean> = {}
  const issues: string[] = []
  for (const p of spec.params) {
    const raw = lookup(pairs, p)
    if (raw === undefined) continue
    const value = p.slash ? raw.replaceAll('_slash_', '/') : raw
    if (p.stage === 'option' || (p.stage === 'database' && p.match === 'flag')) {
      const on = isIn(p.truthy, value)
      if (!on && p.falsy && !isIn(p.falsy, value)) {
        issues.push(messages.badBoolean(p.name, value))
        continue
      }
      if (p.stage === 'option') options[p.name] = on
      else flags.set(p.name, on)
    }
    values.set(p.name, value)
  }
  const ranges = spec.period ? parsePeriod(spec.period, pairs, issues) : []
  for (const rule of spec.rules ?? []) {
    const active = options[rule.when] === true || (!(rule.when in options) && values.has(rule.when))
    if (active && !rule.needsAnyOf.some((n) => values.has(n))) {
      issues.push(rule.message)
      if (rule.then === 'drop-option') options[rule.when] = false
    }
  }
  return { values, flags, options, ranges, issues }
}

function parsePeriod(period: Period, pairs: ReadonlyMap<string, string>, issues: string[]) {
  const day = (name: string) => {
    const raw = pairs.get(name)
    if (raw === undefined || raw === '') return undefined
    const d = parseDay(raw)
    if (!d) issues.push(messages.badDate(name, raw))
    return d ?? null
  }
  const ranges: { from: string; toExclusive: string }[] = []
  const from = day('from')
  const to = day('to')
  // `from` or `to` alone is simply not a period filter ("work only together"): the spec's
  // Errors table does not list it, so it adds no `errors` entry (decision "from or to alone").
  if (from && to) ranges.push({ from: isoDay(from), toExclusive: dayEnd(to) })
  if (period.date) {
    const one = day('date')
    if (one) ranges.push({ from: isoDay(one), toExclusive: dayEnd(one) })
  }
  return ranges
}
