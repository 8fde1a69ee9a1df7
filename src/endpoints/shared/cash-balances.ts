// Balances and turnovers of the cash register for a period, per (organization, account),
// read from the calendar turnovers (cash-turnovers.ts), with the printed attributes of the
// organization and the account joined on.
import type { SqlPort, SqlValue } from '../../store/sql.js'
import { TURNOVERS } from './cash-turnovers.js'

export interface BalanceRow {
  readonly organization: string
  readonly account: string
  readonly accountType: string
  readonly orgName: string
  readonly accountName: string
  readonly bankName: string
  readonly accountKind: string
  readonly currencyName: string
  readonly closed: boolean
  /** Receipts and expenses before the period, and through its end (not yet rounded). */
  readonly receiptsBefore: number
  readonly expensesBefore: number
  readonly receiptsThrough: number
  readonly expensesThrough: number
  /** Number of movements inside the period. */
  readonly moves: number
}

export const BANK_ACCOUNT = 'Справочник.БанковскиеСчета'
export const CASH_DESK = 'Справочник.Кассы'

/**
 * The turnover rows that make up the movements before `day` (or through it, inclusive):
 * earlier years, earlier months of its year, earlier days (or also the day) of its month.
 */
function branches(slot: 0 | 1, day: string, mgmt: boolean): { text: string; params: SqlValue[] } {
  const year = day.slice(0, 4)
  const month = day.slice(0, 7)
  const sums = (n: 0 | 1) =>
    n === slot ? `${mgmt ? 'receipt_mgmt' : 'receipt'} AS r${n}, ${mgmt ? 'expense_mgmt' : 'expense'} AS e${n}, moves AS n${n}` : `0 AS r${n}, 0 AS e${n}, 0 AS n${n}`
  const cols = `${sums(0)}, ${sums(1)}`
  const head = `SELECT organization, account, account_type, ${cols} FROM ${TURNOVERS} WHERE level = `
  return {
    text: [
      `${head}'y' AND start < ?`,
      `${head}'m' AND start >= ? AND start < ?`,
      `${head}'d' AND start >= ? AND start ${slot === 0 ? '<' : '<='} ?`,
    ].join(' UNION ALL '),
    params: [year, `${year}-01`, month, `${month}-01`, day],
  }
}

/**
 * Every (organization, account) with a movement through `to` (ISO days, `from` ≤ `to`);
 * which of them are printed is the caller's rule.
 */
export async function cashBalances(sql: SqlPort, from: string, to: string, mgmt: boolean): Promise<BalanceRow[]> {
  const before = branches(0, from, mgmt)
  const through = branches(1, to, mgmt)
  const text =
    'SELECT b.organization, b.account, b.account_type, b.r0, b.e0, b.n0, b.r1, b.e1, b.n1, ' +
    "COALESCE(o.name, '') AS org_name, COALESCE(ba.name, cd.name, '') AS account_name, " +
    "COALESCE(bank.presentation, '') AS bank_name, COALESCE(ba.account_kind, '') AS account_kind, " +
    "COALESCE(cur.presentation, '') AS currency_name, COALESCE(ba.closed, cd.closed, 0) AS closed " +
    'FROM (SELECT organization, account, account_type, SUM(r0) AS r0, SUM(e0) AS e0, SUM(n0) AS n0, ' +
    'SUM(r1) AS r1, SUM(e1) AS e1, SUM(n1) AS n1 ' +
    `FROM (${before.text} UNION ALL ${through.text}) u GROUP BY organization, account, account_type) b ` +
    'LEFT JOIN cat_organizations o ON o.ref = b.organization ' +
    'LEFT JOIN cat_bank_accounts ba ON b.account_type = ? AND ba.ref = b.account ' +
    'LEFT JOIN cat_cash_desks cd ON b.account_type = ? AND cd.ref = b.account ' +
    'LEFT JOIN objects bank ON bank.ref = ba.bank ' +
    'LEFT JOIN objects cur ON cur.ref = COALESCE(ba.currency, cd.currency)'
  const rows = await sql.all<Record<string, unknown>>(text, [...before.params, ...through.params, BANK_ACCOUNT, CASH_DESK])
  return rows.map((r) => ({
    organization: String(r.organization),
    account: String(r.account),
    accountType: String(r.account_type),
    orgName: String(r.org_name),
    accountName: String(r.account_name),
    bankName: String(r.bank_name),
    accountKind: String(r.account_kind),
    currencyName: String(r.currency_name),
    closed: Number(r.closed) === 1,
    receiptsBefore: Number(r.r0),
    expensesBefore: Number(r.e0),
    receiptsThrough: Number(r.r1),
    expensesThrough: Number(r.e1),
    moves: Number(r.n1) - Number(r.n0),
  }))
}
