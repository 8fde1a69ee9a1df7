// GET /main/hs/morders/get — spec § Production order (morders), § GET /main/hs/morders/get.
// Every stored production order is listed. Filters match the stored values, not the
// printed literals: `code=Не` does not find an order printed as `Не указан`.
// Sort: date ascending, then number. No `date` parameter.
import { ProductionOrder, ProductionOrderFull } from './responses.js'
import { byDocumentDate, m } from './meanings.js'
import { orLiteral } from '../values/printed.js'
import { dmy } from '../values/dates.js'
import { fold } from '../values/fold.js'
import { YES, printing } from './define.js'
import type { ListEndpoint } from './define.js'
import { readByOwner, refsOf } from '../store/by-owner.js'
import { documentLabel, partQuery, shortOf, tryPart } from './shared/tabular.js'
import { orEmpty } from './shared/row.js'
import type { PartRow } from './shared/tabular.js'

const KIND = 'Заказ на производство'
const PRODUCTS = partQuery('doc_production_orders_products')
const MATERIALS = partQuery('doc_production_orders_materials')

/**
 * `Ссылка`: the reference printed the way the accounting system prints a document
 * reference, `<synonym> <Номер> от <DD.MM.YYYY H:MM:SS>` (hours without a leading zero,
 * as its default date-time format does; the empty date is its `01.01.0001 0:00:00`).
 */
function referencePresentation(number: string, stored: string): string {
  const at = stored || '0001-01-01T00:00:00'
  const time = `${Number(at.slice(11, 13))}:${at.slice(14, 16)}:${at.slice(17, 19)}`
  return `${KIND} ${number} от ${dmy(at)} ${time}`
}

const rowsOf = (rows: readonly PartRow[]) =>
  rows.map((r) => ({ Номенклатура: orEmpty(r.nomenclature), Количество: Number(r.quantity), ЕдиницаИзмерения: orEmpty(r.unit) }))

export const morders: ListEndpoint = {
  kind: 'list',
  service: 'morders',
  operationId: 'GetMOrders',
  returns: 'Production orders (document)',
  response: { short: ProductionOrder, full: ProductionOrderFull },
  meanings: {
    ...byDocumentDate,
    code: m('Номер заказа (подстрока)', 'Order number (substring)'),
    contract: m('Комментарий документа, выводимый как Договор (подстрока)', 'Document comment, shown as Договор (substring)'),
    full: m('Добавляет Ссылка, Продукция, Материалы', 'Adds Ссылка, Продукция, Материалы'),
  },
  readModel: printing(ProductionOrder, {
    table: 'api_morders',
    version: 1,
    source: 'doc_production_orders',
    columns: [
      { name: 'doc_date', type: 'text' },
      { name: 'number', type: 'text' },
      { name: 'number_f', type: 'text' },
      { name: 'comment_f', type: 'text' },
    ],
    indexes: [['doc_date', 'number', 'ref']],
    select:
      's.ref, s.number, s.date, s.comment, org.presentation AS organization, rsp.presentation AS responsible ' +
      'FROM doc_production_orders s LEFT JOIN objects org ON org.ref = s.organization LEFT JOIN objects rsp ON rsp.ref = s.responsible',
    build: (r) => ({
      values: {
        doc_date: orEmpty(r.date),
        number: orEmpty(r.number),
        number_f: fold(orEmpty(r.number)),
        comment_f: fold(orEmpty(r.comment)),
      },
      short: {
        Номер: orLiteral(r.number, 'Не указан'),
        Дата: orLiteral(dmy(orEmpty(r.date)), 'Не указана'),
        // Договор is the document's comment text (spec § Production order).
        Договор: orLiteral(r.comment, 'Не указан'),
        Организация: orEmpty(r.organization),
        Ответственный: orEmpty(r.responsible),
      },
    }),
  }),
  period: { column: 'doc_date', date: false },
  params: [
    { name: 'code', stage: 'database', match: 'contains', column: 'number_f', identifier: true },
    { name: 'contract', stage: 'database', match: 'contains', column: 'comment_f', slash: true },
    { name: 'full', stage: 'option', truthy: YES, keyCaseInsensitive: true },
  ],
  sort: [
    { column: 'doc_date', dir: 'asc' },
    { column: 'number', dir: 'asc' },
  ],
  fullColumns: ['number', 'doc_date'],
  // Each part is read on its own; a failed one prints as [] and is reported in `errors`,
  // and the document stays in `data` (as transfers rule 2 does for its goods).
  fullPage: async ({ sql }, rows) => {
    const productParts = await readByOwner<PartRow>(sql, PRODUCTS, refsOf(rows))
    const materialParts = await readByOwner<PartRow>(sql, MATERIALS, refsOf(rows))
    return (row) => {
      const what = documentLabel(KIND, row)
      const owner = String(row.ref)
      const products = tryPart(() => productParts(owner), what, 'Продукция')
      const materials = tryPart(() => materialParts(owner), what, 'Материалы')
      const issues = [products.issue, materials.issue].filter((i) => i !== undefined)
      const value = {
        ...shortOf(row),
        Ссылка: referencePresentation(orEmpty(row.number), orEmpty(row.doc_date)),
        Продукция: rowsOf(products.rows ?? []),
        Материалы: rowsOf(materials.rows ?? []),
      }
      return issues.length === 0 ? { value } : { value, issue: issues.join('; ') }
    }
  },
}
