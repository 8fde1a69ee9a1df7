// The cash statement over the whole history, kept ready (spec § Cash statement row): when
// a period takes in every account's first and last day with movements, each account's
// opening balance is 0 and its turnovers are its running totals through its last day, so
// the rows are known before anyone asks but for the period they print. A statement with no
// period (01.01.0001 to today: the commonest request) then reads one row of this table and
// splices its period in, whatever the size of the register. Rebuilt with the ready accounts
// (accounts.ts), from the same rows.
import { round2 } from '../../values/printed.js'
import type { TableDef } from '../../store/table.js'
import type { SqlPort } from '../../store/sql.js'

export const CASH_STATEMENT = 'cash_statement'

export const cashStatementTable: TableDef = {
  name: CASH_STATEMENT,
  columns: [
    { name: 'mgmt', type: 'int' },
    { name: 'first_day', type: 'text' },
    { name: 'last_day', type: 'text' },
    { name: 'row_count', type: 'int' },
    { name: 'tails', type: 'blob' },
    { name: 'totals_tail', type: 'blob' },
  ],
  primaryKey: ['mgmt'],
}

/** Every row's head, before its period (the totals row's says so). */
export const ROW_HEAD = Buffer.from('{"Итог":false,"ПериодС":')
export const TOTALS_HEAD = Buffer.from('{"Итог":true,"ПериодС":')
/**
 * Between two rows' tails in `tails`: a raw line feed never occurs inside printed JSON
 * (a string escapes it), so the tails split on it without a length each.
 */
export const TAIL_END = 0x0a

/** `"<from>","ПериодПо":"<to>",` between a row's head and its tail; days as DD.MM.YYYY. */
export const printedPeriod = (from: string, to: string): Buffer => Buffer.from(`${JSON.stringify(from)},"ПериодПо":${JSON.stringify(to)},`)

/** The four printed amounts of a row: opening balance, receipts, expenses, closing balance, each rounded. */
export function statementAmounts(
  receiptsBefore: number,
  expensesBefore: number,
  receiptsThrough: number,
  expensesThrough: number,
): number[] {
  return [
    round2(receiptsBefore - expensesBefore),
    round2(receiptsThrough - receiptsBefore),
    round2(expensesThrough - expensesBefore),
    round2(receiptsThrough - expensesThrough),
  ]
}

/** A row's amounts and closing brace, after its account's printed attributes. */
export const amountsTail = ([НачальныйОстаток, Приход, Расход, КонечныйОстаток]: readonly number[], УпрУчет: boolean): string =>
  `,"НачальныйОстаток":${НачальныйОстаток},"Приход":${Приход},"Расход":${Расход},"КонечныйОстаток":${КонечныйОстаток},"УпрУчет":${УпрУчет}}`

/** The totals row after its period: the sums of the printed amounts, rounded again. */
export function totalsTail(totals: readonly number[], УпрУчет: boolean): Buffer {
  const [НачальныйОстаток, Приход, Расход, КонечныйОстаток] = totals.map(round2)
  const row = {
    Организация: '',
    СчетКасса: 'Итог',
    ВидДенежныхСредств: '',
    Банк: '',
    ВидСчета: '',
    Валюта: '',
    Закрыт: false,
    НачальныйОстаток,
    Приход,
    Расход,
    КонечныйОстаток,
    УпрУчет,
  }
  return Buffer.from(JSON.stringify(row).slice(1))
}

/** An account of the ready accounts, in the statement's order. */
export interface StatementAccount {
  /** Its printed attributes, JSON members without braces. */
  readonly printed: Buffer
  readonly firstDay: string
  readonly lastDay: string
  readonly receipt: number
  readonly expense: number
  readonly receiptMgmt: number
  readonly expenseMgmt: number
  readonly moves: number
}

/** Rewrites both statements (amounts and management amounts) from `accounts`. */
export async function rebuildCashStatement(sql: SqlPort, accounts: readonly StatementAccount[]): Promise<void> {
  await sql.run(`DELETE FROM ${CASH_STATEMENT}`)
  if (accounts.length === 0) return
  const firstDay = accounts.reduce((d, a) => (a.firstDay < d ? a.firstDay : d), accounts[0]!.firstDay)
  const lastDay = accounts.reduce((d, a) => (a.lastDay > d ? a.lastDay : d), accounts[0]!.lastDay)
  const rows = [false, true].map((mgmt) => {
    const tails: Buffer[] = []
    const totals = [0, 0, 0, 0]
    let count = 0
    for (const a of accounts) {
      // The statement's rule (a non-zero opening balance or any movement) with every opening balance 0.
      if (a.moves <= 0) continue
      const amounts = mgmt ? statementAmounts(0, 0, a.receiptMgmt, a.expenseMgmt) : statementAmounts(0, 0, a.receipt, a.expense)
      if (count++ > 0) tails.push(Buffer.of(TAIL_END))
      tails.push(a.printed, Buffer.from(amountsTail(amounts, mgmt)))
      amounts.forEach((x, i) => (totals[i]! += x))
    }
    return [mgmt ? 1 : 0, firstDay, lastDay, count, Buffer.concat(tails), totalsTail(totals, mgmt)]
  })
  await sql.insertRows(
    CASH_STATEMENT,
    cashStatementTable.columns.map((c) => c.name),
    rows,
  )
}
