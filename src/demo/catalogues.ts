/** General catalogues: organizations, people, counterparties, warehouses, money accounts. */
import { pad, ruDate, yearOf } from './calendar.js'
import { ITEM_KINDS, NGROUPS, UNITS } from './items.js'
import { listPart, SALT, T } from './model.js'
import type { Named, Obj, Part } from './model.js'
import { BANKS, characteristicName, companyName, FOREIGN_SUPPLIERS, inn, personName, siteWarehouseName, NameSet } from './names.js'
import { Rng, uuid } from './random.js'

export interface Counterparty extends Named {
  inn: string
  supplier: boolean
  customer: boolean
  foreign: boolean
  contracts: Named[]
}

interface Warehouse extends Named {
  isGroup: boolean
  parent: string
}

export interface MoneyAccount extends Named {
  type: typeof T.bankAccount | typeof T.cashDesk
  org: number
  usd: boolean
  closed: boolean
  /** Share of the random cash documents of its organization and kind. */
  weight: number
  bank: number
  accountKind: string
}

export interface Catalogues {
  orgs: Named[]
  currencies: Named[]
  banks: Named[]
  units: Named[]
  itemKinds: Named[]
  ngroups: Named[]
  characteristics: Named[]
  users: Named[]
  people: Named[]
  counterparties: Counterparty[]
  suppliers: Counterparty[]
  customers: Counterparty[]
  /** Foreign suppliers: no ИНН, no VAT. */
  foreign: Counterparty[]
  contracts: (Named & { owner: string })[]
  warehouses: Warehouse[]
  /** Warehouses documents may use: elements not marked for deletion. */
  stores: Warehouse[]
  accounts: MoneyAccount[]
  parts: Part[]
}

export interface CatalogueSizes {
  users: number
  people: number
  counterparties: number
  warehouses: number
  characteristics: number
}

const ORGS = ['ООО "Вектор"', 'АО "СтройМонтаж"']

function named(key: number, salt: number, index: number, name: string, code = pad(index + 1, 9)): Named {
  return { ref: uuid(key, salt, index), code, name, deleted: false }
}

function namedList(key: number, salt: number, names: readonly string[]): Named[] {
  return names.map((name, i) => named(key, salt, i, name))
}

function uniqueList(key: number, salt: number, count: number, make: (rng: Rng) => string): Named[] {
  const rng = Rng.stream(key, salt)
  const names = new NameSet()
  return Array.from({ length: count }, (_, i) =>
    named(
      key,
      salt,
      i,
      names.unique(() => make(rng)),
    ),
  )
}

function counterparties(key: number, count: number, firstDay: number, lastDay: number) {
  const rng = Rng.stream(key, SALT.counterparty)
  const names = new NameSet()
  const list: Counterparty[] = []
  const contracts: (Named & { owner: string })[] = []
  const perYear = new Map<number, number>()
  for (let i = 0; i < count; i++) {
    const foreign = i < FOREIGN_SUPPLIERS.length
    const person = !foreign && rng.chance(0.15)
    const name = foreign ? (FOREIGN_SUPPLIERS[i] as string) : names.unique(() => (person ? `ИП ${personName(rng)}` : companyName(rng)))
    const role = rng.float()
    const c: Counterparty = {
      ...named(key, SALT.counterparty, i, name),
      inn: foreign || rng.chance(0.06) ? '' : inn(rng, person),
      supplier: foreign || role < 0.7,
      customer: !foreign && role >= 0.55,
      foreign,
      contracts: [],
    }
    const n = rng.chance(0.4) ? 2 : 1
    for (let k = 0; k < n; k++) {
      const day = rng.int(firstDay, lastDay)
      const year = yearOf(day)
      const num = (perYear.get(year) ?? rng.int(1, 4)) + rng.int(1, 3)
      perYear.set(year, num)
      const title = rng.weighted(['Договор', 'Договор поставки', 'Договор подряда'], [75, 15, 10])
      const contract = { ...named(key, SALT.contract, contracts.length, `${title} № ${num}/${year} от ${ruDate(day)}`), owner: c.ref }
      contracts.push(contract)
      c.contracts.push(contract)
    }
    list.push(c)
  }
  return { list, contracts }
}

function warehouses(key: number, count: number): Warehouse[] {
  const rng = Rng.stream(key, SALT.warehouse)
  const list: Warehouse[] = []
  const add = (name: string, isGroup: boolean, parent: string, deleted = false): Warehouse => {
    const w: Warehouse = { ...named(key, SALT.warehouse, list.length, name), isGroup, parent, deleted }
    list.push(w)
    return w
  }
  add('Основной склад', false, '')
  const central = add('Центральные склады', true, '')
  const production = add('Производственные склады', true, '')
  const sites = add('Склады объектов', true, '')
  const fixed: [string, string, boolean][] = [
    ['Склад материалов', central.ref, false],
    ['Склад металлопроката', central.ref, false],
    ['Склад готовой продукции', production.ref, false],
    ['Склад цеха металлоконструкций', production.ref, false],
    ['Склад электрощитового цеха', production.ref, false],
    ['Склад инструмента', '', false],
    ['Склад брака', central.ref, true],
  ]
  const names = new NameSet()
  for (const w of list) names.add(w.name)
  for (const [name, parent, deleted] of fixed) {
    names.add(name)
    add(name, false, parent, deleted)
  }
  while (list.length - 3 < count) {
    add(
      names.unique(() => siteWarehouseName(rng)),
      false,
      sites.ref,
      rng.chance(0.12),
    )
  }
  return list
}

function moneyAccounts(key: number): MoneyAccount[] {
  const rng = Rng.stream(key, SALT.bankAccount)
  const digits = (n: number) => Array.from({ length: n }, () => rng.int(0, 9)).join('')
  // [org, bank, kind, usd, closed, weight]
  const bank: [number, number, string, boolean, boolean, number][] = [
    [0, 0, 'Расчетный', false, false, 5],
    [0, 1, 'Расчетный', false, false, 3],
    [0, 2, 'Иной', true, false, 1],
    [0, 4, 'Расчетный', false, true, 0],
    [1, 0, 'Расчетный', false, false, 4],
    [1, 3, 'Расчетный', false, false, 2],
    [1, 1, 'Иной', false, false, 1],
  ]
  const accounts: MoneyAccount[] = bank.map(([org, b, accountKind, usd, closed, weight], i) => {
    const number = `40702${usd ? '840' : '810'}${rng.int(0, 9)}${digits(11)}`
    return {
      ...named(key, SALT.bankAccount, i, `${number}, ${BANKS[b]?.[0] ?? ''}`),
      type: T.bankAccount,
      org,
      usd,
      closed,
      weight,
      bank: b,
      accountKind,
    }
  })
  const desks: [number, string, number][] = [
    [0, 'Основная касса', 3],
    [0, 'Касса цеха', 1],
    [1, 'Основная касса', 2],
  ]
  desks.forEach(([org, name, weight], i) => {
    accounts.push({
      ...named(key, SALT.cashDesk, i, name),
      type: T.cashDesk,
      org,
      usd: false,
      closed: false,
      weight,
      bank: -1,
      accountKind: '',
    })
  })
  return accounts
}

export function buildCatalogues(key: number, sizes: CatalogueSizes, firstDay: number, lastDay: number): Catalogues {
  const orgs = namedList(key, SALT.org, ORGS)
  const currencies = [
    named(key, SALT.currency, 0, 'руб.', '643'),
    named(key, SALT.currency, 1, 'USD', '840'),
    named(key, SALT.currency, 2, 'EUR', '978'),
  ]
  const banks = BANKS.map(([name, bic], i) => named(key, SALT.bank, i, name, bic))
  const units = UNITS.map(([code, name], i) => named(key, SALT.unit, i, name, code))
  const itemKinds = namedList(key, SALT.itemKind, ITEM_KINDS)
  const ngroups = namedList(key, SALT.ngroup, NGROUPS)
  const characteristics = uniqueList(key, SALT.characteristic, sizes.characteristics, characteristicName)
  const users = uniqueList(key, SALT.user, sizes.users, personName)
  const people = uniqueList(key, SALT.person, sizes.people, personName)
  const cps = counterparties(key, sizes.counterparties, firstDay - 365, lastDay - 10)
  const stock = warehouses(key, sizes.warehouses)
  const accounts = moneyAccounts(key)

  const plain =
    (type: string) =>
    (n: Named): Obj => ({ type, ref: n.ref, ПометкаУдаления: n.deleted, Код: n.code, Наименование: n.name })
  const parts: Part[] = [
    listPart(orgs, plain(T.org)),
    listPart(currencies, plain(T.currency)),
    listPart(banks, plain(T.bank)),
    listPart(units, plain(T.unit)),
    listPart(itemKinds, plain(T.itemKind)),
    listPart(ngroups, plain(T.ngroup)),
    listPart(characteristics, plain(T.characteristic)),
    listPart(users, plain(T.user)),
    listPart(people, plain(T.person)),
    listPart(cps.list, (c) => ({ ...plain(T.counterparty)(c), ИНН: c.inn })),
    listPart(cps.contracts, (c) => ({ ...plain(T.contract)(c), Владелец: c.owner })),
    listPart(stock, (w) => ({ ...plain(T.warehouse)(w), ЭтоГруппа: w.isGroup, Родитель: w.parent })),
    listPart(accounts, (a) =>
      a.type === T.bankAccount
        ? {
            ...plain(a.type)(a),
            Владелец: orgs[a.org]?.ref ?? '',
            Банк: banks[a.bank]?.ref ?? '',
            ВидСчета: a.accountKind,
            ВалютаДенежныхСредств: currencies[a.usd ? 1 : 0]?.ref ?? '',
            Закрыт: a.closed,
          }
        : { ...plain(a.type)(a), Владелец: orgs[a.org]?.ref ?? '', ВалютаДенежныхСредств: currencies[0]?.ref ?? '', Закрыт: a.closed },
    ),
  ]
  return {
    orgs,
    currencies,
    banks,
    units,
    itemKinds,
    ngroups,
    characteristics,
    users,
    people,
    counterparties: cps.list,
    suppliers: cps.list.filter((c) => c.supplier),
    customers: cps.list.filter((c) => c.customer),
    foreign: cps.list.filter((c) => c.foreign),
    contracts: cps.contracts,
    warehouses: stock,
    stores: stock.filter((w) => !w.isGroup && !w.deleted),
    accounts,
    parts,
  }
}
