// GET /main/hs/payments/get — spec § Expense request (payments), § GET /main/hs/payments/get.
// The period is the expense date (ДатаРасхода), not the document date; the counterparty
// is printed only as the fallback of Получатель, and filtered by `contractor`.
import { Payment, PaymentFull } from './responses.js'
import { comment, exactAmount, m, posted, responsible } from './meanings.js'
import { orLiteral, summary } from '../values/printed.js'
import { dmy } from '../values/dates.js'
import { fold } from '../values/fold.js'
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
import { refsOf } from '../store/by-owner.js'
import { attachmentFiles, referencedDocuments, settlementDocuments } from './shared/linked.js'

const refs = presentations('responsible', 'recipient', 'counterparty', 'organization', 'cash', 'status_changer')

export const payments: ListEndpoint = {
  kind: 'list',
  service: 'payments',
  operationId: 'GetPayments',
  returns: 'Expense requests (document)',
  response: { short: Payment, full: PaymentFull },
  meanings: {
    from: m(
      'Начало периода по дате расхода (ДатаРасхода, не дата документа)',
      'Period start by expense date (ДатаРасхода, not the document date)',
    ),
    to: m('Конец периода по дате расхода', 'Period end by expense date'),
    date: m('Одна дата расхода (весь день)', 'One expense date (the whole day)'),
    code: m('Номер заявки (подстрока)', 'Request number (substring)'),
    summ: exactAmount,
    approved: posted,
    responsible,
    recipient: m('Получатель (подстрока)', 'Recipient (substring)'),
    contractor: m('Контрагент (подстрока)', 'Counterparty (substring)'),
    cash: m('Счет / касса (подстрока)', 'Account / cash desk (substring)'),
    comment,
    status: m('Статус (подстрока)', 'Status (substring)'),
    full: m('Полные связанные документы и вложения (Base64)', 'Full linked documents and attachments (Base64)'),
  },
  readModel: printing(Payment, {
    table: 'api_payments',
    version: 2,
    source: 'doc_expense_requests',
    columns: [
      ...documentColumns('expense_date'),
      ...foldedColumns('responsible_f', 'recipient_f', 'counterparty_f', 'cash_f', 'comment_f', 'status_f'),
    ],
    indexes: [newestFirstIndex('expense_date')],
    select:
      `s.ref, s.number, s.date, s.expense_date, s.amount, s.posted, s.status, s.comment, s.status_date, ${refs.select}, ` +
      `${resolves('basis', 'basis_found')}, ${attachmentCount}, ` +
      '(SELECT COUNT(DISTINCT e.recorder) FROM reg_expense_payments e WHERE e.request = s.ref) AS settlements ' +
      `FROM doc_expense_requests s ${refs.joins}`,
    build: (r) => {
      const responsible = orLiteral(r.responsible, 'Не указан')
      // Получатель: the recipient, else the counterparty, else the literal (spec § payments).
      const recipient = orLiteral(r.recipient || r.counterparty, 'Не указан')
      const cash = orLiteral(r.cash, 'Не указана')
      return {
        values: {
          ...documentValues(r, 'expense_date'),
          responsible_f: fold(responsible),
          recipient_f: fold(recipient),
          counterparty_f: fold(String(r.counterparty)),
          cash_f: fold(cash),
          comment_f: fold(String(r.comment)),
          status_f: fold(String(r.status)),
        },
        short: {
          Номер: text(r.number),
          ДатаДокумента: dmy(String(r.date)),
          ДатаРасхода: dmy(String(r.expense_date)),
          Ответственный: responsible,
          Получатель: recipient,
          Организация: text(r.organization),
          Касса: cash,
          СуммаДокумента: num(r.amount),
          Статус: text(r.status),
          Комментарий: text(r.comment),
          Проведен: Number(r.posted) === 1,
          КтоИзменилСтатус: text(r.status_changer),
          ДатаСменыСтатуса: dmy(String(r.status_date)),
          СвязанныеДокументы: {
            ДокументОснование: summary(Number(r.basis_found)),
            ДокументыРасчетовСКонтрагентом: summary(Number(r.settlements)),
          },
          Вложения: summary(Number(r.attachments)),
        },
      }
    },
  }),
  period: period('expense_date'),
  params: [
    ...databaseParams,
    postFilter('responsible', 'responsible_f'),
    postFilter('recipient', 'recipient_f'),
    postFilter('contractor', 'counterparty_f'),
    postFilter('cash', 'cash_f'),
    postFilter('comment', 'comment_f'),
    postFilter('status', 'status_f'),
    { name: 'full', stage: 'option', truthy: YES },
  ],
  sort: newestFirst('expense_date'),
  // ДокументыРасчетовСКонтрагентом prints each recorder's number and date.
  fullTraces: [
    { types: ['Документ.*'], sql: 'SELECT request AS ref FROM reg_expense_payments WHERE recorder IN (SELECT ref FROM _touched)' },
  ],
  fullPage: async ({ sql }, rows) => {
    const owners = refsOf(rows)
    const basis = await referencedDocuments(sql, 'doc_expense_requests', 'basis', owners)
    const settlements = await settlementDocuments(sql, owners)
    const files = await attachmentFiles(sql, owners)
    // A failed read of the document throws: it leaves `data` with an `errors` entry.
    return (row) => {
      const ref = String(row.ref)
      const links = { ДокументОснование: basis(ref), ДокументыРасчетовСКонтрагентом: settlements(ref) }
      return { value: { ...shortForm(row), СвязанныеДокументы: links, Вложения: files(ref) } }
    }
  },
}
