// GET /main/hs/cashflows/get — spec § Cash statement row, § GET /main/hs/cashflows/get,
// data-format.md § Derived values (cash statement rows). Balances come from the cash
// register's calendar turnovers (views/cash/turnovers.ts), never from documents.
// Printing decisions where the spec is silent: a cash desk has no bank and no account
// kind, so it prints Банк and ВидСчета as ''; the totals row comes last; `cash` is an
// alias of `account` (the first of the two in the query string wins).
import { CashflowLine } from './responses.js'
import { m, organization } from './meanings.js'
import { fold } from '../values/fold.js'
import { NO, YES } from './define.js'
import type { ComputedEndpoint, Param } from './define.js'
import type { RequestContext } from '../views/define.js'
import { CASH, CASH_ACCOUNTS, NON_CASH } from '../views/cash/accounts.js'
import { cashBalances, wholeStatement } from './shared/cash-balances.js'
import type { BalanceRow, WholeStatement } from './shared/cash-balances.js'
import { ROW_HEAD, TAIL_END, TOTALS_HEAD, amountsTail, printedPeriod, statementAmounts, totalsTail } from '../views/cash/statement.js'
import { cashPeriod } from './shared/cash-period.js'
import { dmy } from '../values/dates.js'

/**
 * `kind`: `Наличные` is a substring of `Безналичные`, so a value is read as the one kind
 * it names: any substring of `наличные` (e.g. `нал`) selects cash only, any other
 * substring of `безналичные` (e.g. `без`) non-cash only, anything else nothing.
 */
function kindWanted(value: string): string | undefined {
  const v = fold(value)
  if (fold(CASH).includes(v)) return CASH
  if (fold(NON_CASH).includes(v)) return NON_CASH
  return undefined
}

const contains = (name: string, column: string): Param => ({ name, stage: 'post-filter', match: 'contains', column })

// Every filter runs on the computed rows (spec rule 2 names them all post-filters).
const params: readonly Param[] = [
  { name: 'from', stage: 'raw' },
  { name: 'to', stage: 'raw' },
  { name: 'date', stage: 'raw' },
  contains('org', 'org'),
  { ...contains('account', 'account'), aliases: ['cash'] },
  contains('bank', 'bank'),
  { name: 'kind', stage: 'post-filter', match: 'custom', columns: ['kind'], test: (v, row) => row.kind === kindWanted(v) },
  contains('accountType', 'accountKind'),
  contains('currency', 'currency'),
  // True and false spellings; any other value is reported and ignored.
  { name: 'closed', stage: 'database', match: 'flag', column: 'closed', truthy: YES, falsy: NO },
  { name: 'mgmt', stage: 'option', truthy: YES },
  { name: 'totals', stage: 'option', truthy: YES },
]

/** The parameters a statement over the whole history may carry (wholeHistory). */
const OPTIONS: ReadonlySet<string> = new Set(['mgmt', 'totals'])

const COMMA = Buffer.from(',')
const CLOSE = Buffer.from(']')

function keep(ctx: RequestContext, b: BalanceRow): boolean {
  const closed = ctx.flags.get('closed')
  if (closed !== undefined && closed !== b.closed) return false
  const f = b.texts ?? {}
  for (const p of params) {
    const value = ctx.values.get(p.name)
    if (value === undefined || p.stage !== 'post-filter') continue
    if (p.match === 'contains' && !fold(f[p.column] ?? '').includes(fold(value))) return false
    if (p.match === 'custom' && !p.test(value, f)) return false
  }
  return true
}

/** Accounts up to which a statement runs on the event loop: two index probes and a few joins each. */
export const LOOP_ACCOUNTS = 200

export const cashflows: ComputedEndpoint = {
  kind: 'computed',
  service: 'cashflows',
  operationId: 'GetCashFlows',
  returns: 'Cash balances and turnovers per account/cash desk (actual, not planned)',
  response: { short: CashflowLine },
  meanings: {
    from: m(
      'Начало периода; можно без `to` (тогда конец — текущий день)',
      'Period start; may be used without `to` (then the end is the current day)',
    ),
    to: m(
      'Конец периода, включительно до конца дня; можно без `from` (тогда начало — 01.01.0001)',
      'Period end, inclusive to the end of the day; may be used without `from` (then the start is 01.01.0001)',
    ),
    date: m('Один день вместо from/to (весь день)', 'One day instead of from/to (the whole day)'),
    org: organization,
    account: m('Представление счета / кассы, поле СчетКасса (подстрока)', 'Account / cash desk presentation, field СчетКасса (substring)'),
    bank: m('Наименование банка (подстрока)', 'Bank name (substring)'),
    kind: m(
      'Вид денежных средств (ВидДенежныхСредств): `Наличные` или `Безналичные`; `Наличные` не совпадает с безналичными, а `Безналичные` отбирает только безналичные',
      'Cash kind (ВидДенежныхСредств): `Наличные` or `Безналичные`; cash does not match non-cash values, and the non-cash value selects only non-cash',
    ),
    accountType: m('Вид счета, ВидСчета (подстрока)', 'Account kind, ВидСчета (substring)'),
    currency: m('Валюта счета / кассы, Валюта (подстрока)', 'Currency, Валюта (substring)'),
    closed: m('Отбор по признаку Закрыт', 'Filter by Закрыт (the account is closed)'),
    mgmt: m('Суммы в управленческом учете', 'Amounts in management accounting'),
    totals: m('Добавляет строку итогов', 'Adds the totals row'),
  },
  params,
  // A statement costs per account with movements, whatever the period and the filters
  // (they test the computed rows): a company's few dozen accounts cost less than a worker's
  // hand-off. The count stops at LOOP_ACCOUNTS + 1 rows. A statement with no period and no
  // filter reads the ready one (wholeHistory) and needs no count.
  loopWhen: async (values, sql) => {
    if ([...values.keys()].every((name) => OPTIONS.has(name))) return true
    const [row] = await sql.all<{ n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${CASH_ACCOUNTS} LIMIT ${LOOP_ACCOUNTS + 1}) k`)
    return Number(row?.n) <= LOOP_ACCOUNTS
  },
  async compute(ctx, issues) {
    const period = cashPeriod(ctx.values, ctx.now(), issues)
    if (!period) return []
    const mgmt = ctx.options.mgmt === true
    const printed = printedPeriod(dmy(period.from), dmy(period.to))
    const filtered = params.some((p) => p.stage === 'post-filter' && ctx.values.has(p.name))
    if (!filtered && ctx.flags.get('closed') === undefined) {
      const whole = await wholeStatement(ctx.sql, mgmt)
      // Every account's movements lie in the period: the ready rows are the answer.
      if (whole && period.from <= whole.firstDay && whole.lastDay <= period.to)
        return wholeHistory(whole, printed, ctx.options.totals === true)
    }
    const parts: Buffer[] = [Buffer.from('[')]
    const totals = [0, 0, 0, 0]
    let count = 0
    for (const b of await cashBalances(ctx.sql, period.from, period.to, mgmt, filtered)) {
      const amounts = statementAmounts(b.receiptsBefore, b.expensesBefore, b.receiptsThrough, b.expensesThrough)
      // A row per account with a non-zero opening balance or any movement in the period.
      if ((amounts[0] === 0 && b.moves <= 0) || !keep(ctx, b)) continue
      if (count++ > 0) parts.push(COMMA)
      parts.push(ROW_HEAD, printed, b.printed, Buffer.from(amountsTail(amounts, mgmt)))
      amounts.forEach((a, i) => (totals[i]! += a))
    }
    if (ctx.options.totals === true && count > 0) {
      parts.push(COMMA, TOTALS_HEAD, printed, totalsTail(totals, mgmt))
      count++
    }
    parts.push(CLOSE)
    return { json: Buffer.concat(parts), count }
  },
}

/** The ready statement's rows with `period` spliced into each, and its totals row when asked. */
function wholeHistory(whole: WholeStatement, period: Buffer, totals: boolean): { json: Buffer; count: number } {
  const parts: Buffer[] = [Buffer.from('[')]
  const { tails } = whole
  for (let start = 0, i = 0; i < whole.count; i++) {
    const end = tails.indexOf(TAIL_END, start)
    const stop = end < 0 ? tails.length : end
    if (i > 0) parts.push(COMMA)
    parts.push(ROW_HEAD, period, tails.subarray(start, stop))
    start = stop + 1
  }
  if (totals && whole.count > 0) parts.push(COMMA, TOTALS_HEAD, period, whole.totalsTail)
  parts.push(CLOSE)
  return { json: Buffer.concat(parts), count: whole.count + (totals && whole.count > 0 ? 1 : 0) }
}
