// Товары of customer and supplier orders (spec § Customer order, § Supplier order: the same
// row fields), and the store's specifications for the planned-cost calculation.
import type { SqlPort } from '../../store/sql.js'
import type { OrderRow, SpecSource, Specification } from './planned-cost.js'

export interface GoodsRow extends OrderRow {
  /** The printed row without ПлановаяСебестоимость, which the caller decides. */
  readonly print: (plannedCost: number) => Record<string, unknown>
}

interface StoredRow {
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

/** The Товары rows of order `owner` from `table` (doc_customer_orders_goods or doc_supplier_orders_goods), in row order. */
export async function orderGoods(sql: SqlPort, table: string, owner: string): Promise<GoodsRow[]> {
  const rows = await sql.all<StoredRow>(
    "SELECT COALESCE(n.name, '') AS nomenclature, COALESCE(ch.presentation, '') AS characteristic, g.quantity, g.price, g.amount, " +
      "COALESCE(u.presentation, '') AS unit, g.places, g.coefficient, g.planned_cost, g.vat_amount, g.vat_rate, g.specification, " +
      "COALESCE(sp.presentation, '') AS spec_name, COALESCE(n.main_spec, '') AS main_spec " +
      `FROM ${table} g LEFT JOIN cat_nomenclature n ON n.ref = g.nomenclature LEFT JOIN objects ch ON ch.ref = g.characteristic ` +
      'LEFT JOIN objects u ON u.ref = g.unit LEFT JOIN objects sp ON sp.ref = g.specification WHERE g.owner = ? ORDER BY g.line',
    [owner],
  )
  return rows.map((r) => ({
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
  }))
}

/** The six Стоимость… columns of a specification. */
const COSTS = ['cost_works', 'cost_transport', 'cost_overhead', 'cost_equipment', 'cost_connections', 'cost_design'] as const

/** Specifications as stored (catalogue СпецификацииНоменклатуры with its Материалы). */
export function storedSpecifications(sql: SqlPort): SpecSource {
  return {
    async spec(ref: string): Promise<Specification | undefined> {
      const head = await sql.all<{ name: string } & Record<(typeof COSTS)[number], number>>(
        `SELECT name, ${COSTS.join(', ')} FROM cat_specifications WHERE ref = ?`,
        [ref],
      )
      const s = head[0]
      if (!s) return undefined
      const materials = await sql.all<{ quantity: number; price: number; amount: number; main_spec: string }>(
        "SELECT m.quantity, m.price, m.amount, COALESCE(n.main_spec, '') AS main_spec FROM cat_specifications_materials m " +
          'LEFT JOIN cat_nomenclature n ON n.ref = m.nomenclature WHERE m.owner = ? ORDER BY m.line',
        [ref],
      )
      return {
        name: s.name,
        costs: COSTS.map((c) => Number(s[c])),
        materials: materials.map((m) => ({ quantity: m.quantity, price: m.price, amount: m.amount, mainSpec: m.main_spec })),
      }
    },
  }
}
