// GET /main/hs/orders/get — spec § Customer order, § GET /main/hs/orders/get.
// `customer` matches the counterparty's name or its tax id; `contract` takes `_slash_`;
// with `full`, Товары carries the planned cost (shared/planned-cost.ts).
import { Order, OrderFull } from './responses.js'
import {
  byDocumentDate,
  comment,
  documentNumber,
  exactAmount,
  m,
  oneDocumentDate,
  organization,
  posted,
  responsible,
  warehouse,
} from './meanings.js'
import { dmy } from '../values/dates.js'
import { fold } from '../values/fold.js'
import { messages } from '../values/messages.js'
import { YES, printing } from './define.js'
import type { ListEndpoint } from './define.js'
import { num, text } from './shared/row.js'
import type { RequestContext } from '../views/define.js'
import {
  databaseParams,
  documentColumns,
  documentValues,
  foldedColumns,
  foldedValues,
  newestFirst,
  newestFirstIndex,
  period,
  postFilter,
  presentations,
  shortForm,
} from './shared/documents.js'
import { refsOf } from '../store/by-owner.js'
import { orderGoods, plannedCostTrace, RequestCosts } from './shared/order-goods.js'

const refs = presentations('counterparty', 'organization', 'responsible', 'contract', 'warehouse')

/** One calculator per context (an import's rebuild of the model), so specifications shared by its orders are read once. */
const calculators = new WeakMap<RequestContext, RequestCosts>()
function plannedCosts(ctx: RequestContext): RequestCosts {
  let calc = calculators.get(ctx)
  if (!calc) {
    calc = new RequestCosts(ctx.sql)
    calculators.set(ctx, calc)
  }
  return calc
}

export const orders: ListEndpoint = {
  kind: 'list',
  service: 'orders',
  operationId: 'GetOrders',
  returns: 'Customer orders (document)',
  response: { short: Order, full: OrderFull },
  meanings: {
    ...byDocumentDate,
    date: oneDocumentDate,
    code: documentNumber,
    summ: exactAmount,
    approved: posted,
    contract: m('Представление договора (подстрока)', 'Contract presentation (substring)'),
    customer: m('Наименование контрагента или его ИНН (подстрока)', 'Counterparty name or its tax id (substring)'),
    inn: m('ИНН контрагента (подстрока)', 'Counterparty tax id (substring)'),
    org: organization,
    warehouse,
    responsible,
    comment,
    full: m(
      'Добавляет Товары с расчетом плановой себестоимости и спецификации',
      'Adds Товары with the planned-cost and specification calculation',
    ),
  },
  readModel: printing(Order, {
    table: 'api_orders',
    version: 1,
    source: 'doc_customer_orders',
    columns: [
      ...documentColumns('date'),
      ...foldedColumns('contract_f', 'counterparty_f', 'inn_f', 'organization_f', 'warehouse_f', 'responsible_f', 'comment_f'),
    ],
    indexes: [newestFirstIndex('date')],
    select:
      's.ref, s.number, s.date, s.amount, s.posted, s.comment, s.use_planned_cost, s.total_planned_cost, s.payment_date, s.shipment_date, ' +
      `${refs.select}, COALESCE(c.inn, '') AS inn FROM doc_customer_orders s ${refs.joins} LEFT JOIN cat_counterparties c ON c.ref = s.counterparty`,
    build: (r) => ({
      values: {
        ...documentValues(r, 'date'),
        ...foldedValues(r, 'contract', 'counterparty', 'inn', 'organization', 'warehouse', 'responsible', 'comment'),
      },
      short: {
        Номер: text(r.number),
        Дата: dmy(String(r.date)),
        Контрагент: text(r.counterparty),
        ИНН: text(r.inn),
        Организация: text(r.organization),
        Ответственный: text(r.responsible),
        Договор: text(r.contract),
        ИспользоватьПлановуюСебестоимость: Number(r.use_planned_cost) === 1,
        ИтогПлановаяСебестоимость: num(r.total_planned_cost),
        Сумма: num(r.amount),
        Склад: text(r.warehouse),
        Проведен: Number(r.posted) === 1,
        Комментарий: text(r.comment),
        ДатаОплаты: dmy(String(r.payment_date)),
        ДатаОтгрузки: dmy(String(r.shipment_date)),
      },
    }),
  }),
  period: period('date'),
  params: [
    ...databaseParams,
    { ...postFilter('contract', 'contract_f'), slash: true },
    {
      name: 'customer',
      stage: 'post-filter',
      match: 'custom',
      columns: ['counterparty_f', 'inn_f'],
      test: (value, row) => {
        const needle = fold(value)
        return String(row.counterparty_f).includes(needle) || String(row.inn_f).includes(needle)
      },
    },
    postFilter('inn', 'inn_f'),
    postFilter('org', 'organization_f'),
    postFilter('warehouse', 'warehouse_f'),
    postFilter('responsible', 'responsible_f'),
    postFilter('comment', 'comment_f'),
    { name: 'full', stage: 'option', truthy: YES },
  ],
  sort: newestFirst('date'),
  fullTraces: [plannedCostTrace('doc_customer_orders_goods')],
  fullPage: async (ctx, rows) => {
    const owners = refsOf(rows)
    const planned = await plannedCosts(ctx).page(await orderGoods(ctx.sql, 'doc_customer_orders_goods', owners), owners)
    // A failed read of the order throws: it leaves `data` with an `errors` entry.
    return (row) => {
      const ref = String(row.ref)
      const { rows: goods, cycles } = planned(ref)
      const value = { ...shortForm(row), Товары: goods }
      if (cycles.length === 0) return { value }
      // The document stays in `data` with the cycle counted as 0 (data-format.md § Derived values).
      return { value, issue: messages.document(`orders: документ ${ref}`, messages.specificationCycle(cycles.map((c) => c.join(' → ')))) }
    }
  },
}
