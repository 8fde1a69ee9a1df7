// GET /main/hs/receipts/get — spec § Goods-and-services receipt, § GET /main/hs/receipts/get.
// Склад is the stored-order warehouse (СкладОрдер); Товары and Услуги only with `full`,
// whose key is case-insensitive; `contactor` (sic) and `supplier` are aliases of `contractor`.
import { Receipt, ReceiptFull } from './responses.js'
import {
  byDocumentDate,
  documentNumber,
  exactAmount,
  m,
  oneDocumentDate,
  organization,
  posted,
  responsible,
  warehouse,
} from './meanings.js'
import { orLiteral, summary } from '../values/printed.js'
import { dmy } from '../values/dates.js'
import { fold } from '../values/fold.js'
import type { SqlPort } from '../store/sql.js'
import { YES, printing } from './define.js'
import type { ListEndpoint } from './define.js'
import { num, text } from './shared/row.js'
import {
  attachmentCount,
  databaseParams,
  documentColumns,
  documentValues,
  foldedColumns,
  newestFirst,
  newestFirstIndex,
  period,
  postFilter,
  presentations,
  resolves,
  shortForm,
} from './shared/documents.js'
import { readByOwner, refsOf } from '../store/by-owner.js'
import type { ByOwner } from '../store/by-owner.js'
import { attachmentFiles, referencedDocuments } from './shared/linked.js'

const refs = presentations('counterparty', 'organization', 'warehouse', 'responsible')

async function goods(sql: SqlPort, owners: readonly string[]): Promise<ByOwner<Record<string, unknown>>> {
  const rows = await readByOwner<{ owner: string } & Record<string, unknown>>(
    sql,
    (list) =>
      "SELECT g.owner, g.row_number, COALESCE(n.presentation, '') AS nomenclature, COALESCE(ch.presentation, '') AS characteristic, " +
      "COALESCE(u.presentation, '') AS unit, g.quantity, g.price, g.amount, g.vat_rate, g.vat_amount FROM doc_receipts_goods g " +
      'LEFT JOIN objects n ON n.ref = g.nomenclature LEFT JOIN objects ch ON ch.ref = g.characteristic LEFT JOIN objects u ON u.ref = g.unit ' +
      `WHERE g.owner IN (${list}) ORDER BY g.owner, g.line`,
    owners,
  )
  return (owner) =>
    rows(owner).map((r) => ({
      НомерСтроки: r.row_number,
      Номенклатура: r.nomenclature,
      ХарактеристикаНоменклатуры: r.characteristic,
      ЕдиницаИзмерения: r.unit,
      Количество: r.quantity,
      Цена: r.price,
      Сумма: r.amount,
      СтавкаНДС: r.vat_rate,
      СуммаНДС: r.vat_amount,
    }))
}

async function services(sql: SqlPort, owners: readonly string[]): Promise<ByOwner<Record<string, unknown>>> {
  const rows = await readByOwner<{ owner: string } & Record<string, unknown>>(
    sql,
    (list) =>
      "SELECT g.owner, g.content, COALESCE(n.presentation, '') AS nomenclature FROM doc_receipts_services g " +
      `LEFT JOIN objects n ON n.ref = g.nomenclature WHERE g.owner IN (${list}) ORDER BY g.owner, g.line`,
    owners,
  )
  return (owner) => rows(owner).map((r) => ({ Содержание: r.content, Номенклатура: r.nomenclature }))
}

export const receipts: ListEndpoint = {
  kind: 'list',
  service: 'receipts',
  operationId: 'GetReceipts',
  returns: 'Goods-and-services receipts (document)',
  response: { short: Receipt, full: ReceiptFull },
  meanings: {
    ...byDocumentDate,
    date: oneDocumentDate,
    code: documentNumber,
    summ: exactAmount,
    approved: posted,
    contractor: m('Наименование контрагента (подстрока)', 'Counterparty name (substring)'),
    org: organization,
    warehouse,
    responsible,
    full: m('Полные Сделка, Товары, Услуги и Вложения (Base64)', 'Full Сделка, Товары, Услуги and Вложения (Base64)'),
  },
  readModel: printing(Receipt, {
    table: 'api_receipts',
    version: 2,
    source: 'doc_receipts',
    columns: [...documentColumns('date'), ...foldedColumns('counterparty_f', 'organization_f', 'warehouse_f', 'responsible_f')],
    indexes: [newestFirstIndex('date')],
    select:
      `s.ref, s.number, s.date, s.amount, s.posted, s.comment, ${refs.select}, ${resolves('deal', 'deal_found')}, ${attachmentCount} ` +
      `FROM doc_receipts s ${refs.joins}`,
    build: (r) => {
      const counterparty = orLiteral(r.counterparty, 'Не указан')
      const organization = orLiteral(r.organization, 'Не указана')
      const warehouse = orLiteral(r.warehouse, 'Не указан')
      const responsible = orLiteral(r.responsible, 'Не указан')
      const date = dmy(String(r.date))
      return {
        values: {
          ...documentValues(r, 'date'),
          counterparty_f: fold(counterparty),
          organization_f: fold(organization),
          warehouse_f: fold(warehouse),
          responsible_f: fold(responsible),
        },
        short: {
          Номер: text(r.number),
          ДатаДокумента: date,
          Дата: date,
          Контрагент: counterparty,
          Организация: organization,
          Склад: warehouse,
          Ответственный: responsible,
          СуммаДокумента: num(r.amount),
          Комментарий: text(r.comment),
          Проведен: Number(r.posted) === 1,
          Сделка: summary(Number(r.deal_found)),
          Вложения: summary(Number(r.attachments)),
        },
      }
    },
  }),
  period: period('date'),
  params: [
    ...databaseParams,
    postFilter('contractor', 'counterparty_f', ['contactor', 'supplier']),
    postFilter('org', 'organization_f'),
    postFilter('warehouse', 'warehouse_f'),
    postFilter('responsible', 'responsible_f'),
    { name: 'full', stage: 'option', truthy: YES, keyCaseInsensitive: true },
  ],
  sort: newestFirst('date'),
  fullPage: async ({ sql }, rows) => {
    const owners = refsOf(rows)
    const deal = await referencedDocuments(sql, 'doc_receipts', 'deal', owners)
    const files = await attachmentFiles(sql, owners)
    const goodsRows = await goods(sql, owners)
    const serviceRows = await services(sql, owners)
    // A failed read of the document throws (in this order): it leaves `data` with an `errors` entry.
    return (row) => {
      const ref = String(row.ref)
      const value = { ...shortForm(row), Сделка: deal(ref), Вложения: files(ref), Товары: goodsRows(ref), Услуги: serviceRows(ref) }
      return { value }
    }
  },
}
