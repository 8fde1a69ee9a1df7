// Товары of customer and supplier orders (spec § Customer order, § Supplier order: the same
// row fields), and the store's specifications for the planned-cost calculation, read for a
// whole page of orders (by-owner.ts).
import type { SqlPort } from '../../store/sql.js'
import type { FullTrace } from '../../views/define.js'
import { readByOwner } from '../../store/by-owner.js'
import type { ByOwner } from '../../store/by-owner.js'
import { nestedSpecification, PlannedCosts, rowSpecifications } from './planned-cost.js'
import type { OrderRow, SpecSource, Specification } from './planned-cost.js'

export interface GoodsRow extends OrderRow {
  /** The printed row without ПлановаяСебестоимость, which the caller decides. */
  readonly print: (plannedCost: number) => Record<string, unknown>
}

interface StoredRow {
  readonly owner: string
  readonly nomenclature: string
  readonly characteristic: string
  readonly quantity: number
  readonly price: number
  readonly amount: number
  readonly unit: string
  readonly places: number
  readonly coefficient: number
  readonly planned_cost: number
  readonly vat_amount: number
  readonly vat_rate: string
  readonly specification: string
  readonly spec_name: string
  readonly main_spec: string
}

/** The Товары rows of each order of `owners` from `table` (doc_customer_orders_goods or doc_supplier_orders_goods), in row order. */
export async function orderGoods(sql: SqlPort, table: string, owners: readonly string[]): Promise<ByOwner<GoodsRow>> {
  const rows = await readByOwner<StoredRow>(
    sql,
    (list) =>
      "SELECT g.owner, COALESCE(n.name, '') AS nomenclature, COALESCE(ch.presentation, '') AS characteristic, g.quantity, g.price, g.amount, " +
      "COALESCE(u.presentation, '') AS unit, g.places, g.coefficient, g.planned_cost, g.vat_amount, g.vat_rate, g.specification, " +
      "COALESCE(sp.presentation, '') AS spec_name, COALESCE(n.main_spec, '') AS main_spec " +
      `FROM ${table} g LEFT JOIN cat_nomenclature n ON n.ref = g.nomenclature LEFT JOIN objects ch ON ch.ref = g.characteristic ` +
      `LEFT JOIN objects u ON u.ref = g.unit LEFT JOIN objects sp ON sp.ref = g.specification WHERE g.owner IN (${list}) ORDER BY g.owner, g.line`,
    owners,
  )
  return (owner) => rows(owner).map(goodsRow)
}

function goodsRow(r: StoredRow): GoodsRow {
  return {
    plannedCost: r.planned_cost,
    quantity: r.quantity,
    specification: r.specification,
    mainSpec: r.main_spec,
    print: (plannedCost) => ({
      Номенклатура: r.nomenclature,
      ХарактеристикаНоменклатуры: r.characteristic,
      Количество: r.quantity,
      Цена: r.price,
      Сумма: r.amount,
      ЕдиницаИзмерения: r.unit,
      КоличествоМест: r.places,
      Коэффициент: r.coefficient,
      ПлановаяСебестоимость: plannedCost,
      СуммаНДС: r.vat_amount,
      СтавкаНДС: r.vat_rate,
      Спецификация: r.spec_name,
    }),
  }
}

/** The six Стоимость… columns of a specification. */
const COSTS = ['cost_works', 'cost_transport', 'cost_overhead', 'cost_equipment', 'cost_connections', 'cost_design'] as const

type Head = { readonly owner: string; readonly name: string } & Record<(typeof COSTS)[number], number>
type Material = {
  readonly owner: string
  readonly quantity: number
  readonly price: number
  readonly amount: number
  readonly main_spec: string
}

const HEADS = (list: string) => `SELECT ref AS owner, name, ${COSTS.join(', ')} FROM cat_specifications WHERE ref IN (${list})`
const MATERIALS = (list: string) =>
  "SELECT m.owner, m.quantity, m.price, m.amount, COALESCE(n.main_spec, '') AS main_spec FROM cat_specifications_materials m " +
  `LEFT JOIN cat_nomenclature n ON n.ref = m.nomenclature WHERE m.owner IN (${list}) ORDER BY m.owner, m.line`

/** A specification as read: undefined when it is not stored, or the failure of its own read. */
type Read = { readonly spec: Specification | undefined } | { readonly error: unknown }

/**
 * Specifications as stored (catalogue СпецификацииНоменклатуры with its Материалы), read
 * level by level: `preload` reads the given ones and then the main specifications their
 * unit costs follow, two queries per level; `spec` answers from what was read.
 */
export class StoredSpecifications implements SpecSource {
  readonly #sql: SqlPort
  readonly #read = new Map<string, Read>()

  constructor(sql: SqlPort) {
    this.#sql = sql
  }

  async preload(refs: Iterable<string>): Promise<void> {
    let level = [...new Set(refs)].filter((ref) => ref !== '' && !this.#read.has(ref))
    while (level.length > 0) {
      const heads = await readByOwner<Head>(this.#sql, HEADS, level)
      const materials = await readByOwner<Material>(this.#sql, MATERIALS, level)
      const next = new Set<string>()
      for (const ref of level) {
        let read: Read
        try {
          // Materials are consulted only for a stored specification, as a per-specification read would.
          const head = heads(ref)[0]
          read = {
            spec: head && {
              name: head.name,
              costs: COSTS.map((c) => Number(head[c])),
              materials: materials(ref).map((m) => ({ quantity: m.quantity, price: m.price, amount: m.amount, mainSpec: m.main_spec })),
            },
          }
        } catch (error) {
          read = { error }
        }
        this.#read.set(ref, read)
        for (const m of 'spec' in read ? (read.spec?.materials ?? []) : []) {
          const nested = nestedSpecification(m)
          if (nested !== '') next.add(nested)
        }
      }
      level = [...next].filter((ref) => !this.#read.has(ref))
    }
  }

  async spec(ref: string): Promise<Specification | undefined> {
    if (ref === '') return undefined
    // Only a specification no preload reached is read here (one level, on demand).
    if (!this.#read.has(ref)) await this.preload([ref])
    const read = this.#read.get(ref)!
    if ('error' in read) throw read.error
    return read.spec
  }
}

/** Товары of one order with ПлановаяСебестоимость, and the specification cycles met on the way. */
export interface PlannedGoods {
  readonly rows: readonly Record<string, unknown>[]
  readonly cycles: readonly string[][]
}

/**
 * Planned costs over one context's pages (a rebuild at import): the specifications are read once
 * and the calculator keeps its unit costs across pages.
 */
export class RequestCosts {
  readonly #specs: StoredSpecifications
  readonly #calc: PlannedCosts

  constructor(sql: SqlPort) {
    this.#specs = new StoredSpecifications(sql)
    this.#calc = new PlannedCosts(this.#specs)
  }

  /** The planned Товары of each order of `owners`; throws the failure of the order's own reads. */
  async page(goods: ByOwner<GoodsRow>, owners: readonly string[]): Promise<(owner: string) => PlannedGoods> {
    const readable = (owner: string): GoodsRow[] => {
      try {
        return goods(owner)
      } catch {
        return []
      }
    }
    await this.#specs.preload(owners.flatMap((owner) => readable(owner).flatMap(rowSpecifications)))
    // Document by document in row order, as before batching: the calculator keeps unit
    // costs between rows, and each document reports the cycles it meets.
    const planned = new Map<string, () => PlannedGoods>()
    for (const owner of owners) {
      try {
        const cycles: string[][] = []
        const rows: Record<string, unknown>[] = []
        for (const g of goods(owner)) rows.push(g.print(await this.#calc.row(g, cycles)))
        planned.set(owner, () => ({ rows, cycles }))
      } catch (err) {
        planned.set(owner, () => {
          throw err
        })
      }
    }
    return (owner) => planned.get(owner)!()
  }
}

/**
 * The orders of `goodsTable` whose planned cost may reach a changed object: `dirty` holds
 * every specification whose unit cost may have changed — a touched main specification, the
 * owner of a material row whose nomenclature was touched, and, recursively, the owner of a
 * material row whose nomenclature's main specification is dirty; an order row with no
 * stored cost reaches it through its Спецификация or its nomenclature's main one. (A touched
 * row specification or row nomenclature is the tabular trace's: views/rebuild.ts.)
 */
export const plannedCostTrace = (goodsTable: string): FullTrace => ({
  types: ['Справочник.СпецификацииНоменклатуры', 'Справочник.Номенклатура'],
  sql:
    'WITH RECURSIVE dirty(ref) AS (' +
    'SELECT n.main_spec FROM cat_nomenclature n WHERE n.main_spec IN (SELECT ref FROM _touched) ' +
    'UNION SELECT m.owner FROM cat_specifications_materials m WHERE m.nomenclature IN (SELECT ref FROM _touched) ' +
    'UNION SELECT m.owner FROM dirty d JOIN cat_nomenclature n ON n.main_spec = d.ref JOIN cat_specifications_materials m ON m.nomenclature = n.ref' +
    `) SELECT g.owner AS ref FROM ${goodsTable} g LEFT JOIN cat_nomenclature n ON n.ref = g.nomenclature ` +
    'WHERE g.planned_cost = 0 AND (g.specification IN (SELECT ref FROM dirty) OR n.main_spec IN (SELECT ref FROM dirty))',
})
