/** Warehouse and production documents: transfers, production orders, requirement-invoices. */
import { yearOf } from './calendar.js'
import { comment, header, pickOrg } from './context.js'
import type { Ctx } from './context.js'
import type { Obj } from './model.js'
import { DEMAND_COMMENTS, TRANSFER_COMMENTS } from './names.js'
import type { Item } from './nomenclature.js'
import { quantity } from './quantities.js'
import type { Rng } from './random.js'

function materialRow(item: Item, qty: number): Obj {
  return { Номенклатура: item.ref, Количество: qty, ЕдиницаИзмерения: item.unitRef }
}

export function transfer(ctx: Ctx, index: number): Obj {
  const { rng, object } = header(ctx, ctx.kinds.transfer, index)
  const { cat, nom } = ctx
  const [from, to] = rng.sample(cat.stores, 2)
  const count = rng.int(1, 15)
  Object.assign(object, {
    Ответственный: rng.pick(cat.users).ref,
    Комментарий: comment(rng, TRANSFER_COMMENTS, 0.4),
    СкладОтправитель: from?.ref ?? '',
    СкладПолучатель: to?.ref ?? '',
    Товары: Array.from({ length: count }, () => {
      const item = rng.pick(nom.stock)
      return {
        Номенклатура: item.ref,
        ХарактеристикаНоменклатуры: rng.chance(0.3) ? rng.pick(cat.characteristics).ref : '',
        ЕдиницаИзмерения: item.unitRef,
        Количество: quantity(rng, item.unitName, 0.5),
      }
    }),
  })
  return object
}

/** The contract a production order is made for lives in its comment, as in the source system. */
function productionComment(rng: Rng, day: number): string {
  const r = rng.float()
  if (r < 0.7) return `Договор № ${rng.int(1, 60)}/${yearOf(day) - (rng.chance(0.3) ? 1 : 0)}`
  if (r < 0.8) return rng.pick(['Для склада', 'Пополнение запаса полуфабрикатов', 'Внутренний заказ цеха'])
  return ''
}

export function productionOrder(ctx: Ctx, index: number): Obj {
  const probe = header(ctx, ctx.kinds.production, index)
  // An occasional order without a number, which the API prints as `Не указан`.
  const { rng, day, object } = probe.rng.chance(0.015) ? header(ctx, ctx.kinds.production, index, 0.95, false) : probe
  const { cat, nom } = ctx
  const org = pickOrg(rng)
  const products = rng.sample(nom.products.length > 0 ? nom.products : nom.saleable, rng.int(1, 3))
  const output = products.map((p) => ({
    item: p,
    qty: p.unitName === 'шт' || p.unitName === 'компл' ? rng.int(1, 20) : quantity(rng, p.unitName),
  }))
  const first = output[0]
  let materials: Obj[]
  if (first?.item.spec) {
    materials = first.item.spec.rows
      .filter((r) => r.item.kind !== 'Продукция')
      .slice(0, 15)
      .map((r) => materialRow(r.item, Math.round(r.qty * first.qty * 1000) / 1000))
  } else {
    materials = []
  }
  if (materials.length === 0) {
    materials = Array.from({ length: rng.int(2, 8) }, () => {
      const item = rng.pick(nom.stock)
      return materialRow(item, quantity(rng, item.unitName, 0.5))
    })
  }
  Object.assign(object, {
    Организация: cat.orgs[org]?.ref ?? '',
    Ответственный: rng.pick(cat.users).ref,
    Комментарий: productionComment(rng, day),
    Продукция: output.map((o) => materialRow(o.item, o.qty)),
    Материалы: materials,
  })
  return object
}

/** Row counts chosen so that every Russian plural form of `N позиция` occurs (1, 2–4, 5+, 11, 21). */
function demandRowCount(rng: Rng): number {
  const r = rng.float()
  if (r < 0.1) return 1
  if (r < 0.4) return rng.int(2, 4)
  if (r < 0.7) return rng.int(5, 10)
  if (r < 0.75) return 11
  if (r < 0.85) return rng.int(12, 20)
  if (r < 0.9) return 21
  return rng.int(22, 30)
}

export function demand(ctx: Ctx, index: number): Obj {
  const { rng, object } = header(ctx, ctx.kinds.demand, index)
  const { cat, nom } = ctx
  const pool = nom.materials.length > 0 ? nom.materials : nom.stock
  const count = demandRowCount(rng)
  Object.assign(object, {
    Ответственный: rng.pick(cat.users).ref,
    Комментарий: comment(rng, DEMAND_COMMENTS, 0.35),
    Склад: rng.pick(cat.stores).ref,
    Материалы: Array.from({ length: count }, () => {
      const item = rng.pick(pool)
      return materialRow(item, quantity(rng, item.unitName, 0.5))
    }),
  })
  return object
}
