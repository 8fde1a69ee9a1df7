/**
 * The demo data set of `docgate demo`: a realistic, deterministic set of catalogues,
 * documents, attachments and register record sets, as import files.
 */
import { attachmentsOf, OWNER_KINDS } from './attachments.js'
import { dayFromIso } from './calendar.js'
import { CASH_KINDS, cashDocument, cashRecordSet, requestRecordSets } from './cash.js'
import { buildCatalogues } from './catalogues.js'
import { docKinds } from './context.js'
import type { Ctx, KindName } from './context.js'
import { rangePart } from './model.js'
import type { Obj, Part } from './model.js'
import { buildNomenclature } from './nomenclature.js'
import { seedKey } from './random.js'
import { expenseRequest } from './requests.js'
import { demand, productionOrder, transfer } from './stock.js'
import { customerOrder, receipt, supplierOrder } from './trade.js'

export interface DemoOptions {
  scale: number
  seed: number
  /** 'YYYY-MM-DD'; documents are dated within the two years before it. Default '2026-11-20'. */
  today?: string
}

export interface DemoFile {
  name: string
  objects(): Iterable<Record<string, unknown>>
}

export const DEFAULT_TODAY = '2026-11-20'

/** Import transactions stay below this many objects (or owners, for attachments). */
const CHUNK = 50_000
const ATTACHMENT_OWNERS_PER_CHUNK = 20_000

/** Splits the concatenation of `parts` into files of at most `limit` units each. */
function chunked(name: string, parts: readonly Part[], limit: number): DemoFile[] {
  const total = parts.reduce((n, p) => n + p.size, 0)
  const count = Math.ceil(total / limit)
  return Array.from({ length: count }, (_, k) => ({
    name: count === 1 ? name : `${name}-${k + 1}`,
    *objects() {
      const from = k * limit
      const to = Math.min(total, from + limit)
      let offset = 0
      for (const part of parts) {
        const a = Math.max(from, offset)
        const b = Math.min(to, offset + part.size)
        if (a < b) yield* part.emit(a - offset, b - offset)
        offset += part.size
      }
    },
  }))
}

function documents(ctx: Ctx, kind: KindName, make: (ctx: Ctx, index: number) => Obj): Part {
  return rangePart(ctx.kinds[kind].count, (i) => [make(ctx, i)])
}

function createContext(options: DemoOptions): Ctx {
  const { scale } = options
  if (!Number.isFinite(scale) || scale <= 0) throw new RangeError(`demo scale must be a positive number, got ${scale}`)
  const key = seedKey(options.seed)
  const today = dayFromIso(options.today ?? DEFAULT_TODAY)
  const start = today - 730
  const n = (base: number, floor: number) => Math.max(floor, Math.round(base * scale))
  const cat = buildCatalogues(
    key,
    { users: n(25, 8), people: n(80, 20), counterparties: n(150, 30), warehouses: n(15, 8), characteristics: n(40, 15) },
    start,
    today,
  )
  const nom = buildNomenclature(key, n(500, 150), cat, start, today)
  return { key, start, today, span: today - start + 1, cat, nom, kinds: docKinds(scale), memo: new Map() }
}

/** Logical import files, in order; each becomes one import transaction. Same options → same objects, byte for byte. */
export function demoFiles(options: DemoOptions): DemoFile[] {
  const ctx = createContext(options)
  const { kinds } = ctx
  // Files come in reference order (catalogues, then documents before what points to them),
  // so an import never meets a reference to an object it has not stored yet.
  return [
    ...chunked('catalogues', [...ctx.cat.parts, ...ctx.nom.parts], CHUNK),
    ...chunked('supplier-orders', [documents(ctx, 'supplierOrder', (c, i) => supplierOrder(c, i).object)], CHUNK),
    ...chunked('receipts', [documents(ctx, 'receipt', (c, i) => receipt(c, i).object)], CHUNK),
    ...chunked('customer-orders', [documents(ctx, 'customerOrder', customerOrder)], CHUNK),
    ...chunked('transfers', [documents(ctx, 'transfer', transfer)], CHUNK),
    ...chunked('production-orders', [documents(ctx, 'production', productionOrder)], CHUNK),
    ...chunked('demands', [documents(ctx, 'demand', demand)], CHUNK),
    ...chunked('outgoing-payments', [documents(ctx, 'outPayment', (c, i) => cashDocument(c, 'outPayment', i).object)], CHUNK),
    ...chunked('incoming-payments', [documents(ctx, 'inPayment', (c, i) => cashDocument(c, 'inPayment', i).object)], CHUNK),
    ...chunked('cash-receipts', [documents(ctx, 'cashIn', (c, i) => cashDocument(c, 'cashIn', i).object)], CHUNK),
    ...chunked('cash-expenses', [documents(ctx, 'cashOut', (c, i) => cashDocument(c, 'cashOut', i).object)], CHUNK),
    ...chunked('expense-requests', [documents(ctx, 'request', (c, i) => expenseRequest(c, i).object)], CHUNK),
    ...chunked(
      'attachments',
      OWNER_KINDS.map((owner) => rangePart(kinds[owner].count, (i) => attachmentsOf(ctx, owner, i))),
      ATTACHMENT_OWNERS_PER_CHUNK,
    ),
    ...chunked(
      'register-cash',
      CASH_KINDS.map((name) =>
        rangePart(kinds[name].count, (i) => {
          const set = cashRecordSet(ctx, name, i)
          return set ? [set] : []
        }),
      ),
      CHUNK,
    ),
    ...chunked('register-expense-requests', [rangePart(kinds.request.count, (i) => requestRecordSets(ctx, i))], CHUNK),
  ]
}
