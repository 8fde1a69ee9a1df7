// The accounts of the cash statement, kept ready: one row per (organization, account,
// account type) with movements, in the statement's order, with its printed attributes as
// UTF-8 JSON, the attributes' texts its post-filters test, its first and last days with
// movements and its running totals through the last. A statement over the whole history
// (no period: the commonest request) is kept ready from them (statement.ts); one whose
// period starts after an account's first day or ends before its last reads that account's
// running totals as well (cash-balances.ts). Rebuilt whole — a row per account, tens to
// hundreds in a company — when the running totals change (cash-cumulative.ts) and when an
// import touches an object whose name or presentation a row prints (import/batch.ts).
import { ALL_TABLE_TYPES } from '../../model/objects.js'
import { sortKey } from '../../values/fold.js'
import type { TableDef } from '../../store/table.js'
import type { SqlPort } from '../../store/sql.js'
import { rebuildCashStatement } from './statement.js'
import type { StatementAccount } from './statement.js'

export const CASH_ACCOUNTS = 'cash_accounts'
const BANK_ACCOUNT = 'Справочник.БанковскиеСчета'
const CASH_DESK = 'Справочник.Кассы'
export const CASH = 'Наличные'
export const NON_CASH = 'Безналичные'

const KEY = ['organization', 'account', 'account_type'] as const
const SUMS = ['receipt', 'expense', 'receipt_mgmt', 'expense_mgmt', 'moves'] as const
/** The printed texts, as the statement prints them (a cash desk has no bank and no account kind). */
export const TEXTS = ['org_name', 'account_name', 'bank_name', 'kind', 'account_kind', 'currency_name'] as const

export const cashAccountsTable: TableDef = {
  name: CASH_ACCOUNTS,
  columns: [
    { name: 'seq', type: 'int' },
    ...KEY.map((name) => ({ name, type: 'text' as const })),
    { name: 'printed', type: 'blob' },
    ...TEXTS.map((name) => ({ name, type: 'text' as const })),
    { name: 'closed', type: 'int' },
    { name: 'first_day', type: 'text' },
    { name: 'last_day', type: 'text' },
    { name: 'receipt', type: 'real' },
    { name: 'expense', type: 'real' },
    { name: 'receipt_mgmt', type: 'real' },
    { name: 'expense_mgmt', type: 'real' },
    { name: 'moves', type: 'int' },
  ],
  // Stored in the statement's order, so that reading them all is reading the table.
  primaryKey: ['seq'],
  clustered: true,
}

const match = (alias: string) => KEY.map((k) => `${alias}.${k} = k.${k}`).join(' AND ')

// The presentations are scalar subqueries, so that PostgreSQL probes `objects` by key.
const SOURCE =
  `SELECT k.organization, k.account, k.account_type, COALESCE(o.name, '') AS org_name, COALESCE(ba.name, cd.name, '') AS account_name, ` +
  "COALESCE((SELECT bank.presentation FROM objects bank WHERE bank.ref = ba.bank), '') AS bank_name, COALESCE(ba.account_kind, '') AS account_kind, " +
  "COALESCE((SELECT cur.presentation FROM objects cur WHERE cur.ref = COALESCE(ba.currency, cd.currency)), '') AS currency_name, " +
  'COALESCE(ba.closed, cd.closed, 0) AS closed, ' +
  `(SELECT MIN(x.day) FROM cash_cumulative x WHERE ${match('x')}) AS first_day, l.day AS last_day, ${SUMS.map((s) => `l.${s}`).join(', ')} ` +
  `FROM cash_keys k JOIN cash_cumulative l ON ${match('l')} AND l.day = (SELECT MAX(x.day) FROM cash_cumulative x WHERE ${match('x')}) ` +
  'LEFT JOIN cat_organizations o ON o.ref = k.organization ' +
  'LEFT JOIN cat_bank_accounts ba ON k.account_type = ? AND ba.ref = k.account ' +
  'LEFT JOIN cat_cash_desks cd ON k.account_type = ? AND cd.ref = k.account'

const COLUMNS = cashAccountsTable.columns.map((c) => c.name)

/** Rewrites every row from the running totals and the catalogues as they are now. */
export async function rebuildCashAccounts(sql: SqlPort): Promise<void> {
  const rows = (await sql.all<Record<string, unknown>>(SOURCE, [BANK_ACCOUNT, CASH_DESK])).map((r) => {
    const cash = String(r.account_type) === CASH_DESK
    const texts = {
      org_name: String(r.org_name),
      account_name: String(r.account_name),
      bank_name: cash ? '' : String(r.bank_name),
      kind: cash ? CASH : NON_CASH,
      account_kind: cash ? '' : String(r.account_kind),
      currency_name: String(r.currency_name),
    }
    const closed = Number(r.closed) === 1
    const printed = JSON.stringify({
      Организация: texts.org_name,
      СчетКасса: texts.account_name,
      ВидДенежныхСредств: texts.kind,
      Банк: texts.bank_name,
      ВидСчета: texts.account_kind,
      Валюта: texts.currency_name,
      Закрыт: closed,
    })
    const [receipt, expense, receiptMgmt, expenseMgmt, moves] = SUMS.map((s) => Number(r[s])) as [number, number, number, number, number]
    const account: StatementAccount = {
      // The members without their braces: the statement puts them between its own.
      printed: Buffer.from(printed.slice(1, -1)),
      firstDay: String(r.first_day),
      lastDay: String(r.last_day),
      receipt,
      expense,
      receiptMgmt,
      expenseMgmt,
      moves,
    }
    return {
      order: [sortKey(texts.org_name), sortKey(texts.account_name), String(r.organization), String(r.account), String(r.account_type)],
      account,
      values: [
        String(r.organization),
        String(r.account),
        String(r.account_type),
        account.printed,
        ...TEXTS.map((t) => texts[t]),
        closed ? 1 : 0,
        account.firstDay,
        account.lastDay,
        receipt,
        expense,
        receiptMgmt,
        expenseMgmt,
        moves,
      ],
    }
  })
  rows.sort((a, b) => {
    for (let i = 0; i < a.order.length; i++) if (a.order[i] !== b.order[i]) return a.order[i]! < b.order[i]! ? -1 : 1
    return 0
  })
  await sql.run(`DELETE FROM ${CASH_ACCOUNTS}`)
  await sql.insertRows(
    CASH_ACCOUNTS,
    COLUMNS,
    rows.map((r, i) => [i, ...r.values]),
  )
  await rebuildCashStatement(
    sql,
    rows.map((r) => r.account),
  )
}

/** Types whose objects a row prints: the organization, the account, and the account's bank and currency. */
const PRINTED_TYPES: ReadonlySet<string> = new Set(
  ['cat_organizations', 'cat_bank_accounts', 'cat_cash_desks'].flatMap((table) => {
    const decl = ALL_TABLE_TYPES.find((t) => t.table === table)!
    const targets = decl.attrs.flatMap((a) => (a.kind === 'ref' && (a.col === 'bank' || a.col === 'currency') ? [a.target] : []))
    return [decl.type, ...targets]
  }),
)

/** Whether an import that touched objects of `types` may have changed what a row prints. */
export const printsAny = (types: ReadonlySet<string>): boolean => [...types].some((t) => PRINTED_TYPES.has(t))
