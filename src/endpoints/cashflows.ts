// GET /main/hs/cashflows/get — spec § Cash statement row, § GET /main/hs/cashflows/get,
// data-format.md § Derived values (cash statement rows). Balances come from the cash
// register's calendar turnovers (shared/cash-turnovers.ts), never from documents.
// Printing decisions where the spec is silent: a cash desk has no bank and no account
// kind, so it prints Банк and ВидСчета as ''; the totals row comes last; `cash` is an
// alias of `account` (the first of the two in the query string wins).
import { RESPONSES } from './responses.js'
import { round2 } from '../format/values.js'
import { fold, sortKey } from '../pipeline/fold.js'
import { NO, YES } from './define.js'
import type { ComputedEndpoint, Param, RequestContext } from './define.js'
import { CASH_DESK, cashBalances } from './shared/cash-balances.js'
import { CASH_KEYS } from './shared/cash-cumulative.js'
import type { BalanceRow } from './shared/cash-balances.js'
import { cashPeriod } from './shared/cash-period.js'
import { dmy } from '../pipeline/dates.js'

const CASH = 'Наличные'
const NON_CASH = 'Безналичные'

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

interface Line {
  readonly printed: Record<string, unknown>
  /** What the filters test, unfolded: most requests have no filter, so folding waits for one. */
  readonly fields: Readonly<Record<string, string>>
  readonly closed: boolean
  readonly order: readonly string[]
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

function line(b: BalanceRow, ПериодС: string, ПериодПо: string, УпрУчет: boolean): Line {
  const opening = b.receiptsBefore - b.expensesBefore
  const kind = b.accountType === CASH_DESK ? CASH : NON_CASH
  const bank = kind === CASH ? '' : b.bankName
  const accountKind = kind === CASH ? '' : b.accountKind
  return {
    printed: {
      Итог: false,
      ПериодС,
      ПериодПо,
      Организация: b.orgName,
      СчетКасса: b.accountName,
      ВидДенежныхСредств: kind,
      Банк: bank,
      ВидСчета: accountKind,
      Валюта: b.currencyName,
      Закрыт: b.closed,
      НачальныйОстаток: round2(opening),
      Приход: round2(b.receiptsThrough - b.receiptsBefore),
      Расход: round2(b.expensesThrough - b.expensesBefore),
      КонечныйОстаток: round2(b.receiptsThrough - b.expensesThrough),
      УпрУчет,
    },
    fields: { org: b.orgName, account: b.accountName, bank, kind, accountKind, currency: b.currencyName },
    closed: b.closed,
    order: [sortKey(b.orgName), sortKey(b.accountName), b.organization, b.account, b.accountType],
  }
}

function keep(ctx: RequestContext, l: Line): boolean {
  for (const p of params) {
    const value = ctx.values.get(p.name)
    if (value === undefined) continue
    if (p.stage === 'post-filter' && p.match === 'contains' && !fold(l.fields[p.column] ?? '').includes(fold(value))) return false
    if (p.stage === 'post-filter' && p.match === 'custom' && !p.test(value, l.fields)) return false
  }
  const closed = ctx.flags.get('closed')
  return closed === undefined || closed === l.closed
}

function byOrder(a: Line, b: Line): number {
  for (let i = 0; i < a.order.length; i++) {
    const x = a.order[i]!
    const y = b.order[i]!
    if (x !== y) return x < y ? -1 : 1
  }
  return 0
}

/** Accounts up to which a statement runs on the event loop: two index probes and a few joins each. */
export const LOOP_ACCOUNTS = 200

export const cashflows: ComputedEndpoint = {
  kind: 'computed',
  service: 'cashflows',
  operationId: 'GetCashFlows',
  response: RESPONSES.cashflows!,
  params,
  // A statement costs per account with movements, whatever the period and the filters
  // (they test the computed rows): a company's few dozen accounts cost less than a worker's
  // hand-off. The count stops at LOOP_ACCOUNTS + 1 rows.
  loopWhen: async (_, sql) => {
    const [row] = await sql.all<{ n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${CASH_KEYS} LIMIT ${LOOP_ACCOUNTS + 1}) k`)
    return Number(row?.n) <= LOOP_ACCOUNTS
  },
  async compute(ctx, issues) {
    const period = cashPeriod(ctx.values, ctx.now(), issues)
    if (!period) return []
    const mgmt = ctx.options.mgmt === true
    const [from, to] = [dmy(period.from), dmy(period.to)]
    const lines = (await cashBalances(ctx.sql, period.from, period.to, mgmt))
      .map((b) => ({ b, l: line(b, from, to, mgmt) }))
      // A row per account with a non-zero opening balance or any movement in the period.
      .filter(({ b, l }) => l.printed.НачальныйОстаток !== 0 || b.moves > 0)
      .map(({ l }) => l)
      .filter((l) => keep(ctx, l))
      .sort(byOrder)
    const data = lines.map((l) => l.printed)
    if (ctx.options.totals === true && data.length > 0) {
      const sum = (field: string) => round2(data.reduce((s, r) => s + (r[field] as number), 0))
      data.push({
        Итог: true,
        ПериодС: from,
        ПериодПо: to,
        Организация: '',
        СчетКасса: 'Итог',
        ВидДенежныхСредств: '',
        Банк: '',
        ВидСчета: '',
        Валюта: '',
        Закрыт: false,
        НачальныйОстаток: sum('НачальныйОстаток'),
        Приход: sum('Приход'),
        Расход: sum('Расход'),
        КонечныйОстаток: sum('КонечныйОстаток'),
        УпрУчет: mgmt,
      })
    }
    return data
  },
}
