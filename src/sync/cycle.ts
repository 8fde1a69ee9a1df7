// One sync cycle (sync.md §7.3): the sets in order — catalogues, the seven documents,
// known other documents, registers, other documents first met now, attachments — each
// failing on its own; a refused credential or a source that is down stops the cycle.
import type { CycleContext } from './context.js'
import { VIEWS } from '../endpoints/index.js'
import { restoreReadyAnswers } from '../views/ready-answers.js'
import { rebuildStalePages } from '../views/pages.js'
import { resolveMap } from './mapping/index.js'
import type { MapFile, SetPlan } from './mapping/index.js'
import { syncObjects } from './objects.js'
import { SetReport } from './output.js'
import { syncRegister } from './registers.js'
import { SourceError } from './source/client.js'

export interface CycleResult {
  readonly status: 'complete' | 'failed' | 'interrupted'
  readonly sets: number
  readonly failed: number
  readonly read: number
  readonly written: number
  readonly deleted: number
  /** A request answered 400 with code 6 or 8: the configuration may have changed (§6). */
  readonly recheck: boolean
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200)

export async function runCycle(ctx: CycleContext, plans: readonly SetPlan[], map: MapFile): Promise<CycleResult> {
  const started = performance.now()
  const cycleId = await ctx.sql.transaction(() => ctx.state.startCycle())
  const totals = { read: 0, written: 0, deleted: 0 }
  let failed = 0
  let reached = 0
  let stop: string | undefined
  let recheck = false
  let interrupted = false

  const order = [...plans.filter((p) => p.kind !== 'attachments' && p.kind !== 'register'), ...plans.filter((p) => p.kind === 'register')]
  const attachments = plans.filter((p) => p.kind === 'attachments')
  const planned = new Set(plans.map((p) => p.entitySet))
  let total = plans.length

  // The registers' watched recorder types: a document set's changed refs join their queues (§7.5 step 1).
  for (const p of plans) {
    if (p.kind !== 'register') continue
    for (const set of (await ctx.state.setState(p.entitySet)).recorderSets) {
      const list = ctx.watchers.get(set) ?? []
      if (!list.includes(p.entitySet)) list.push(p.entitySet)
      ctx.watchers.set(set, list)
    }
  }

  const runSet = async (plan: SetPlan): Promise<void> => {
    reached++
    const report = new SetReport(plan.entitySet, plan.type, ctx.sink)
    await ctx.sql.transaction(async () => {
      if (!(await ctx.state.setRow(plan.entitySet)))
        await ctx.state.saveSetState(plan.entitySet, plan.type, await ctx.state.setState(plan.entitySet))
    })
    const began = ctx.now().toISOString()
    try {
      const outcome = plan.kind === 'register' ? await syncRegister(ctx, plan, report) : await syncObjects(ctx, plan, report)
      await ctx.state.setDone(plan.entitySet, {
        complete: outcome.complete ? ctx.now().toISOString() : undefined,
        full: outcome.full ? began : undefined,
        written: report.written,
        errors: report.warnings,
      })
    } catch (err) {
      if (ctx.signal.aborted) {
        interrupted = true
      } else {
        failed++
        report.error = errorText(err)
        if (err instanceof SourceError) {
          if (err.kind === 'credentials') stop = err.message
          else if (err.sourceDown) stop = `source unavailable: ${err.message}`
          if (err.status === 400 && (err.code === '6' || err.code === '8')) recheck = true
        }
        await ctx.state
          .setDone(plan.entitySet, {
            error: report.error,
            at: ctx.now().toISOString(),
            written: report.written,
            errors: report.warnings + 1,
          })
          .catch(() => {})
      }
    }
    // The ready answers its batches dropped (views/ready-answers.ts) are built once, here,
    // and so are the pages they left without bytes (views/pages.ts), this set's or an
    // interrupted cycle's; a run told to stop leaves the pages to the next (they read as
    // their rows meanwhile).
    await ctx.sql.transaction(() => restoreReadyAnswers(ctx.sql, VIEWS.answers))
    await rebuildStalePages(ctx.sql, VIEWS.models, ctx.signal)
    totals.read += report.read
    totals.written += report.written
    totals.deleted += report.deleted
    if (!interrupted) report.finish()
  }

  const go = async (list: readonly SetPlan[]) => {
    for (const plan of list) {
      if (stop !== undefined || interrupted || ctx.signal.aborted) return
      await runSet(plan)
    }
  }
  await go(order)
  // Other documents first met in this cycle (as bases, deals or recorders) are read now.
  const fresh = [...ctx.otherDocuments].filter((s) => !planned.has(s))
  if (fresh.length > 0 && stop === undefined && !ctx.signal.aborted) {
    const extra = resolveMap(ctx.meta, map, fresh).plans.filter((p) => p.kind === 'other-document' && !planned.has(p.entitySet))
    total += extra.length
    for (const p of extra) planned.add(p.entitySet)
    await go(extra)
  }
  await go(attachments)

  if (ctx.signal.aborted) interrupted = true
  const notReached = total - reached
  const status = interrupted ? 'interrupted' : failed + notReached > 0 ? 'failed' : 'complete'
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  const counts = { sets: total, failed: failed + notReached, ...totals }
  await ctx.state.endCycle(cycleId, status, counts).catch(() => {})
  if (stop !== undefined) ctx.sink.err(`${stop}${stop.startsWith('source unavailable') ? `; ${notReached} entity sets not reached` : ''}`)
  if (interrupted) {
    // The caller prints `interrupted` where the contract asks for it (--once).
  } else if (status === 'complete') {
    ctx.sink.out(
      `cycle complete: ${total} entity sets; read ${totals.read}, written ${totals.written}, deleted ${totals.deleted}; ${seconds} s`,
    )
  } else {
    ctx.sink.out(
      `cycle failed: ${failed + notReached} of ${total} entity sets failed or not reached; read ${totals.read}, written ${totals.written}, deleted ${totals.deleted}; ${seconds} s`,
    )
  }
  return { status, ...counts, recheck }
}
