// GET /main/hs/transfers/get — spec § Goods transfer (transfers), § GET /main/hs/transfers/get.
// Every stored transfer is listed (the spec names no posted or deletion-mark filter).
// Sort: date ascending, then number (the spec gives only the date; the number orders
// documents of the same moment the way their numbering does).
import { Transfer, TransferFull } from './responses.js'
import { byDocumentDate, documentNumber, m, oneDocumentDate, responsibleName } from './meanings.js'
import { rowsSummary } from '../values/plural.js'
import { dmy } from '../values/dates.js'
import { fold } from '../values/fold.js'
import { messages } from '../values/messages.js'
import { YES, printing } from './define.js'
import type { ListEndpoint } from './define.js'
import { readByOwner, refsOf } from '../store/by-owner.js'
import { documentLabel, partQuery, shortOf, tryPart } from './shared/tabular.js'
import { orEmpty } from './shared/row.js'
import type { PartRow } from './shared/tabular.js'

const GOODS = partQuery('doc_transfers_goods', true)

export const transfers: ListEndpoint = {
  kind: 'list',
  service: 'transfers',
  operationId: 'GetTransfers',
  returns: 'Goods transfers (document)',
  response: { short: Transfer, full: TransferFull },
  meanings: {
    from: m('Начало периода по дате документа (не по дате перемещения)', 'Period start by document date (not the movement date)'),
    to: byDocumentDate.to,
    date: oneDocumentDate,
    code: documentNumber,
    responsible: responsibleName,
    sender: m('Наименование склада-отправителя (подстрока)', 'Sender warehouse name (substring)'),
    receiver: m('Наименование склада-получателя (подстрока)', 'Receiver warehouse name (substring)'),
    full: m('Возвращает Товары вместо сводки; требует `code`', 'Returns Товары instead of the summary; requires `code`'),
  },
  readModel: printing(Transfer, {
    table: 'api_transfers',
    version: 1,
    source: 'doc_transfers',
    columns: [
      { name: 'doc_date', type: 'text' },
      { name: 'number', type: 'text' },
      { name: 'number_f', type: 'text' },
      { name: 'responsible_f', type: 'text' },
      { name: 'sender_f', type: 'text' },
      { name: 'receiver_f', type: 'text' },
    ],
    indexes: [['doc_date', 'number', 'ref']],
    select:
      's.ref, s.number, s.date, s.comment, snd.presentation AS sender, rcv.presentation AS receiver, rsp.presentation AS responsible, ' +
      '(SELECT COUNT(*) FROM doc_transfers_goods g WHERE g.owner = s.ref) AS goods ' +
      'FROM doc_transfers s LEFT JOIN objects snd ON snd.ref = s.sender LEFT JOIN objects rcv ON rcv.ref = s.receiver ' +
      'LEFT JOIN objects rsp ON rsp.ref = s.responsible',
    build: (r) => {
      const [sender, receiver, responsible] = [orEmpty(r.sender), orEmpty(r.receiver), orEmpty(r.responsible)]
      return {
        values: {
          doc_date: orEmpty(r.date),
          number: orEmpty(r.number),
          number_f: fold(orEmpty(r.number)),
          responsible_f: fold(responsible),
          sender_f: fold(sender),
          receiver_f: fold(receiver),
        },
        short: {
          Номер: orEmpty(r.number),
          Дата: dmy(orEmpty(r.date)),
          СкладОтправитель: sender,
          СкладПолучатель: receiver,
          Ответственный: responsible,
          Комментарий: orEmpty(r.comment),
          Материалы: rowsSummary(Number(r.goods)),
        },
      }
    },
  }),
  period: { column: 'doc_date', date: true },
  params: [
    { name: 'code', stage: 'database', match: 'contains', column: 'number_f', identifier: true },
    { name: 'responsible', stage: 'database', match: 'contains', column: 'responsible_f' },
    { name: 'sender', stage: 'database', match: 'contains', column: 'sender_f' },
    { name: 'receiver', stage: 'database', match: 'contains', column: 'receiver_f' },
    { name: 'full', stage: 'option', truthy: YES },
  ],
  // Rule 1: without `code` the option is dropped, so rows keep the summary string.
  rules: [{ when: 'full', needsAnyOf: ['code'], message: messages.requires('full', ['code']), then: 'drop-option' }],
  sort: [
    { column: 'doc_date', dir: 'asc' },
    { column: 'number', dir: 'asc' },
  ],
  fullColumns: ['number', 'doc_date'],
  // Материалы is replaced by Товары in the same place; rule 2: a failed read keeps the
  // document with an empty Товары and reports the failure in `errors`.
  fullPage: async ({ sql }, rows) => {
    const parts = await readByOwner<PartRow>(sql, GOODS, refsOf(rows))
    return (row) => {
      const { Материалы: _summary, ...head } = shortOf(row)
      const part = tryPart(() => parts(String(row.ref)), documentLabel('Перемещение товаров', row), 'Товары')
      const goods = (part.rows ?? []).map((g) => ({
        НомерСтроки: orEmpty(g.row_number),
        Номенклатура: orEmpty(g.nomenclature),
        ХарактеристикаНоменклатуры: orEmpty(g.characteristic),
        ЕдиницаИзмерения: orEmpty(g.unit),
        Количество: Number(g.quantity),
      }))
      return { value: { ...head, Товары: goods }, issue: part.issue }
    }
  },
}
