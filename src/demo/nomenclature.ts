/** The nomenclature tree and the specifications of its products. */
import { isoDate, pad, round2, yearOf } from './calendar.js'
import type { Catalogues } from './catalogues.js'
import { TREE } from './items.js'
import type { ItemKind, SubgroupTemplate } from './items.js'
import { SALT, T } from './model.js'
import type { Named, Obj, Part } from './model.js'
import { NameSet } from './names.js'
import { quantity, roundPrice } from './quantities.js'
import type { VatRate } from './quantities.js'
import { Rng, uuid } from './random.js'

export interface Item extends Named {
  parent: string
  kind: ItemKind
  unitRef: string
  unitName: string
  article: string
  ngroup: string
  supplier: string
  price: number
  vat: VatRate
  /** Specification tier for products, -1 for everything else. */
  tier: number
  /** Usable specifications (not marked for deletion), the main one first. */
  specs: Spec[]
  spec: Spec | undefined
}

interface SpecRow {
  item: Item
  qty: number
  price: number
  sum: number
}

interface Spec extends Named {
  parent: string
  approved: number | undefined
  responsible: string
  costs: readonly number[]
  rows: SpecRow[]
  stages: number[]
  /** Planned cost of one unit, by the API's recursive rule. */
  unitCost: number
}

interface Group extends Named {
  parent: string
}

export interface Nomenclature {
  items: Item[]
  /** Materials and goods: what is bought, moved and consumed. */
  stock: Item[]
  materials: Item[]
  products: Item[]
  /** Goods and products: what customers order. */
  saleable: Item[]
  services: Item[]
  specs: Spec[]
  parts: Part[]
}

/** Emission order: every reference points to an entry emitted earlier. */
type Entry = { kind: 'group'; type: string; group: Group } | { kind: 'item'; item: Item } | { kind: 'spec'; spec: Spec }

const COST_RANGES: readonly (readonly [chance: number, lo: number, hi: number])[] = [
  [0.7, 300, 40_000],
  [0.5, 200, 15_000],
  [0.55, 100, 20_000],
  [0.25, 1_000, 50_000],
  [0.1, 5_000, 150_000],
  [0.3, 1_000, 80_000],
]

/** How much of a material one unit of a product of each tier takes: a bracket needs little steel. */
const TIER_SIZE = [0.01, 0.1, 0.05]

function unitCost(spec: Omit<Spec, 'unitCost'>): number {
  let total = spec.costs.reduce((a, b) => a + b, 0)
  for (const row of spec.rows) {
    const amount = row.sum !== 0 ? row.sum : row.qty * row.price
    total += amount === 0 && row.item.spec ? row.qty * row.item.spec.unitCost : amount
  }
  return total
}

function specRowCount(rng: Rng): number {
  const r = rng.float()
  if (r < 0.08) return 1
  if (r < 0.3) return rng.int(2, 4)
  if (r < 0.7) return rng.int(5, 10)
  if (r < 0.9) return rng.int(11, 18)
  return rng.int(19, 25)
}

export function buildNomenclature(key: number, count: number, cat: Catalogues, start: number, today: number): Nomenclature {
  const rng = Rng.stream(key, SALT.nomenclatureStream)
  const byName = <N extends Named>(list: readonly N[]) => new Map(list.map((n) => [n.name, n]))
  const units = byName(cat.units)
  const ngroups = byName(cat.ngroups)
  const kinds = byName(cat.itemKinds)
  const entries: Entry[] = []
  let code = 0

  const subgroups: { template: SubgroupTemplate; top: Group; sub: Group }[] = []
  let groupIndex = 0
  const group = (name: string, parent: string): Group => {
    const g = { ref: uuid(key, SALT.itemGroup, groupIndex++), code: pad(++code, 9), name, deleted: false, parent }
    entries.push({ kind: 'group', type: T.item, group: g })
    return g
  }
  for (const t of TREE) {
    const top = group(t.name, '')
    for (const s of t.subgroups) subgroups.push({ template: s, top, sub: group(s.name, top.ref) })
  }

  const productSubgroups = [0, 1, 2].map((tier) => subgroups.find((s) => s.template.tier === tier))
  const weights = subgroups.map((s) => s.template.weight)
  const names = new NameSet()
  const items: Item[] = []
  for (let i = 0; i < count; i++) {
    // The first elements seed every product tier, so that even the smallest data set has
    // specifications that recurse two levels deep.
    const place = (i < 9 ? productSubgroups[i % 3] : undefined) ?? rng.weighted(subgroups, weights)
    const t = place.template
    let base = rng.pick(t.bases)
    const name = names.unique(() => {
      base = rng.pick(t.bases)
      return `${base.name} ${rng.pick(base.variants).replace('#', String(rng.int(1, 60)))}`
    })
    const unit = units.get(base.unit)
    const bought = t.kind === 'Материал' || t.kind === 'Товар'
    const item: Item = {
      ref: uuid(key, SALT.item, i),
      code: pad(++code, 9),
      name,
      deleted: i >= 9 && rng.chance(0.03),
      parent: rng.chance(0.1) ? place.top.ref : place.sub.ref,
      kind: t.kind,
      unitRef: unit?.ref ?? '',
      unitName: unit?.name ?? '',
      article: bought && rng.chance(0.75) ? `${rng.pick(['АР', 'МТ', 'KT', 'EL', 'ST'])}-${rng.int(1000, 99999)}` : '',
      ngroup: ngroups.get(t.ngroup)?.ref ?? '',
      supplier: (bought && rng.chance(0.7)) || (t.kind === 'Услуга' && rng.chance(0.3)) ? rng.pick(cat.suppliers).ref : '',
      price: roundPrice(rng.logUniform(base.price[0], base.price[1])),
      vat: rng.chance(0.92) ? '20%' : '10%',
      tier: t.tier,
      specs: [],
      spec: undefined,
    }
    items.push(item)
    if (t.kind !== 'Продукция') entries.push({ kind: 'item', item })
  }
  const active = items.filter((it) => !it.deleted)
  const materials = active.filter((it) => it.kind === 'Материал')
  const stock = active.filter((it) => it.kind === 'Материал' || it.kind === 'Товар')

  // Specifications, tier by tier: a tier-t specification uses products of lower tiers only,
  // so there are no cycles and every ref points to an object emitted earlier.
  const srng = Rng.stream(key, SALT.specStream)
  const specs: Spec[] = []
  let specCode = 0
  const specGroupNames = ['Полуфабрикаты', 'Металлоконструкции', 'Электрощитовое оборудование', 'Архив']
  const specGroups = specGroupNames.map((name, i) => {
    const g = { ref: uuid(key, SALT.specGroup, i), code: pad(++specCode, 9), name, deleted: name === 'Архив', parent: '' }
    entries.push({ kind: 'group', type: T.spec, group: g })
    return g
  })
  const withSpec: Item[][] = [[], [], []]
  let lower: Item[] = []
  const makeSpec = (product: Item, tier: number, variant: number): Spec => {
    const rows: SpecRow[] = []
    const n = specRowCount(srng)
    const below = withSpec[tier - 1] ?? []
    if (below.length > 0) rows.push({ item: srng.pick(below), qty: srng.int(1, 4), price: 0, sum: 0 })
    while (rows.length < n) {
      if (lower.length > 0 && srng.chance(0.2)) {
        const sub = srng.pick(lower)
        const qty = srng.int(1, 3)
        const price = srng.chance(0.75) ? 0 : sub.price
        rows.push({ item: sub, qty, price, sum: round2(qty * price) })
        continue
      }
      const item = srng.pick(stock)
      const qty = quantity(srng, item.unitName, TIER_SIZE[tier] ?? 0.1)
      const price = roundPrice(item.price * srng.uniform(0.9, 1.1))
      const mode = srng.float()
      const sum = mode < 0.68 ? round2(qty * price) : mode < 0.9 ? 0 : round2(qty * price * srng.uniform(0.95, 1.05))
      rows.push({ item, qty, price, sum })
    }
    const approved = srng.chance(0.85) ? srng.int(today - 900, today - 5) : undefined
    const stages = srng.chance(0.1) ? [] : Array.from({ length: srng.int(1, 4) }, () => srng.int(start, today + 365)).sort((a, b) => a - b)
    const archived = variant > 1 && srng.chance(0.15)
    const seq = ++specCode
    const spec: Omit<Spec, 'unitCost'> = {
      ref: uuid(key, SALT.spec, specs.length),
      code: pad(seq, 9),
      name: `СП-${pad(seq, 4)}/${String(yearOf(approved ?? today)).slice(2)} ${product.name}${variant > 1 ? ` (вариант ${variant})` : ''}`,
      deleted: archived || product.deleted,
      parent: archived ? (specGroups[3]?.ref ?? '') : srng.chance(0.9) ? (specGroups[tier]?.ref ?? '') : '',
      approved,
      responsible: srng.chance(0.92) ? srng.pick(cat.users).ref : '',
      costs: COST_RANGES.map(([p, lo, hi]) => (srng.chance(p) ? round2(srng.logUniform(lo, hi) * (TIER_SIZE[tier] ?? 0.1) * 5) : 0)),
      rows,
      stages,
    }
    const full: Spec = { ...spec, unitCost: unitCost(spec) }
    specs.push(full)
    entries.push({ kind: 'spec', spec: full })
    return full
  }
  const products = items.filter((it) => it.kind === 'Продукция')
  const forced = new Set(items.slice(0, 9))
  for (let tier = 0; tier < 3; tier++) {
    lower = withSpec.slice(0, tier).flat()
    for (const product of products) {
      if (product.tier !== tier) continue
      if (forced.has(product) || srng.chance(0.85)) {
        product.spec = makeSpec(product, tier, 1)
        product.specs.push(product.spec)
        product.price = Math.max(10, Math.round((product.spec.unitCost * srng.uniform(1.25, 1.6)) / 10) * 10)
        if (!product.deleted) withSpec[tier]?.push(product)
        for (let v = 2; srng.chance(v === 2 ? 0.3 : 0.15); v++) {
          const alt = makeSpec(product, tier, v)
          if (!alt.deleted) product.specs.push(alt)
        }
      }
      entries.push({ kind: 'item', item: product })
    }
  }
  const saleable = active.filter((it) => it.kind === 'Товар' || it.kind === 'Продукция')
  const services = active.filter((it) => it.kind === 'Услуга')
  return {
    items,
    stock,
    materials,
    products: products.filter((p) => !p.deleted),
    saleable,
    services,
    specs,
    parts: [{ size: entries.length, emit: (from, to) => emitEntries(entries, from, to, kinds) }],
  }
}

function* emitEntries(entries: readonly Entry[], from: number, to: number, kinds: Map<string, Named>): Iterable<Obj> {
  for (let i = from; i < to; i++) {
    const e = entries[i]
    if (e === undefined) continue
    if (e.kind === 'group') {
      const g = e.group
      yield { type: e.type, ref: g.ref, ПометкаУдаления: g.deleted, Код: g.code, Наименование: g.name, ЭтоГруппа: true, Родитель: g.parent }
    } else if (e.kind === 'item') {
      const it = e.item
      yield {
        type: T.item,
        ref: it.ref,
        ПометкаУдаления: it.deleted,
        Код: it.code,
        Наименование: it.name,
        ЭтоГруппа: false,
        Родитель: it.parent,
        Артикул: it.article,
        Услуга: it.kind === 'Услуга',
        ЕдиницаИзмерения: it.unitRef,
        ВидНоменклатуры: kinds.get(it.kind)?.ref ?? '',
        НоменклатурнаяГруппа: it.ngroup,
        ОсновнойПоставщик: it.supplier,
        ОсновнаяСпецификация: it.spec?.ref ?? '',
      }
    } else {
      const s = e.spec
      const [works, transport, overhead, rental, connections, design] = s.costs
      yield {
        type: T.spec,
        ref: s.ref,
        ПометкаУдаления: s.deleted,
        Код: s.code,
        Наименование: s.name,
        ЭтоГруппа: false,
        Родитель: s.parent,
        ДатаУтверждения: s.approved === undefined ? '' : isoDate(s.approved),
        Ответственный: s.responsible,
        СтоимостьРабот: works,
        СтоимостьТранспорт: transport,
        СтоимостьНакладные: overhead,
        СтоимостьАрендаСпецТехники: rental,
        СтоимостьТехнологическиеПрисоединения: connections,
        СтоимостьПроектныеРаботы: design,
        Материалы: s.rows.map((r) => ({
          Номенклатура: r.item.ref,
          Количество: r.qty,
          ЕдиницаИзмерения: r.item.unitRef,
          Цена: r.price,
          Сумма: r.sum,
        })),
        ЭтапыПоставки: s.stages.map((d) => ({ ДатаПоставки: isoDate(d) })),
      }
    }
  }
}
