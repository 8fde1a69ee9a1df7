/** Trade documents: supplier orders, goods receipts, customer orders. */
import { isoDate, round2 } from './calendar.js'
import type { Counterparty } from './catalogues.js'
import { comment, docLink, header, indexAtDay, pickOrg } from './context.js'
import type { Ctx } from './context.js'
import type { Obj } from './model.js'
import { ORDER_COMMENTS, SERVICE_CONTENTS } from './names.js'
import type { Item } from './nomenclature.js'
import { quantity, roundPrice, vatIncluded } from './quantities.js'
import type { VatRate } from './quantities.js'
import type { Rng } from './random.js'

interface Goods {
  item: Item
  characteristic: string
  qty: number
  price: number
}

interface TradeHead {
  day: number
  org: number
  counterparty: Counterparty
  warehouse: string
  amount: number
  goods: Goods[]
}

export interface Built {
  head: TradeHead
  object: Obj
}

function optionalDay(rng: Rng, share: number, day: number, min: number, max: number): string {
  return rng.chance(share) ? isoDate(day + rng.int(min, max)) : ''
}

function randomGoods(ctx: Ctx, rng: Rng, pool: readonly Item[], count: number, characteristicShare: number): Goods[] {
  return Array.from({ length: count }, () => {
    const item = rng.pick(pool)
    return {
      item,
      characteristic: rng.chance(characteristicShare) ? rng.pick(ctx.cat.characteristics).ref : '',
      qty: quantity(rng, item.unitName),
      price: roundPrice(item.price * rng.uniform(0.85, 1.1)),
    }
  })
}

/** A row of an order's Товары (the same shape for customer and supplier orders). */
function orderRow(rng: Rng, g: Goods, vat: VatRate, planned: number, spec: string): Obj {
  const sum = round2(g.qty * g.price)
  const piece = g.item.unitName === 'шт' || g.item.unitName === 'компл'
  return {
    Номенклатура: g.item.ref,
    ХарактеристикаНоменклатуры: g.characteristic,
    Количество: g.qty,
    Цена: g.price,
    Сумма: sum,
    ЕдиницаИзмерения: g.item.unitRef,
    КоличествоМест: piece ? g.qty : rng.int(1, 12),
    Коэффициент: 1,
    ПлановаяСебестоимость: planned,
    СуммаНДС: vatIncluded(sum, vat),
    СтавкаНДС: vat,
    Спецификация: spec,
  }
}

function total(goods: readonly Goods[]): number {
  let sum = 0
  for (const g of goods) sum += round2(g.qty * g.price)
  return round2(sum)
}

export function supplierOrder(ctx: Ctx, index: number): Built {
  const { rng, day, object } = header(ctx, ctx.kinds.supplierOrder, index)
  const { cat, nom } = ctx
  const org = pickOrg(rng)
  const counterparty = cat.foreign.length > 0 && rng.chance(0.06) ? rng.pick(cat.foreign) : rng.pick(cat.suppliers)
  const warehouse = rng.pick(cat.stores).ref
  const goods = randomGoods(ctx, rng, nom.stock, rng.int(1, 12), 0.2)
  const noVat = counterparty.foreign || rng.chance(0.1)
  const rows = goods.map((g) => {
    const planned = rng.chance(0.2) ? round2(g.qty * g.price * rng.uniform(0.8, 0.95)) : 0
    return orderRow(rng, g, noVat ? 'Без НДС' : g.item.vat, planned, '')
  })
  const amount = total(goods)
  Object.assign(object, {
    Организация: cat.orgs[org]?.ref ?? '',
    Ответственный: rng.pick(cat.users).ref,
    Комментарий: comment(rng, ORDER_COMMENTS, 0.55),
    Контрагент: counterparty.ref,
    СуммаДокумента: amount,
    Склад: warehouse,
    ДатаОплаты: optionalDay(rng, 0.8, day, 0, 30),
    ДатаПоступления: optionalDay(rng, 0.85, day, 3, 45),
    Товары: rows,
  })
  return { head: { day, org, counterparty, warehouse, amount, goods }, object }
}

export function receipt(ctx: Ctx, index: number): Built {
  const { rng, day, object } = header(ctx, ctx.kinds.receipt, index)
  const { cat, nom, kinds } = ctx
  const j = rng.chance(0.7) ? indexAtDay(ctx, kinds.supplierOrder, day - rng.int(2, 30)) : -1
  const order = j >= 0 ? supplierOrder(ctx, j).head : undefined
  const org = order?.org ?? pickOrg(rng)
  const counterparty = order?.counterparty ?? rng.pick(cat.suppliers)
  const warehouse = order?.warehouse ?? rng.pick(cat.stores).ref
  const goods = order?.goods ?? randomGoods(ctx, rng, nom.stock, rng.int(1, 12), 0.2)
  const noVat = counterparty.foreign || rng.chance(0.1)
  const services = rng.chance(0.25) && nom.services.length > 0 ? rng.int(1, 3) : 0
  const amount = total(goods)
  Object.assign(object, {
    Организация: cat.orgs[org]?.ref ?? '',
    Ответственный: rng.pick(cat.users).ref,
    Комментарий: comment(rng, ORDER_COMMENTS, 0.6),
    Контрагент: counterparty.ref,
    СкладОрдер: warehouse,
    СуммаДокумента: amount,
    Сделка: j >= 0 ? docLink(ctx, kinds.supplierOrder, j) : null,
    Товары: goods.map((g) => {
      const sum = round2(g.qty * g.price)
      const vat = noVat ? 'Без НДС' : g.item.vat
      return {
        Номенклатура: g.item.ref,
        ХарактеристикаНоменклатуры: g.characteristic,
        ЕдиницаИзмерения: g.item.unitRef,
        Количество: g.qty,
        Цена: g.price,
        Сумма: sum,
        СтавкаНДС: vat,
        СуммаНДС: vatIncluded(sum, vat),
      }
    }),
    Услуги: Array.from({ length: services }, () => ({
      Содержание: rng.pick(SERVICE_CONTENTS),
      Номенклатура: rng.pick(nom.services).ref,
    })),
  })
  return { head: { day, org, counterparty, warehouse, amount, goods }, object }
}

/** Largest ordered batch of a product by its tier: brackets by the dozen, switchboards by the piece. */
const PRODUCT_BATCH = [50, 8, 4]

/**
 * Rows exercise every planned-cost path of the API: a stored cost, a zero cost with the
 * row's own specification, and a zero cost resolved through the nomenclature's main one.
 */
export function customerOrder(ctx: Ctx, index: number): Obj {
  const { rng, day, object } = header(ctx, ctx.kinds.customerOrder, index)
  const { cat, nom } = ctx
  const org = pickOrg(rng)
  const counterparty = rng.pick(cat.customers)
  const contract = rng.chance(0.95) ? rng.pick(counterparty.contracts).ref : ''
  const usePlanned = rng.chance(0.65)
  const noVat = rng.chance(0.05)
  let plannedTotal = 0
  const rows: Obj[] = []
  const count = rng.int(1, 10)
  for (let k = 0; k < count; k++) {
    const item = nom.products.length > 0 && rng.chance(0.6) ? rng.pick(nom.products) : rng.pick(nom.saleable)
    const qty = item.kind === 'Продукция' ? rng.int(1, PRODUCT_BATCH[item.tier] ?? 5) : quantity(rng, item.unitName)
    const g: Goods = {
      item,
      characteristic: rng.chance(0.15) ? rng.pick(cat.characteristics).ref : '',
      qty,
      price: roundPrice(item.price * rng.uniform(0.95, 1.15)),
    }
    let planned = 0
    let effective = 0
    let spec = ''
    const mode = rng.float()
    if (item.spec && mode < 0.35) {
      planned = round2(qty * item.spec.unitCost * rng.uniform(0.95, 1.05))
      spec = rng.chance(0.5) ? item.spec.ref : ''
    } else if (item.spec && mode < 0.7) {
      const chosen = rng.pick(item.specs)
      spec = chosen.ref
      effective = round2(qty * chosen.unitCost)
    } else if (item.spec) {
      effective = round2(qty * item.spec.unitCost)
    } else if (mode < 0.5) {
      planned = round2(qty * g.price * rng.uniform(0.6, 0.85))
    }
    plannedTotal += planned || effective
    rows.push(orderRow(rng, g, noVat ? 'Без НДС' : item.vat, planned, spec))
  }
  const amount = round2(rows.reduce((s, r) => s + (r['Сумма'] as number), 0))
  Object.assign(object, {
    Организация: cat.orgs[org]?.ref ?? '',
    Ответственный: rng.pick(cat.users).ref,
    Комментарий: comment(rng, ORDER_COMMENTS, 0.5),
    Контрагент: counterparty.ref,
    ДоговорКонтрагента: contract,
    ИспользоватьПлановуюСебестоимость: usePlanned,
    ИтогПлановаяСебестоимость: usePlanned ? round2(plannedTotal) : 0,
    СуммаДокумента: amount,
    Склад: rng.pick(cat.stores).ref,
    ДатаОплаты: optionalDay(rng, 0.85, day, 0, 45),
    ДатаОтгрузки: optionalDay(rng, 0.7, day, 5, 60),
    Товары: rows,
  })
  return object
}
