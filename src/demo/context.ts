/**
 * The generation context and the per-document primitives. A document is a pure function of
 * (seed, kind, index): its ref, date and content come from its own random stream, so any
 * generator can look at any other document (a receipt at its supplier order, a register at
 * its recorder) by regenerating it instead of keeping the data set in memory.
 */
import { isoDateTime, pad } from './calendar.js'
import type { Catalogues } from './catalogues.js'
import { SALT, T } from './model.js'
import type { Composite, Obj } from './model.js'
import type { Nomenclature } from './nomenclature.js'
import { Rng, uuid } from './random.js'

export interface DocKind {
  type: string
  prefix: string
  salt: number
  count: number
}

/** Documents per kind at scale 1: about 10,000 in all, most of them cash-register recorders. */
const BASE_COUNTS = {
  request: 300,
  receipt: 300,
  customerOrder: 300,
  supplierOrder: 300,
  transfer: 300,
  production: 300,
  demand: 300,
  outPayment: 3000,
  inPayment: 2300,
  cashIn: 1200,
  cashOut: 1400,
} as const

export type KindName = keyof typeof BASE_COUNTS

const KIND_INFO: Record<KindName, [type: string, prefix: string, salt: number]> = {
  request: [T.request, 'ЗР', SALT.request],
  receipt: [T.receipt, 'ПТ', SALT.receipt],
  customerOrder: [T.customerOrder, 'ЗК', SALT.customerOrder],
  supplierOrder: [T.supplierOrder, 'ЗП', SALT.supplierOrder],
  transfer: [T.transfer, 'ПМ', SALT.transfer],
  production: [T.production, 'ЗН', SALT.production],
  demand: [T.demand, 'ТН', SALT.demand],
  outPayment: [T.outPayment, 'ПИ', SALT.outPayment],
  inPayment: [T.inPayment, 'ПВ', SALT.inPayment],
  cashIn: [T.cashIn, 'ПК', SALT.cashIn],
  cashOut: [T.cashOut, 'РК', SALT.cashOut],
}

export function docKinds(scale: number): Record<KindName, DocKind> {
  const out = {} as Record<KindName, DocKind>
  for (const name of Object.keys(BASE_COUNTS) as KindName[]) {
    const [type, prefix, salt] = KIND_INFO[name]
    out[name] = { type, prefix, salt, count: Math.max(1, Math.round(BASE_COUNTS[name] * scale)) }
  }
  return out
}

export interface Ctx {
  key: number
  /** Day numbers: documents are dated within [start, today]. */
  start: number
  today: number
  span: number
  cat: Catalogues
  nom: Nomenclature
  kinds: Record<KindName, DocKind>
  memo: Map<string, unknown>
}

export function memo<T>(ctx: Ctx, name: string, make: () => T): T {
  if (!ctx.memo.has(name)) ctx.memo.set(name, make())
  return ctx.memo.get(name) as T
}

export function docRef(ctx: Ctx, kind: DocKind, index: number): string {
  return uuid(ctx.key, kind.salt, index)
}

export function docLink(ctx: Ctx, kind: DocKind, index: number): Composite {
  return { type: kind.type, ref: docRef(ctx, kind, index) }
}

/**
 * Documents of a kind are spread evenly over the period in index order, so numbers grow
 * with dates and the index of the document on a given day is known without generating it.
 */
export function indexAtDay(ctx: Ctx, kind: DocKind, day: number): number {
  if (day < ctx.start) return -1
  return Math.min(kind.count - 1, Math.floor(((day - ctx.start) * kind.count) / ctx.span))
}

export interface Header {
  rng: Rng
  day: number
  posted: boolean
  object: Obj
}

/** The common keys of a document; `postedShare` is the probability it is posted. */
export function header(ctx: Ctx, kind: DocKind, index: number, postedShare = 0.95, numbered = true): Header {
  const rng = Rng.stream(ctx.key, kind.salt, index)
  const day = ctx.start + Math.floor(((index + rng.float()) * ctx.span) / kind.count)
  const seconds = rng.int(9 * 3600, 19 * 3600 - 1)
  const posted = rng.chance(postedShare)
  const deleted = !posted && rng.chance(0.35)
  const object: Obj = {
    type: kind.type,
    ref: docRef(ctx, kind, index),
    ПометкаУдаления: deleted,
    Номер: numbered ? `${kind.prefix}-${pad(index + 1, 6)}` : '',
    Дата: isoDateTime(Math.min(day, ctx.today), seconds),
    Проведен: posted,
  }
  return { rng, day: Math.min(day, ctx.today), posted, object }
}

/** Index of the own organization: ООО "Вектор" is the bigger one. */
export function pickOrg(rng: Rng): number {
  return rng.chance(0.6) ? 0 : 1
}

export function comment(rng: Rng, texts: readonly string[], emptyShare: number): string {
  return rng.chance(emptyShare) ? '' : rng.pick(texts)
}
