// Balances and turnovers of the cash register for a period, per (organization, account),
// read from the register's running totals (cash-cumulative.ts), with the printed
// attributes of the organization and the account joined on.
import type { Dialect, SqlPort, SqlValue } from '../../store/sql.js'
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
const lastRowLateral = (op: '<' | '<=') => `(SELECT * FROM ${CUMULATIVE} x WHERE ${match('x')} AND x.day ${op} ? ORDER BY x.day DESC LIMIT 1)`

interface BalancesSql {
  readonly text: string
  readonly params: (from: string, to: string) => SqlValue[]
}

// Each engine gets the form it runs as two index probes per account: SQLite has no
// LATERAL, and PostgreSQL plans the join on the last day's MAX() as a hash join over
// every running-totals row. The presentations are scalar subqueries, so that PostgreSQL
// probes `objects` by key even before the accounts table has statistics (it would hash
// the whole of `objects` for the default estimate of a never-analyzed table).
function balancesSql(mgmt: boolean, dialect: Dialect['name']): BalancesSql {
  const [receipt, expense] = mgmt ? ['receipt_mgmt', 'expense_mgmt'] : ['receipt', 'expense']
  const head =
    `SELECT k.organization, k.account, k.account_type, COALESCE(b0.${receipt}, 0) AS r0, COALESCE(b0.${expense}, 0) AS e0, ` +
    `COALESCE(b0.moves, 0) AS n0, b1.${receipt} AS r1, b1.${expense} AS e1, b1.moves AS n1, ` +
    "COALESCE(o.name, '') AS org_name, COALESCE(ba.name, cd.name, '') AS account_name, " +
    "COALESCE((SELECT bank.presentation FROM objects bank WHERE bank.ref = ba.bank), '') AS bank_name, COALESCE(ba.account_kind, '') AS account_kind, " +
    "COALESCE((SELECT cur.presentation FROM objects cur WHERE cur.ref = COALESCE(ba.currency, cd.currency)), '') AS currency_name, " +
    "COALESCE(ba.closed, cd.closed, 0) AS closed "
  const attributes =
    'LEFT JOIN cat_organizations o ON o.ref = k.organization ' +
    'LEFT JOIN cat_bank_accounts ba ON k.account_type = ? AND ba.ref = k.account ' +
    'LEFT JOIN cat_cash_desks cd ON k.account_type = ? AND cd.ref = k.account'
  if (dialect === 'postgres') {
    return {
      text: `${head}FROM ${CASH_KEYS} k CROSS JOIN LATERAL ${lastRowLateral('<=')} b1 LEFT JOIN LATERAL ${lastRowLateral('<')} b0 ON TRUE ${attributes}`,
      params: (from, to) => [to, from, BANK_ACCOUNT, CASH_DESK],
    }
  }
  return {
    // CROSS JOIN keeps the accounts the outer loop in SQLite: otherwise it may scan every
    // running-totals row and test each against its account's last day.
    text: `${head}FROM ${CASH_KEYS} k CROSS JOIN ${CUMULATIVE} b1 LEFT JOIN ${CUMULATIVE} b0 ON ${lastRow('b0', '<')} ${attributes} WHERE ${lastRow('b1', '<=')}`,
    params: (from, to) => [from, BANK_ACCOUNT, CASH_DESK, to],
  }
}

const BALANCES_SQL = new Map<string, BalancesSql>()

/**
 * Every (organization, account) with a movement through `to` (ISO days, `from` ≤ `to`);
 * which of them are printed is the caller's rule. Two indexed reads of the running totals
 * per account (cash-cumulative.ts): the balance before `from` and the one through `to`.
 */
export async function cashBalances(sql: SqlPort, from: string, to: string, mgmt: boolean): Promise<BalanceRow[]> {
  const id = `${sql.dialect.name}:${mgmt}`
  let query = BALANCES_SQL.get(id)
  if (!query) BALANCES_SQL.set(id, (query = balancesSql(mgmt, sql.dialect.name)))
  const rows = await sql.all<Record<string, unknown>>(query.text, query.params(from, to))
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
