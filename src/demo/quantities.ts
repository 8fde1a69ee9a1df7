/** Quantities and prices that look like the units they are counted in. */
import { round2 } from './calendar.js'
import type { Rng } from './random.js'

function roundTo(x: number, digits: number): number {
  const f = 10 ** digits
  return Math.max(1 / f, Math.round(x * f) / f)
}

/** A quantity in `unit`; `size` scales the typical amount (1 = a document row). */
export function quantity(rng: Rng, unit: string, size = 1): number {
  switch (unit) {
    case 'шт':
    case 'компл':
      return rng.int(1, Math.max(2, Math.round(40 * size)))
    case 'т':
      return roundTo(rng.logUniform(0.05, 8) * size, 3)
    case 'кг':
      return roundTo(rng.logUniform(1, 300) * size, 1)
    case 'м':
      return roundTo(rng.logUniform(2, 400) * size, 1)
    case 'м2':
      return roundTo(rng.logUniform(1, 250) * size, 1)
    case 'м3':
      return roundTo(rng.logUniform(0.5, 40) * size, 2)
    case 'л':
      return roundTo(rng.logUniform(1, 120) * size, 1)
    default:
      return rng.int(1, 10)
  }
}

/** Prices above a hundred roubles are quoted in whole roubles. */
export function roundPrice(x: number): number {
  return x >= 100 ? Math.round(x) : Math.max(0.01, round2(x))
}

export type VatRate = '20%' | '10%' | 'Без НДС'

/** VAT contained in an amount that includes it. */
export function vatIncluded(amount: number, rate: VatRate): number {
  if (rate === '20%') return round2((amount * 20) / 120)
  if (rate === '10%') return round2((amount * 10) / 110)
  return 0
}
