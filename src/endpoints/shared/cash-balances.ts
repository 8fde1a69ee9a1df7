// Balances and turnovers of the cash register for a period, per (organization, account),
// read from the register's running totals (cash-cumulative.ts), with the printed
// attributes of the organization and the account joined on.
import type { SqlPort } from '../../store/sql.js'
import { CASH_KEYS, CUMULATIVE } from './cash-cumulative.js'

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

const KEY = ['organization', 'account', 'account_type'] as const
const match = (alias: string) => KEY.map((k) => `${alias}.${k} = k.${k}`).join(' AND ')
/** The running-totals row of key `k` at the last day with movements `op` the bound. */
const lastRow = (alias: string, op: '<' | '<=') =>
  `${match(alias)} AND ${alias}.day = (SELECT MAX(x.day) FROM ${CUMULATIVE} x WHERE ${match('x')} AND x.day ${op} ?)`

function balancesSql(mgmt: boolean): string {
  const [receipt, expense] = mgmt ? ['receipt_mgmt', 'expense_mgmt'] : ['receipt', 'expense']
  return (
    `SELECT k.organization, k.account, k.account_type, COALESCE(b0.${receipt}, 0) AS r0, COALESCE(b0.${expense}, 0) AS e0, ` +
    `COALESCE(b0.moves, 0) AS n0, b1.${receipt} AS r1, b1.${expense} AS e1, b1.moves AS n1, ` +
    "COALESCE(o.name, '') AS org_name, COALESCE(ba.name, cd.name, '') AS account_name, " +
    "COALESCE(bank.presentation, '') AS bank_name, COALESCE(ba.account_kind, '') AS account_kind, " +
    "COALESCE(cur.presentation, '') AS currency_name, COALESCE(ba.closed, cd.closed, 0) AS closed " +
    // CROSS JOIN keeps the accounts the outer loop in SQLite (elsewhere a plain join):
    // otherwise it may scan every running-totals row and test each against its account's last day.
    `FROM ${CASH_KEYS} k CROSS JOIN ${CUMULATIVE} b1 LEFT JOIN ${CUMULATIVE} b0 ON ${lastRow('b0', '<')} ` +
    'LEFT JOIN cat_organizations o ON o.ref = k.organization ' +
    'LEFT JOIN cat_bank_accounts ba ON k.account_type = ? AND ba.ref = k.account ' +
    'LEFT JOIN cat_cash_desks cd ON k.account_type = ? AND cd.ref = k.account ' +
    'LEFT JOIN objects bank ON bank.ref = ba.bank ' +
    'LEFT JOIN objects cur ON cur.ref = COALESCE(ba.currency, cd.currency) ' +
    `WHERE ${lastRow('b1', '<=')}`
  )
}

const BALANCES_SQL = { plain: balancesSql(false), mgmt: balancesSql(true) }

/**
 * Every (organization, account) with a movement through `to` (ISO days, `from` ≤ `to`);
 * which of them are printed is the caller's rule. Two indexed reads of the running totals
 * per account (cash-cumulative.ts): the balance before `from` and the one through `to`.
 */
export async function cashBalances(sql: SqlPort, from: string, to: string, mgmt: boolean): Promise<BalanceRow[]> {
  const text = mgmt ? BALANCES_SQL.mgmt : BALANCES_SQL.plain
  const rows = await sql.all<Record<string, unknown>>(text, [from, BANK_ACCOUNT, CASH_DESK, to])
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
