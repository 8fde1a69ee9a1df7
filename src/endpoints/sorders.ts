// GET /main/hs/sorders/get — spec § Supplier order, § GET /main/hs/sorders/get.
// `supplier` is the filter's primary name (`contractor`, `contactor` are aliases);
// `full` also takes the value `full`; СвязанныеДокументы is always the placeholder;
// the rows' planned cost is printed as stored. No contract or tax-id filters.
import { SupplierOrder, SupplierOrderFull } from './responses.js'
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
import { summary } from '../values/printed.js'
import { dmy } from '../values/dates.js'
import { YES, printing } from './define.js'
import type { ListEndpoint } from './define.js'
import { num, text } from './shared/row.js'
import {
  attachmentCount,
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
import { attachmentList } from './shared/linked.js'
import { orderGoods } from './shared/order-goods.js'

const refs = presentations('counterparty', 'organization', 'responsible', 'warehouse')

export const sorders: ListEndpoint = {
  kind: 'list',
  service: 'sorders',
  operationId: 'GetSOrders',
  returns: 'Supplier orders (document)',
  response: { short: SupplierOrder, full: SupplierOrderFull },
  meanings: {
    ...byDocumentDate,
    date: oneDocumentDate,
    code: documentNumber,
    summ: exactAmount,
    approved: posted,
    supplier: m(
      'Наименование контрагента (поставщика) (подстрока); основное имя этого отбора',
      'Counterparty (supplier) name (substring); the primary name of this filter',
    ),
    org: organization,
    warehouse,
    responsible,
    comment,
    full: m('Добавляет Товары и список вложений', 'Adds Товары and the attachment list'),
  },
  readModel: printing(SupplierOrder, {
    table: 'api_sorders',
    version: 1,
    source: 'doc_supplier_orders',
    columns: [
      ...documentColumns('date'),
      ...foldedColumns('counterparty_f', 'organization_f', 'warehouse_f', 'responsible_f', 'comment_f'),
    ],
    indexes: [newestFirstIndex('date')],
    select:
      `s.ref, s.number, s.date, s.amount, s.posted, s.comment, s.payment_date, s.receipt_date, ${refs.select}, ${attachmentCount} ` +
      `FROM doc_supplier_orders s ${refs.joins}`,
    build: (r) => ({
      values: {
        ...documentValues(r, 'date'),
        ...foldedValues(r, 'counterparty', 'organization', 'warehouse', 'responsible', 'comment'),
      },
      short: {
        Номер: text(r.number),
        Дата: dmy(String(r.date)),
        Контрагент: text(r.counterparty),
        Организация: text(r.organization),
        Ответственный: text(r.responsible),
        СуммаДокумента: num(r.amount),
        Склад: text(r.warehouse),
        Проведен: Number(r.posted) === 1,
        Комментарий: text(r.comment),
        ДатаОплаты: dmy(String(r.payment_date)),
        ДатаПоступления: dmy(String(r.receipt_date)),
        // Always this placeholder (spec § Supplier order).
        СвязанныеДокументы: { Поступления: summary(0), ЗакрытияЗаказов: summary(0), ЗаявкаНаРасходованиеСредств: summary(0) },
        Вложения: summary(Number(r.attachments)),
      },
    }),
  }),
  period: period('date'),
  params: [
    ...databaseParams,
    postFilter('supplier', 'counterparty_f', ['contractor', 'contactor']),
    postFilter('org', 'organization_f'),
    postFilter('warehouse', 'warehouse_f'),
    postFilter('responsible', 'responsible_f'),
    postFilter('comment', 'comment_f'),
    { name: 'full', stage: 'option', truthy: [...YES, 'full'] },
  ],
  sort: newestFirst('date'),
  fullPage: async ({ sql }, rows) => {
    const owners = refsOf(rows)
    const files = await attachmentList(sql, owners)
    const goods = await orderGoods(sql, 'doc_supplier_orders_goods', owners)
    // A failed read of the document throws: it leaves `data` with an `errors` entry.
    return (row) => {
      const ref = String(row.ref)
      return { value: { ...shortForm(row), Вложения: files(ref), Товары: goods(ref).map((g) => g.print(g.plannedCost)) } }
    }
  },
}
