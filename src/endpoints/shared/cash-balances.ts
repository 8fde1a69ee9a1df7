// Balances and turnovers of the cash register for a period, per (organization, account),
// from the ready accounts (cash-accounts.ts): an account whose movements all lie inside
// the period needs nothing more; otherwise its running totals (cash-cumulative.ts) give the
// balance before the period and the one through its end, an indexed read each.
import type { Dialect, SqlPort, SqlValue } from '../../store/sql.js'
import { whileUnchanged } from '../../store/unchanged.js'
import { CASH_ACCOUNTS, TEXTS } from '../../views/cash/accounts.js'
import { CUMULATIVE } from '../../views/cash/cumulative.js'
import { CASH_STATEMENT } from '../../views/cash/statement.js'

export interface BalanceRow {
  /** The account's printed attributes, JSON members without braces (cash-accounts.ts). */
  readonly printed: Buffer
  /** The texts the post-filters test, by filter column; read only when asked for (`texts`). */
  readonly texts?: Readonly<Record<string, string>>
  readonly closed: boolean
  /** Receipts and expenses before the period, and through its end (not yet rounded). */
  readonly receiptsBefore: number
  readonly expensesBefore: number
  readonly receiptsThrough: number
  readonly expensesThrough: number
  /** Number of movements inside the period. */
  readonly moves: number
}

const KEY = ['organization', 'account', 'account_type'] as const
const match = (alias: string, account = 'k') => KEY.map((k) => `${alias}.${k} = ${account}.${k}`).join(' AND ')
/** The last day with movements of `account` `op` the bound. */
const lastDay = (account: string, op: '<' | '<=', bound: string) =>
  `(SELECT MAX(x.day) FROM ${CUMULATIVE} x WHERE ${match('x', account)} AND x.day ${op} ${bound})`
const lastRowLateral = (when: string, op: '<' | '<=', bound: string) =>
  `(SELECT * FROM ${CUMULATIVE} x WHERE ${when} AND ${match('x')} AND x.day ${op} ${bound} ORDER BY x.day DESC LIMIT 1)`

/** Filter columns (cashflows.ts) and the ready accounts' columns holding their texts. */
const TEXT_COLUMNS: Readonly<Record<string, (typeof TEXTS)[number]>> = {
  org: 'org_name',
  account: 'account_name',
  bank: 'bank_name',
  kind: 'kind',
  accountKind: 'account_kind',
  currency: 'currency_name',
}

interface BalancesSql {
  readonly text: string
  readonly params: (from: string, to: string) => SqlValue[]
}

/** `text` with its `:from` and `:to` as positional parameters, in the order they appear. */
function positional(text: string): BalancesSql {
  const order: ('from' | 'to')[] = []
  const out = text.replace(/:(from|to)\b/g, (_, name: 'from' | 'to') => (order.push(name), '?'))
  return { text: out, params: (from, to) => order.map((n) => (n === 'from' ? from : to)) }
}

// An account is read through `:to` when its last day is after it (b1), and before `:from`
// when its movements start before `:from` and go on past it (b0); otherwise its ready row
// holds the answer (nothing before, or everything), so an account whose movements all lie
// in the period costs no read of the running totals. An account without a movement through
// `:to` is left out. Each engine gets the form that gates the reads on the account's days:
// SQLite a scalar subquery in a CASE (it skips the subquery when the CASE does not reach
// it), PostgreSQL a LATERAL whose gate is a one-time filter. Few columns come back: each
// value costs the client more than the index reads.
function balancesSql(mgmt: boolean, texts: boolean, dialect: Dialect): BalancesSql {
  const [receipt, expense] = mgmt ? ['receipt_mgmt', 'expense_mgmt'] : ['receipt', 'expense']
  const before = (col: string) => `CASE WHEN k.first_day >= :from THEN 0 WHEN k.last_day < :from THEN k.${col} ELSE b0.${col} END`
  const through = (col: string) => `CASE WHEN k.last_day <= :to THEN k.${col} ELSE b1.${col} END`
  const select =
    `SELECT ${dialect.bytes.select('k.printed')} AS printed, k.closed, ${before(receipt)} AS r0, ${before(expense)} AS e0, ` +
    `${through(receipt)} AS r1, ${through(expense)} AS e1, ${through('moves')} - ${before('moves')} AS n` +
    (texts ? `, ${TEXTS.map((t) => `k.${t}`).join(', ')} ` : ' ')
  const gateThrough = (a: string) => `${a}.last_day > :to`
  const gateBefore = (a: string) => `${a}.first_day < :from AND ${a}.last_day >= :from`
  const where = 'WHERE k.last_day <= :to OR b1.day IS NOT NULL ORDER BY k.seq'
  if (dialect.name === 'postgres') {
    return positional(
      `${select}FROM ${CASH_ACCOUNTS} k LEFT JOIN LATERAL ${lastRowLateral(gateThrough('k'), '<=', ':to')} b1 ON TRUE ` +
        `LEFT JOIN LATERAL ${lastRowLateral(gateBefore('k'), '<', ':from')} b0 ON TRUE ${where}`,
    )
  }
  const days =
    `SELECT a.*, CASE WHEN ${gateThrough('a')} THEN ${lastDay('a', '<=', ':to')} END AS d1, ` +
    `CASE WHEN ${gateBefore('a')} THEN ${lastDay('a', '<', ':from')} END AS d0 FROM ${CASH_ACCOUNTS} a`
  return positional(
    `${select}FROM (${days}) k LEFT JOIN ${CUMULATIVE} b1 ON ${match('b1')} AND b1.day = k.d1 ` +
      `LEFT JOIN ${CUMULATIVE} b0 ON ${match('b0')} AND b0.day = k.d0 ${where}`,
  )
}

const BALANCES_SQL = new Map<string, BalancesSql>()

/**
 * Every (organization, account) with a movement through `to` (ISO days, `from` ≤ `to`), in
 * the statement's order; which of them are printed is the caller's rule. With `texts`, each
 * row has the texts the post-filters test.
 */
export async function cashBalances(sql: SqlPort, from: string, to: string, mgmt: boolean, texts = false): Promise<BalanceRow[]> {
  const id = `${sql.dialect.name}:${mgmt}:${texts}`
  let query = BALANCES_SQL.get(id)
  if (!query) BALANCES_SQL.set(id, (query = balancesSql(mgmt, texts, sql.dialect)))
  const rows = await sql.all<Record<string, unknown>>(query.text, query.params(from, to))
  return rows.map((r) => ({
    printed: sql.dialect.bytes.value(r.printed)!,
    ...(texts ? { texts: Object.fromEntries(Object.entries(TEXT_COLUMNS).map(([f, c]) => [f, String(r[c])])) } : {}),
    closed: Number(r.closed) === 1,
    receiptsBefore: Number(r.r0),
    expensesBefore: Number(r.e0),
    receiptsThrough: Number(r.r1),
    expensesThrough: Number(r.e1),
    moves: Number(r.n),
  }))
}

/** The ready statement over the whole history (views/cash/statement.ts). */
export interface WholeStatement {
  /** The first and last days with movements of any account (ISO). */
  readonly firstDay: string
  readonly lastDay: string
  readonly count: number
  /** Each row's bytes after its period, a line feed between two. */
  readonly tails: Buffer
  readonly totalsTail: Buffer
}

/**
 * The ready statement in amounts or management amounts; undefined when the register has no
 * movement. Kept by the connection while it sees no commit (store/unchanged.ts): its one row
 * cost more than the rest of the whole history's answer.
 */
export function wholeStatement(sql: SqlPort, mgmt: boolean): Promise<WholeStatement | undefined> {
  return whileUnchanged(sql, `${CASH_STATEMENT}\t${mgmt}`, async () => {
    const { select, value } = sql.dialect.bytes
    const [row] = await sql.all<Record<string, unknown>>(
      `SELECT first_day, last_day, row_count, ${select('tails')} AS tails, ${select('totals_tail')} AS totals_tail FROM ${CASH_STATEMENT} WHERE mgmt = ?`,
      [mgmt ? 1 : 0],
    )
    if (!row) return undefined
    return {
      firstDay: String(row.first_day),
      lastDay: String(row.last_day),
      count: Number(row.row_count),
      tails: value(row.tails)!,
      totalsTail: value(row.totals_tail)!,
    }
  })
}
