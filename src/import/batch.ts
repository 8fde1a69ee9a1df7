// The one write seam of the store: objects in import form are validated, applied and, at
// `finish`, the read models, derived tables, ready answers and the dangling-reference check follow — all
// inside a transaction the caller owns. `docgate import` rejects a whole file on the first
// invalid line; sync skips one bad object and writes the rest of its batch with its own
// bookkeeping in the same transaction (architecture-next §3).
import { VIEWS } from '../endpoints/index.js'
import type { ReadModel } from '../views/define.js'
import { printsAny, rebuildCashAccounts } from '../views/cash/accounts.js'
import { newAnswersGen } from '../views/generation.js'
import { recordChanges, resetChanges } from '../views/changes.js'
import { READY_PENDING, deleteMeta, setMeta } from '../views/migrate.js'
import type { SqlPort } from '../store/sql.js'
import { renewStatistics } from '../store/statistics.js'
import { DerivedChanges } from '../views/derived.js'
import { rebuildReadModels } from '../views/rebuild.js'
import type { PagesMode } from '../views/pages.js'
import { refreshReadyAnswers } from '../views/ready-answers.js'
import { validate } from './validate.js'
import type { Validated } from './validate.js'
import { Writer } from './writer.js'

export type Outcome =
  | { readonly ok: true; readonly type: string; readonly ref: string; readonly deleted: boolean; readonly unknownKeys: readonly string[] }
  | { readonly ok: false; readonly type: string; readonly ref: string; readonly reason: string }

export class ImportBatch {
  readonly #sql: SqlPort
  readonly #derived: DerivedChanges
  readonly #writer: Writer

  /** Must be created inside the caller's transaction. */
  constructor(sql: SqlPort) {
    this.#sql = sql
    this.#derived = new DerivedChanges(sql, VIEWS.derived)
    this.#writer = new Writer(sql, this.#derived)
  }

  /** Validates one object; writes it when `write` is true and it is valid. */
  async add(value: unknown, write = true): Promise<Outcome> {
    return this.addChecked(validate(value), write)
  }

  /** `add` of a line validated already (read.ts checks lines in a thread of their own). */
  async addChecked(v: Validated, write = true): Promise<Outcome> {
    if (!v.ok) return { ok: false, type: v.type, ref: v.ref, reason: v.reasons.join('; ') }
    if (write) await this.#writer.apply(v.operation)
    const op = v.operation
    const type = op.op === 'records' ? op.decl.type : op.type
    const ref = op.op === 'records' ? op.recorder : op.ref
    return { ok: true, type, ref, deleted: op.op === 'delete', unknownKeys: v.unknownKeys }
  }

  /**
   * Brings read models and derived tables up to date; returns the dangling-reference warning,
   * if any. `dangling: false` skips that check for a caller that prints no such warning (sync).
   * `ready: 'later'` leaves the read models, the cash accounts and the ready answers as they
   * are and marks the store for `rebuildDeferred`, which a loader of many batches into a new
   * store runs once at its end (the demo). `answers: 'drop'` drops the ready answers the
   * batch may have changed rather than rebuild them (views/ready-answers.ts): sync, which
   * writes a catalogue in many batches, builds them once at the end of the set. `pages:
   * 'stale'` leaves the ready pages of the rows it rebuilds without bytes (views/pages.ts)
   * for `rebuildStalePages` to join once: sync's attachments, whose batches reach owners on
   * most days of the base.
   */
  async finish(
    options: { dangling?: boolean; ready?: 'now' | 'later'; answers?: 'rebuild' | 'drop'; pages?: PagesMode } = {},
  ): Promise<string | undefined> {
    const w = this.#writer
    await w.flush()
    // The read models read what the batch wrote, joined: planned by the tables as they are now.
    await renewStatistics(this.#sql)
    const touched = { refs: w.touched, types: w.touchedTypes, owners: w.ownersTouched }
    if (options.ready === 'later') await setMeta(this.#sql, READY_PENDING, '1')
    else {
      await rebuildReadModels(this.#sql, VIEWS.models, touched, options.pages)
      // Only read models hold trigram indexes: with none written there is nothing to merge.
      const settle = this.#sql.dialect.trigram.settle
      if (settle) await this.#sql.all(settle())
    }
    await this.#derived.update()
    if (options.ready !== 'later') {
      // The statement's accounts print names the register does not hold (its own changes are the derived update's).
      if (printsAny(touched.types)) await rebuildCashAccounts(this.#sql)
      await refreshReadyAnswers(this.#sql, touched, VIEWS.answers, options.answers)
    }
    await recordChanges(this.#sql, VIEWS.models)
    // Answers kept by servers (serving/answer-cache.ts) are known by this; the batch may change any of them.
    await newAnswersGen(this.#sql)
    if (options.dangling === false) return undefined
    const dangling = await danglingRefs(this.#sql, w.refsSeen)
    if (dangling.length === 0) return undefined
    return `${dangling.length} reference(s) to objects that are not stored (kept, printed as empty): ${dangling.slice(0, 5).join(', ')}${dangling.length > 5 ? ', …' : ''}`
  }
}

/**
 * Builds what batches finished with `ready: 'later'` left: every read model rebuilt whole,
 * each in a transaction of its own, then the cash accounts and ready answers, and the mark
 * cleared. The rows each object prints are rendered once, where each batch would render
 * again those its objects reach (an attachment re-renders its owner's full form), and no
 * transaction holds the whole store's rebuild: `demo --scale 100` 126 → 106 s, its read
 * models byte for byte the same (decision "The demo builds its read models once").
 * Until it has run, migrate (any writing command) does it, and `serve` refuses the store.
 * Where the store takes a second writer (PostgreSQL), two connections build the models side
 * by side, the largest first: the support models, which the others read, before the rest.
 */
export async function rebuildDeferred(sql: SqlPort): Promise<void> {
  // A server at its connection limit refuses the second: then one builds them all.
  const sibling = await sql.sibling?.().catch(() => undefined)
  try {
    const writers = sibling ? [sql, sibling] : [sql]
    const rest = VIEWS.models.filter((m) => !VIEWS.support.includes(m))
    for (const models of [VIEWS.support, sibling ? await largestFirst(sql, rest) : rest]) await rebuildEach(writers, models)
  } finally {
    await sibling?.close()
  }
  // Each model, rebuilt whole, has merged its GIN pending lists already (read-models.ts).
  await sql.transaction(async () => {
    await rebuildCashAccounts(sql)
    await refreshReadyAnswers(sql, 'all', VIEWS.answers)
    await resetChanges(sql, VIEWS.models)
    await newAnswersGen(sql)
    await deleteMeta(sql, READY_PENDING)
  })
}

/** Each of `models` rebuilt whole in a transaction of its own, by whichever writer is free; the first failure stops them. */
async function rebuildEach(writers: readonly SqlPort[], models: readonly ReadModel[]): Promise<void> {
  const queue = [...models]
  const results = await Promise.allSettled(
    writers.map(async (w) => {
      for (let model = queue.shift(); model; model = queue.shift()) {
        try {
          await w.transaction(() => rebuildReadModels(w, [model!], 'all'))
        } catch (err) {
          queue.length = 0
          throw err
        }
      }
    }),
  )
  const failed = results.find((r) => r.status === 'rejected')
  if (failed) throw (failed as PromiseRejectedResult).reason
}

/** `models` by the rows of their sources, most first, so two writers finish together. */
async function largestFirst(sql: SqlPort, models: readonly ReadModel[]): Promise<ReadModel[]> {
  const rows = new Map<ReadModel, number>()
  for (const m of models) rows.set(m, Number((await sql.all<{ n: number }>(`SELECT count(*) AS n FROM ${m.source}`))[0]!.n))
  return [...models].sort((a, b) => rows.get(b)! - rows.get(a)!)
}

async function danglingRefs(sql: SqlPort, refs: ReadonlySet<string>): Promise<string[]> {
  if (refs.size === 0) return []
  await sql.fillKeys('_seen', refs)
  // NOT EXISTS, not NOT IN: PostgreSQL runs NOT IN over a subquery larger than work_mem as
  // one scan of `objects` per row (minutes a batch at a million objects); this is an anti-join.
  const rows = await sql.all<{ ref: string }>(
    'SELECT s.ref FROM _seen s WHERE NOT EXISTS (SELECT 1 FROM objects o WHERE o.ref = s.ref) ORDER BY s.ref',
  )
  return rows.map((r) => r.ref)
}
