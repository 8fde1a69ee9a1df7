import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { PlannedCosts } from '../../../src/endpoints/shared/planned-cost.js'
import type { MaterialRow, OrderRow, SpecSource, Specification } from '../../../src/endpoints/shared/planned-cost.js'

const m = (quantity: number, price: number, amount: number, mainSpec = ''): MaterialRow => ({ quantity, price, amount, mainSpec })
const spec = (name: string, costs: number[], materials: MaterialRow[] = []): Specification => ({ name, costs, materials })

/** An in-memory source that counts how often each specification is read. */
function source(specs: Record<string, Specification>): SpecSource & { reads: Map<string, number> } {
  const reads = new Map<string, number>()
  return {
    reads,
    async spec(ref) {
      reads.set(ref, (reads.get(ref) ?? 0) + 1)
      return specs[ref]
    },
  }
}

const row = (quantity: number, specification = '', mainSpec = '', plannedCost = 0): OrderRow => ({
  plannedCost,
  quantity,
  specification,
  mainSpec,
})

const SPECS = {
  // 1+2+3+4+5+6 = 21; rows: Сумма 7.5; 2 × 10 = 20; Сумма wins over a main specification; 0 × 5 with no main spec = 0
  a: spec('А', [1, 2, 3, 4, 5, 6], [m(3, 0, 7.5), m(2, 10, 0), m(5, 2, 10, 'b'), m(0, 5, 0)]),
  // b → c → d, each through a material row whose amount is 0
  b: spec('Б', [50], [m(2, 0, 0, 'c')]),
  c: spec('В', [0, 10], [m(3, 0, 0, 'd')]),
  d: spec('Г', [0, 0, 0, 0, 0, 0.333]),
  x: spec('X', [10], [m(1, 0, 0, 'y')]),
  y: spec('Y', [20], [m(2, 0, 0, 'x')]),
  self: spec('Сам', [5], [m(1, 0, 0, 'self'), m(1, 1, 0)]),
  dangling: spec('Висячая', [3], [m(4, 0, 0, 'missing')]),
}

describe('planned cost of an order row', () => {
  it('a non-zero stored value is printed as stored', async () => {
    const costs = new PlannedCosts(source(SPECS))
    assert.equal(await costs.row(row(10, 'a', 'b', 123.45), []), 123.45)
    assert.equal(await costs.row(row(10, '', '', -5), []), -5)
  })

  it('stored 0 with neither specification is 0', async () => {
    assert.equal(await new PlannedCosts(source(SPECS)).row(row(3), []), 0)
  })

  it("the row's specification: six costs plus the material rows, times Количество", async () => {
    // unitCost a = 21 + 7.5 + 20 + 10 + 0 = 58.5
    assert.equal(await new PlannedCosts(source(SPECS)).row(row(2, 'a', 'b'), []), 117)
  })

  it("without the row's specification, the nomenclature's main specification, recursively", async () => {
    // d = 0.33; c = 10 + 3 × 0.33 = 10.99; b = 50 + 2 × 10.99 = 71.98; × 1.5 = 107.97
    assert.equal(await new PlannedCosts(source(SPECS)).row(row(1.5, '', 'b'), []), 107.97)
  })

  it("a row specification that is not stored falls back to the nomenclature's", async () => {
    assert.equal(await new PlannedCosts(source(SPECS)).row(row(2, 'missing', 'c'), []), 21.98)
    assert.equal(await new PlannedCosts(source(SPECS)).row(row(2, 'missing', 'missing'), []), 0)
  })

  it('every computed amount is rounded to kopecks where it arises, half away from zero', async () => {
    // Rounded only at the end this would be 0.333 × 3 = 0.999 → 1.
    assert.equal(await new PlannedCosts(source(SPECS)).row(row(3, 'd'), []), 0.99)
    const half = source({ h: spec('H', [], [m(1, 0.005, 0), m(1, 0.005, 0)]) })
    assert.equal(await new PlannedCosts(half).row(row(1, 'h'), []), 0.02)
  })

  it('a main specification that is not stored contributes 0', async () => {
    assert.equal(await new PlannedCosts(source(SPECS)).row(row(1, 'dangling'), []), 3)
  })

  it('a cycle is not followed again: the repeated specification contributes 0 and the cycle is reported', async () => {
    const cycles: string[][] = []
    const costs = new PlannedCosts(source(SPECS))
    // x = 10 + 1 × y; y = 20 + 2 × (x repeated: 0) = 20; x = 30
    assert.equal(await costs.row(row(1, 'x'), cycles), 30)
    assert.deepEqual(cycles, [['X', 'Y', 'X']])
    // Entered from y: y = 20 + 2 × x; x = 10 + 1 × (y repeated: 0) = 10; y = 40
    assert.equal(await costs.row(row(1, 'y'), cycles), 40)
    assert.deepEqual(cycles, [
      ['X', 'Y', 'X'],
      ['Y', 'X', 'Y'],
    ])
  })

  it('a specification that contains itself', async () => {
    const cycles: string[][] = []
    assert.equal(await new PlannedCosts(source(SPECS)).row(row(2, 'self'), cycles), 12)
    assert.deepEqual(cycles, [['Сам', 'Сам']])
  })

  it('a cycle is reported again for every row that meets it', async () => {
    const costs = new PlannedCosts(source(SPECS))
    const first: string[][] = []
    const second: string[][] = []
    await costs.row(row(1, 'x'), first)
    assert.equal(await costs.row(row(1, 'x'), second), 30)
    assert.deepEqual(second, [['X', 'Y', 'X']])
  })

  it('reads each specification once and reuses unit costs found without a cycle', async () => {
    const src = source(SPECS)
    const costs = new PlannedCosts(src)
    assert.equal(await costs.row(row(1, 'b'), []), 71.98)
    assert.equal(await costs.row(row(2, 'b'), []), 143.96)
    assert.equal(await costs.row(row(1, 'c'), []), 10.99)
    assert.deepEqual(Object.fromEntries(src.reads), { b: 1, c: 1, d: 1 })
  })
})
