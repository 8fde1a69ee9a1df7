/** Expense requests and the payment orders that pay them. */
import { isoDate, round2, ruDate } from './calendar.js'
import type { Counterparty, MoneyAccount } from './catalogues.js'
import { comment, docLink, docRef, header, indexAtDay, memo, pickOrg } from './context.js'
import type { Ctx } from './context.js'
import { SALT, T } from './model.js'
import type { Composite, Obj } from './model.js'
import { REQUEST_COMMENTS } from './names.js'
import { Rng } from './random.js'
import { receipt, supplierOrder } from './trade.js'

const STATUSES = ['Согласована', 'Не согласована', 'Отклонена', 'Оплачена']

export interface RequestHead {
  ref: string
  org: number
  amount: number
  expenseDay: number
  account: MoneyAccount | undefined
  /** Number of payment orders that pay the request: 0, 1 or 2. */
  payments: number
}

/** Accounts an organization pays from: open rouble bank accounts first, then cash desks. */
function payAccounts(ctx: Ctx, org: number, cashDesks: boolean): MoneyAccount[] {
  return memo(ctx, `pay:${org}:${cashDesks}`, () =>
    ctx.cat.accounts.filter((a) => a.org === org && !a.closed && !a.usd && (a.type === T.cashDesk) === cashDesks),
  )
}

function pickWeighted(rng: Rng, accounts: readonly MoneyAccount[]): MoneyAccount {
  return rng.weighted(
    accounts,
    accounts.map((a) => a.weight),
  )
}

function recipient(ctx: Ctx, rng: Rng, org: number, counterparty: Counterparty | undefined): Composite | null {
  const { cat } = ctx
  if (counterparty) return rng.chance(0.85) ? { type: T.counterparty, ref: counterparty.ref } : null
  const r = rng.float()
  if (r < 0.5) return { type: T.person, ref: rng.pick(cat.people).ref }
  if (r < 0.65) return { type: T.user, ref: rng.pick(cat.users).ref }
  if (r < 0.75) return { type: T.org, ref: cat.orgs[1 - org]?.ref ?? '' }
  return null
}

export function expenseRequest(ctx: Ctx, index: number): { head: RequestHead; object: Obj } {
  const { rng, day, posted, object } = header(ctx, ctx.kinds.request, index)
  const { cat, kinds } = ctx
  let org = pickOrg(rng)
  let basis: Composite | null = null
  let counterparty: Counterparty | undefined
  let amount = 0
  const basisRoll = rng.float()
  if (basisRoll < 0.5) {
    const kind = basisRoll < 0.3 ? kinds.supplierOrder : kinds.receipt
    const j = indexAtDay(ctx, kind, day - rng.int(0, 20))
    if (j >= 0) {
      const doc = (kind === kinds.supplierOrder ? supplierOrder : receipt)(ctx, j).head
      basis = docLink(ctx, kind, j)
      ;({ org, counterparty } = doc)
      amount = rng.chance(0.3) ? round2(doc.amount * rng.uniform(0.3, 0.7)) : doc.amount
    }
  }
  if (!basis) {
    counterparty = rng.chance(0.75) ? rng.pick(cat.suppliers) : undefined
    amount = rng.chance(0.6) ? Math.round(rng.logUniform(3_000, 1_500_000) / 100) * 100 : round2(rng.logUniform(3_000, 1_500_000))
  }
  const to = recipient(ctx, rng, org, counterparty)
  const accountRoll = rng.float()
  const desks = payAccounts(ctx, org, true)
  const account =
    accountRoll < 0.25 && amount <= 500_000 && desks.length > 0
      ? pickWeighted(rng, desks)
      : accountRoll < 0.85
        ? pickWeighted(rng, payAccounts(ctx, org, false))
        : undefined
  const status = rng.weighted(STATUSES, [35, 20, 10, 35])
  const paid = status === 'Оплачена'
  const expenseDay = paid ? Math.min(ctx.today, day + rng.int(0, 14)) : day + rng.int(0, 21)
  const changed = status !== 'Не согласована'
  const payments = paid && posted && account?.type !== T.cashDesk ? (rng.chance(0.25) ? 2 : 1) : 0
  const text =
    counterparty && rng.chance(0.4)
      ? `Оплата по счету № ${rng.int(10, 9999)} от ${ruDate(day - rng.int(0, 10))}`
      : comment(rng, REQUEST_COMMENTS, 0.4)
  Object.assign(object, {
    Организация: cat.orgs[org]?.ref ?? '',
    Ответственный: rng.chance(0.95) ? rng.pick(cat.users).ref : '',
    Комментарий: text,
    ДатаРасхода: isoDate(expenseDay),
    Получатель: to,
    Контрагент: counterparty?.ref ?? '',
    Касса: account ? { type: account.type, ref: account.ref } : null,
    СуммаДокумента: amount,
    Статус: status,
    КтоИзменилСтатус: changed ? rng.pick(cat.users).ref : '',
    ДатаСменыСтатуса: changed ? isoDate(Math.min(ctx.today, day + rng.int(0, 5))) : '',
    ДокументОснование: basis,
  })
  return { head: { ref: docRef(ctx, kinds.request, index), org, amount, expenseDay, account, payments }, object }
}

interface Link {
  request: string
  amount: number
  account: MoneyAccount
}

export interface Links {
  byPayment: Map<number, Link>
  byRequest: Map<number, number[]>
  /** The outgoing payment that empties the closed bank account. */
  closingPayment: number
  closingDay: number
}

/**
 * Which outgoing payment orders pay which requests: each paid request takes the next free
 * payment order on or after its expense date, so a payment order pays at most one request.
 */
export function links(ctx: Ctx): Links {
  return memo(ctx, 'links', () => {
    const out = ctx.kinds.outPayment
    const closingDay = ctx.start + Math.floor(ctx.span * 0.55)
    const closingPayment = indexAtDay(ctx, out, closingDay)
    const byPayment = new Map<number, Link>()
    const byRequest = new Map<number, number[]>()
    for (let i = 0; i < ctx.kinds.request.count; i++) {
      const head = expenseRequest(ctx, i).head
      if (head.payments === 0) continue
      const rng = Rng.stream(ctx.key, SALT.links, i)
      const first = head.payments === 2 ? round2(head.amount * rng.uniform(0.3, 0.7)) : head.amount
      const parts = head.payments === 2 ? [first, round2(head.amount - first)] : [first]
      const account = head.account ?? payAccounts(ctx, head.org, false)[0]
      if (!account) continue
      let day = head.expenseDay
      const taken: number[] = []
      for (const amount of parts) {
        let j = Math.max(0, indexAtDay(ctx, out, day + rng.int(0, 2)))
        while (j < out.count && (byPayment.has(j) || j === closingPayment)) j++
        if (j >= out.count) break
        byPayment.set(j, { request: head.ref, amount, account })
        taken.push(j)
        day += rng.int(3, 20)
      }
      if (taken.length > 0) byRequest.set(i, taken)
    }
    return { byPayment, byRequest, closingPayment, closingDay }
  })
}
