// Accumulation registers (sync.md §7.5): a first load discovers the recorders window by
// window in the row set and reads their record sets, 20 per request; later cycles queue the
// recorders whose documents changed, rescan the last `registerRescanDays` days for sets that
// changed without their document, and read the queued sets. Every set is written whole,
// keyed by its recorder, through the import path.
import { registerType } from '../model/objects.js'
import { SEVEN } from './context.js'
import type { CycleContext } from './context.js'
import { mapRecordSet, recorderOf, skipsRecorder } from './mapping/index.js'
import type { Mapped, RecorderRef, SetPlan } from './mapping/index.js'
import type { SetReport } from './output.js'
import { YIELD_EVERY, chunks, inGroups, pages, yieldToIo } from './pages.js'
import type { Paging } from './pages.js'
import { SourceError } from './source/client.js'
import type { SetState } from './state/store.js'
import { addDays, monthWindows, windowFilter } from './windows.js'
import type { Window } from './windows.js'
import { SetWriter, formHash } from './write.js'

const SETS_PER_REQUEST = 20
/** Rounds of record-set requests asked ahead of the one being written. */
const ROUNDS_AHEAD = 8

type RowInfo = [period: string, hash: string]

/** Never added to: a held set's rows are replaced, not changed. */
const NO_ROWS: RowInfo[] = []
const sortInfo = (info: RowInfo[]): RowInfo[] => info.sort((a, b) => (a[0] + a[1] < b[0] + b[1] ? -1 : 1))

/**
 * Each kept row's Period and the hash of its mapped form, from one mapping of the set; only
 * rows from `from` on: the rescan compares no older row, and its window only moves forward
 * (a longer `registerRescanDays` later costs one re-read of the sets it newly reaches).
 */
function infoOf(mapped: Extract<Mapped, { ok: true }>, from = ''): RowInfo[] {
  const moves = mapped.object['Движения'] as unknown[]
  const info: RowInfo[] = []
  moves.forEach((m, i) => {
    const period = mapped.periods?.[i] ?? ''
    if (period >= from) info.push([period, formHash(m)])
  })
  return sortInfo(info)
}

class RegisterSync {
  readonly writer: SetWriter
  readonly table: string
  errorFree = true
  /** Recorders whose sets this cycle has read (discovery across windows meets them more than once). */
  readonly done = new Set<string>()
  byKeyOnly = false
  firstLoading = false

  constructor(
    readonly ctx: CycleContext,
    readonly plan: SetPlan,
    readonly report: SetReport,
    readonly st: SetState,
    readonly held: Map<string, { set: string; rows: RowInfo[] }>,
  ) {
    this.writer = new SetWriter(ctx.sql, ctx.state, plan.entitySet, report)
    this.table = registerType(plan.type)?.table ?? ''
  }

  /** The first moment the rescan of any later cycle can look at. */
  get horizon(): string {
    return `${addDays(this.ctx.today, -this.ctx.options.registerRescanDays)}T00:00:00`
  }

  get rowSet(): string {
    return this.plan.rowSet ?? `${this.plan.entitySet}_RecordType`
  }

  get keys(): readonly string[] {
    return this.plan.recorderKeys ?? ['Recorder', 'Recorder_Type']
  }

  get rowOrder(): string {
    const rowType = this.ctx.meta.entitySets[this.rowSet]
    const keys = rowType?.keys.length ? rowType.keys : [...this.keys, 'LineNumber']
    return ['Period', ...keys.filter((k) => k !== 'Period')].join(',')
  }

  async windows(): Promise<Window[]> {
    const { body } = await this.ctx.source.json<{ value?: { Period?: string }[] }>(() =>
      this.ctx.source.url(this.rowSet, { $format: 'json', $select: 'Period', $orderby: 'Period', $top: 1 }),
    )
    const earliest = body.value?.[0]?.Period
    return typeof earliest === 'string' ? monthWindows(earliest, this.ctx.today, new Set(this.st.dayMonths)) : []
  }

  watch(recorder: RecorderRef): void {
    if (!recorder.set.startsWith('Document_') || skipsRecorder(this.plan, recorder)) return
    if (!this.st.recorderSets.includes(recorder.set)) this.st.recorderSets.push(recorder.set)
  }

  /** Per kept row of a set: its Period and the hash of its mapped form (what the rescan compares). */
  rowInfo(recorder: RecorderRef, rows: readonly Record<string, unknown>[]): RowInfo[] {
    const whole = mapRecordSet(this.plan, recorder, rows)
    if (whole.ok) return infoOf(whole)
    // A row that cannot be mapped leaves the others' info (the set is then rewritten and warned about).
    const out: RowInfo[] = []
    for (const row of rows) {
      const one = mapRecordSet(this.plan, recorder, [row])
      if (one.ok) out.push(...infoOf(one))
    }
    return sortInfo(out)
  }

  async hasStoredSet(ref: string): Promise<boolean> {
    if (this.held.has(ref)) return true
    if (!this.table) return false
    return (await this.ctx.sql.all(`SELECT 1 AS x FROM ${this.table} WHERE recorder = ? LIMIT 1`, [ref])).length > 0
  }

  /** One record set read from the source (rows may be empty: no movements). */
  async handleSet(recorder: RecorderRef, rows: readonly Record<string, unknown>[], queued: boolean): Promise<void> {
    this.done.add(recorder.ref)
    this.report.read++
    const dequeue = () => this.ctx.state.dequeue(this.plan.entitySet, recorder.ref)
    if (skipsRecorder(this.plan, recorder)) {
      if (queued) this.writer.also(dequeue)
      return
    }
    const mapped = mapRecordSet(this.plan, recorder, rows)
    for (const w of mapped.warnings) this.report.warn(w.ref, w.attribute, w.reason)
    if (!mapped.ok) {
      this.report.skipped++
      if (mapped.skip === 'error') this.errorFree = false
      if (queued) this.writer.also(dequeue)
      return
    }
    if (recorder.set.startsWith('Document_') && !SEVEN.has(recorder.set)) this.ctx.otherDocuments.add(recorder.set)
    this.watch(recorder)
    const moves = mapped.object['Движения'] as unknown[]
    if (moves.length === 0) {
      if (await this.hasStoredSet(recorder.ref)) {
        this.writer.writeOther(recorder.ref, mapped.object)
        this.writer.also(() => this.ctx.state.saveRecorder(this.plan.entitySet, recorder.ref, recorder.set, undefined))
        this.held.delete(recorder.ref)
      }
    } else {
      const info = infoOf(mapped, this.horizon)
      this.writer.writeOther(recorder.ref, mapped.object)
      this.writer.also(() => this.ctx.state.saveRecorder(this.plan.entitySet, recorder.ref, recorder.set, info))
      // A first load never compares rows again in this run: only that the set is held counts
      // (one shared empty list: a first load holds every recorder of the register).
      this.held.set(recorder.ref, { set: recorder.set, rows: this.firstLoading ? NO_ROWS : info })
    }
    if (queued) this.writer.also(dequeue)
    await this.writer.flushIfFull()
  }

  setFilter(recorders: readonly RecorderRef[]): string {
    if (this.keys.includes('Recorder_Key')) return recorders.map((r) => `Recorder_Key eq guid'${r.ref}'`).join(' or ')
    return recorders.map((r) => `(Recorder eq '${r.ref}' and Recorder_Type eq 'StandardODATA.${r.set}')`).join(' or ')
  }

  byKeyPath(r: RecorderRef): string {
    if (this.keys.includes('Recorder_Key')) return `${this.plan.entitySet}(Recorder_Key=guid'${r.ref}')`
    return `${this.plan.entitySet}(Recorder='${r.ref}',Recorder_Type='StandardODATA.${r.set}')`
  }

  /** Reads the record sets of up to 20 recorders: by filter, or one by key if the source answers 400. */
  async readSets(recorders: readonly RecorderRef[]): Promise<Map<string, Record<string, unknown>[]>> {
    const found = new Map<string, Record<string, unknown>[]>()
    const take = (entity: Record<string, unknown>) => {
      const r = recorderOf(this.plan, entity)
      if (r) found.set(r.ref, Array.isArray(entity.RecordSet) ? (entity.RecordSet as Record<string, unknown>[]) : [])
    }
    if (!this.byKeyOnly) {
      try {
        const sets = await inGroups(recorders, async (group, retry) => {
          const { body } = await this.ctx.source.json<{ value?: Record<string, unknown>[] }>(
            () => this.ctx.source.url(this.plan.entitySet, { $format: 'json', $filter: this.setFilter(group) }),
            { retry },
          )
          return body.value ?? []
        })
        for (const e of sets) take(e)
        return found
      } catch (err) {
        if (!(err instanceof SourceError) || err.status !== 400) throw err
        this.byKeyOnly = true
      }
    }
    for (const r of recorders) {
      try {
        const { body } = await this.ctx.source.json(() => this.ctx.source.url(this.byKeyPath(r), { $format: 'json' }))
        take(body)
      } catch (err) {
        if (!(err instanceof SourceError) || err.status !== 404) throw err
      }
    }
    return found
  }

  async readAndWrite(recorders: readonly RecorderRef[], queued: boolean): Promise<void> {
    const rounds = chunks(chunks(recorders, SETS_PER_REQUEST), this.ctx.options.concurrency)
    const read = (lanes: readonly (readonly RecorderRef[])[]) => Promise.all(lanes.map((g) => this.readSets(g)))
    // The next rounds are requested before this one is written, so the source always has a
    // request waiting while the store writes (a commit takes longer than a round); the
    // client's gate still keeps at most `concurrency` requests in flight.
    const ahead: Promise<Map<string, Record<string, unknown>[]>[]>[] = []
    let asked = 0
    let handled = 0
    const fill = () => {
      while (asked < rounds.length && ahead.length < ROUNDS_AHEAD) {
        const next = read(rounds[asked++]!)
        next.catch(() => {})
        ahead.push(next)
      }
    }
    try {
      for (let k = 0; k < rounds.length; k++) {
        fill()
        const lanes = rounds[k]!
        const answers = await ahead.shift()!
        fill()
        for (let i = 0; i < lanes.length; i++) {
          for (const r of lanes[i]!) {
            await this.handleSet(r, answers[i]!.get(r.ref) ?? [], queued)
            if (++handled % YIELD_EVERY === 0) await yieldToIo()
          }
        }
        this.report.tick()
      }
    } finally {
      for (const next of ahead) next.catch(() => {})
    }
  }

  async firstLoad(windows: readonly Window[]): Promise<boolean> {
    this.firstLoading = true
    const doneWindows = new Set(this.ctx.full ? [] : this.st.windowsDone)
    if (this.ctx.full) this.st.windowsDone = []
    let allRead = true
    const discovered = new Set<string>()
    const paging: Paging = { size: 1000, adaptive: false }
    for (const w of windows) {
      if (doneWindows.has(w.id)) {
        allRead = false
        continue
      }
      const fresh: RecorderRef[] = []
      const select = [...this.keys, 'Period'].join(',')
      for await (const page of pages(this.ctx.source, { set: this.rowSet, select, filter: windowFilter('Period', w), orderby: this.rowOrder }, paging)) {
        for (const row of page.entities) {
          const r = recorderOf(this.plan, row)
          if (!r || discovered.has(r.ref)) continue
          discovered.add(r.ref)
          if (!r.set.startsWith('Document_')) {
            this.report.warn(r.ref, 'Recorder', `recorder type ${r.set} is not a document; set skipped`)
            this.report.skipped++
            continue
          }
          fresh.push(r)
        }
        this.report.tick()
      }
      await this.readAndWrite(fresh, false)
      this.report.windows++
      this.st.windowsDone.push(w.id)
      const snapshot = structuredClone(this.st)
      this.writer.also(() => this.ctx.state.saveSetState(this.plan.entitySet, this.plan.type, snapshot))
      await this.writer.flush()
    }
    this.st.firstLoadDone = true
    this.st.windowsDone = []
    // A complete first load that did not find a recorder the connector holds: its set goes (§7.6).
    if (allRead && this.errorFree) {
      const missing = [...this.held.keys()].filter((ref) => !discovered.has(ref))
      if (missing.length > 20 && missing.length > (this.ctx.options.maxDeletePercent / 100) * this.held.size) {
        this.report.note(`deletions withheld: ${missing.length} of ${this.held.size}`)
      } else {
        for (const ref of missing) {
          const set = this.held.get(ref)!.set
          const type = `Документ.${set.slice('Document_'.length)}`
          this.writer.writeOther(ref, { type: this.plan.type, Регистратор: { type, ref }, Движения: [] }, false)
          this.report.deleted++
          this.writer.also(() => this.ctx.state.saveRecorder(this.plan.entitySet, ref, set, undefined))
          await this.writer.flushIfFull()
        }
      }
    }
    return allRead
  }

  async incremental(): Promise<void> {
    // 1. Recorders of watched types that this cycle's version scans found new, changed or deleted.
    const queued: [string, string][] = []
    for (const set of this.st.recorderSets) for (const ref of this.ctx.changed.get(set) ?? []) queued.push([ref, set])
    // 2. The rescan of the last days: sets that changed without their document changing.
    const from = this.horizon
    const read = new Map<string, { r: RecorderRef; rows: Record<string, unknown>[] }>()
    const paging: Paging = { size: this.st.pageSize, adaptive: true }
    for await (const page of pages(this.ctx.source, { set: this.rowSet, select: this.plan.rowSelect, filter: `Period ge datetime'${from}'`, orderby: this.rowOrder }, paging)) {
      for (const row of page.entities) {
        const r = recorderOf(this.plan, row)
        if (!r || !r.set.startsWith('Document_') || skipsRecorder(this.plan, r)) continue
        const entry = read.get(r.ref) ?? { r, rows: [] }
        entry.rows.push(row)
        read.set(r.ref, entry)
      }
      this.report.tick()
    }
    this.st.pageSize = paging.size
    for (const { r, rows } of read.values()) {
      this.watch(r)
      const now = this.rowInfo(r, rows)
      const before = (this.held.get(r.ref)?.rows ?? []).filter(([p]) => p >= from)
      if (JSON.stringify(now) !== JSON.stringify(before)) queued.push([r.ref, r.set])
    }
    for (const [ref, h] of this.held) {
      if (!read.has(ref) && h.rows.some(([p]) => p >= from)) queued.push([ref, h.set])
    }
    if (queued.length > 0) await this.ctx.sql.transaction(() => this.ctx.state.enqueue(this.plan.entitySet, queued))
    // 3. The queue, including what an interrupted cycle left in it.
    const queue = await this.ctx.state.queue(this.plan.entitySet)
    await this.readAndWrite(
      queue.map((q) => ({ ref: q.recorder, set: q.recorder_set })),
      true,
    )
    await this.writer.flush()
  }
}

export async function syncRegister(ctx: CycleContext, plan: SetPlan, report: SetReport): Promise<{ complete: boolean }> {
  const st = await ctx.state.setState(plan.entitySet)
  const held = await ctx.state.recorders(plan.entitySet)
  const run = new RegisterSync(ctx, plan, report, st, held)
  let complete = true
  if (!st.firstLoadDone || ctx.full) complete = await run.firstLoad(await run.windows())
  else await run.incremental()
  await run.writer.flush()
  await ctx.state.saveSetState(plan.entitySet, plan.type, st)
  return { complete: complete && run.errorFree && run.writer.invalid === 0 }
}
