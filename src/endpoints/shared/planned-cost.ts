// Planned cost of a customer-order row (data-format.md § Derived values): the stored
// value, or, when it is 0, Количество × unitCost of the row's specification (else of the
// nomenclature's ОсновнаяСпецификация), where unitCost recurses through the main
// specifications of material rows. Pure: the specifications come from a SpecSource.
import { round2 } from '../../values/printed.js'

export interface MaterialRow {
  readonly quantity: number
  readonly price: number
  readonly amount: number
  /** ОсновнаяСпецификация of the row's nomenclature, '' when it has none. */
  readonly mainSpec: string
}

export interface Specification {
  readonly name: string
  /** The six Стоимость… attributes. */
  readonly costs: readonly number[]
  readonly materials: readonly MaterialRow[]
}

export interface SpecSource {
  /** undefined when `ref` is empty or names no stored specification. */
  spec(ref: string): Promise<Specification | undefined>
}

export interface OrderRow {
  readonly plannedCost: number
  readonly quantity: number
  /** The row's Спецификация, '' when empty. */
  readonly specification: string
  /** ОсновнаяСпецификация of the row's nomenclature, '' when none. */
  readonly mainSpec: string
}

/** The specifications `row()` may read for the row: its own, then the main one (none for a stored cost). */
export const rowSpecifications = (row: OrderRow): string[] => (row.plannedCost !== 0 ? [] : [row.specification, row.mainSpec])

/** A material row's own amount: Сумма, else Количество × Цена. */
const ownAmount = (m: MaterialRow): number => (m.amount !== 0 ? m.amount : round2(m.quantity * m.price))

/** The main specification a material row's cost is taken from (its own amount is 0), else ''. */
export const nestedSpecification = (m: MaterialRow): string => (ownAmount(m) === 0 ? m.mainSpec : '')

/**
 * One calculator per request: specifications are loaded once, and a unit cost found
 * without meeting a cycle is the same from every starting point, so it is kept.
 * Every computed amount is rounded to kopecks where it arises (a material row's
 * Количество × Цена or Количество × unitCost, each unitCost, the row's planned cost):
 * data-format.md § Derived values, "every computed amount is rounded".
 */
export class PlannedCosts {
  readonly #source: SpecSource
  readonly #specs = new Map<string, Promise<Specification | undefined>>()
  readonly #unitCosts = new Map<string, number>()

  constructor(source: SpecSource) {
    this.#source = source
  }

  /** The row's ПлановаяСебестоимость; each specification cycle met is added to `cycles` as the names along it. */
  async row(row: OrderRow, cycles: string[][]): Promise<number> {
    if (row.plannedCost !== 0) return row.plannedCost
    const spec = (await this.#spec(row.specification)) ? row.specification : row.mainSpec
    if (spec === '' || !(await this.#spec(spec))) return 0
    return round2(row.quantity * (await this.#unitCost(spec, [], cycles)))
  }

  #spec(ref: string): Promise<Specification | undefined> {
    if (ref === '') return Promise.resolve(undefined)
    let spec = this.#specs.get(ref)
    if (!spec) {
      spec = this.#source.spec(ref)
      this.#specs.set(ref, spec)
    }
    return spec
  }

  /** `path`: the specifications being computed, outermost first. */
  async #unitCost(ref: string, path: string[], cycles: string[][]): Promise<number> {
    const known = this.#unitCosts.get(ref)
    if (known !== undefined) return known
    const spec = await this.#spec(ref)
    if (!spec) return 0
    if (path.includes(ref)) {
      // Not followed again: the repeated specification contributes 0.
      const names = await Promise.all([...path.slice(path.indexOf(ref)), ref].map(async (r) => (await this.#spec(r))?.name ?? r))
      cycles.push(names)
      return 0
    }
    const cyclesBefore = cycles.length
    path.push(ref)
    let total = spec.costs.reduce((sum, c) => sum + c, 0)
    for (const m of spec.materials) {
      const nested = nestedSpecification(m)
      total += nested === '' ? ownAmount(m) : round2(m.quantity * (await this.#unitCost(nested, path, cycles)))
    }
    path.pop()
    const cost = round2(total)
    if (cycles.length === cyclesBefore) this.#unitCosts.set(ref, cost)
    return cost
  }
}
