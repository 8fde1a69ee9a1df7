// GET /main/hs/demands/get — spec § Requirement-invoice (demands), § GET /main/hs/demands/get.
// Every stored requirement-invoice is listed. Sort: date ascending, then number.
// No `date` parameter; `full` needs no `code`.
import { Demand, DemandFull } from './responses.js'
import { byDocumentDate, documentNumber, m, responsibleName } from './meanings.js'
import { rowsSummary } from '../values/plural.js'
import { dmy } from '../values/dates.js'
import { fold } from '../values/fold.js'
import { YES, printing } from './define.js'
import type { ListEndpoint } from './define.js'
import { readByOwner, refsOf } from '../store/by-owner.js'
import { documentLabel, partQuery, shortOf, tryPart } from './shared/tabular.js'
import { orEmpty } from './shared/row.js'
import type { PartRow } from './shared/tabular.js'

const MATERIALS = partQuery('doc_demands_materials')

export const demands: ListEndpoint = {
  kind: 'list',
  service: 'demands',
  operationId: 'GetDemands',
  returns: 'Requirement-invoices (document)',
  response: { short: Demand, full: DemandFull },
  meanings: {
    ...byDocumentDate,
    code: documentNumber,
    warehouse: m('Наименование склада (подстрока)', 'Warehouse name (substring)'),
    responsible: responsibleName,
    full: m(
      'Возвращает массив Материалы для каждого отобранного документа; не требует `code`',
      'Returns the Материалы array for every selected document; does not require `code`',
    ),
  },
  readModel: printing(Demand, {
    table: 'api_demands',
    version: 1,
    source: 'doc_demands',
    columns: [
      { name: 'doc_date', type: 'text' },
      { name: 'number', type: 'text' },
      { name: 'number_f', type: 'text' },
      { name: 'warehouse_f', type: 'text' },
      { name: 'responsible_f', type: 'text' },
    ],
    indexes: [['doc_date', 'number', 'ref']],
    select:
      's.ref, s.number, s.date, s.comment, wh.presentation AS warehouse, rsp.presentation AS responsible, ' +
      '(SELECT COUNT(*) FROM doc_demands_materials m WHERE m.owner = s.ref) AS materials ' +
      'FROM doc_demands s LEFT JOIN objects wh ON wh.ref = s.warehouse LEFT JOIN objects rsp ON rsp.ref = s.responsible',
    build: (r) => {
      const [warehouse, responsible] = [orEmpty(r.warehouse), orEmpty(r.responsible)]
      return {
        values: {
          doc_date: orEmpty(r.date),
          number: orEmpty(r.number),
          number_f: fold(orEmpty(r.number)),
          warehouse_f: fold(warehouse),
          responsible_f: fold(responsible),
        },
        short: {
          Номер: orEmpty(r.number),
          Дата: dmy(orEmpty(r.date)),
          Склад: warehouse,
          Ответственный: responsible,
          Комментарий: orEmpty(r.comment),
          Материалы: rowsSummary(Number(r.materials)),
        },
      }
    },
  }),
  period: { column: 'doc_date', date: false },
  params: [
    { name: 'code', stage: 'database', match: 'contains', column: 'number_f', identifier: true },
    { name: 'warehouse', stage: 'database', match: 'contains', column: 'warehouse_f' },
    { name: 'responsible', stage: 'database', match: 'contains', column: 'responsible_f' },
    { name: 'full', stage: 'option', truthy: YES },
  ],
  sort: [
    { column: 'doc_date', dir: 'asc' },
    { column: 'number', dir: 'asc' },
  ],
  fullColumns: ['number', 'doc_date'],
  // A failed read keeps the document with the summary string (spec § GET demands) and
  // reports the failure in `errors`.
  fullPage: async ({ sql }, rows) => {
    const parts = await readByOwner<PartRow>(sql, MATERIALS, refsOf(rows))
    return (row) => {
      const short = shortOf(row)
      const part = tryPart(() => parts(String(row.ref)), documentLabel('Требование-накладная', row), 'Материалы')
      if (part.rows === undefined) return { value: short, issue: part.issue }
      const materials = part.rows.map((m) => ({
        НомерСтроки: orEmpty(m.row_number),
        Номенклатура: orEmpty(m.nomenclature),
        Количество: Number(m.quantity),
        ЕдиницаИзмерения: orEmpty(m.unit),
      }))
      return { value: { ...short, Материалы: materials } }
    }
  },
}
