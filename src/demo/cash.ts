/**
 * Payment orders and cash orders, and the record sets of the cash register they post.
 * Balances stay mostly positive: every account opens with a large receipt, and receipts
 * outweigh expenses by about 30% over the period.
 */
import { isoDateTime, round2 } from './calendar.js'
import type { MoneyAccount } from './catalogues.js'
import { docLink, docRef, header, memo } from './context.js'
import type { Ctx, KindName } from './context.js'
import { T } from './model.js'
import type { Obj } from './model.js'
import { links } from './requests.js'
import type { Rng } from './random.js'

export type CashKind = Extract<KindName, 'outPayment' | 'inPayment' | 'cashIn' | 'cashOut'>

export const CASH_KINDS: readonly CashKind[] = ['outPayment', 'inPayment', 'cashIn', 'cashOut']

interface Movement {
  dateTime: string
  income: boolean
  account: MoneyAccount
  amount: number
  mgmt: number
}

/** Management accounting is kept in roubles, so dollar amounts are converted at the day's rate. */
function usdRate(day: number): number {
  return Math.round((92 + 7 * Math.sin(day / 97) + 2.5 * Math.sin(day / 23)) * 10000) / 10000
}

interface Pools {
  /** Accounts that receive an opening balance, in the order of the first receipts. */
  openings: MoneyAccount[]
  active: MoneyAccount[]
  weights: number[]
  /** Receipts are this much bigger than expenses on average, to keep balances positive. */
  incomeFactor: number
}

function pools(ctx: Ctx, bank: boolean): Pools {
  return memo(ctx, `pools:${bank}`, () => {
    const all = ctx.cat.accounts.filter((a) => (a.type === T.bankAccount) === bank)
    const active = all.filter((a) => !a.closed && a.weight > 0)
    const [outKind, inKind] = bank ? [ctx.kinds.outPayment, ctx.kinds.inPayment] : [ctx.kinds.cashOut, ctx.kinds.cashIn]
    return {
      openings: all,
      active,
      weights: active.map((a) => a.weight),
      incomeFactor: (1.3 * outKind.count) / inKind.count,
    }
  })
}

function randomAmount(rng: Rng, account: MoneyAccount): number {
  if (account.usd) return round2(rng.logUniform(500, 40_000))
  if (account.type === T.cashDesk) return round2(rng.logUniform(500, 150_000))
  return round2(rng.logUniform(5_000, 1_000_000))
}

function openingAmount(rng: Rng, account: MoneyAccount): number {
  if (account.usd) return round2(rng.uniform(150_000, 300_000))
  if (account.type === T.cashDesk) return round2(rng.uniform(1_500_000, 3_000_000))
  return round2(rng.uniform(20_000_000, 40_000_000))
}

export function cashDocument(ctx: Ctx, name: CashKind, index: number): { object: Obj; movement: Movement | undefined } {
  const kind = ctx.kinds[name]
  const bank = name === 'outPayment' || name === 'inPayment'
  const income = name === 'inPayment' || name === 'cashIn'
  const pool = pools(ctx, bank)
  const l = name === 'outPayment' ? links(ctx) : undefined
  const opening = income && index < pool.openings.length ? pool.openings[index] : undefined
  const closing = l !== undefined && index === l.closingPayment
  const link = l?.byPayment.get(index)
  const forced = opening !== undefined || closing || link !== undefined
  const { rng, day, posted, object } = header(ctx, kind, index, forced ? 1 : 0.97)

  let account: MoneyAccount | undefined
  let amount: number
  if (opening) {
    // Opening balances come first, before any expense of the first day.
    object['Дата'] = isoDateTime(ctx.start, 8 * 3600 + index * 60)
    account = opening
    amount = openingAmount(rng, opening)
  } else if (closing) {
    // The closed account is emptied by one transfer of its opening balance.
    const closedIndex = pool.openings.findIndex((a) => a.closed)
    const opened = closedIndex >= 0 ? cashDocument(ctx, 'inPayment', closedIndex).movement : undefined
    account = opened?.account
    amount = opened?.amount ?? 0
  } else if (link) {
    account = link.account
    amount = link.amount
  } else {
    amount = 0
  }
  if (!account) {
    account = rng.weighted(pool.active, pool.weights)
    amount = round2(randomAmount(rng, account) * (income ? pool.incomeFactor : 1))
  }
  const dateTime = object['Дата'] as string
  const movement = posted ? { dateTime, income, account, amount, mgmt: account.usd ? round2(amount * usdRate(day)) : amount } : undefined
  return { object, movement }
}

export function cashRecordSet(ctx: Ctx, name: CashKind, index: number): Obj | undefined {
  const { movement: m } = cashDocument(ctx, name, index)
  if (!m) return undefined
  return {
    type: T.cashRegister,
    Регистратор: docLink(ctx, ctx.kinds[name], index),
    Движения: [
      {
        Период: m.dateTime,
        ВидДвижения: m.income ? 'Приход' : 'Расход',
        Организация: ctx.cat.orgs[m.account.org]?.ref ?? '',
        БанковскийСчетКасса: { type: m.account.type, ref: m.account.ref },
        Сумма: m.amount,
        СуммаУпр: m.mgmt,
      },
    ],
  }
}

/** Record sets of the expense-request register posted by the payments of request `index`. */
export function* requestRecordSets(ctx: Ctx, index: number): Iterable<Obj> {
  const l = links(ctx)
  for (const j of l.byRequest.get(index) ?? []) {
    const link = l.byPayment.get(j)
    if (!link) continue
    yield {
      type: T.requestRegister,
      Регистратор: { type: T.outPayment, ref: docRef(ctx, ctx.kinds.outPayment, j) },
      Движения: [{ ЗаявкаНаРасходование: link.request, Сумма: link.amount }],
    }
  }
}
