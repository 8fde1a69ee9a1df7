// Accumulation registers (sync.md §7.5): a first load discovers the recorders window by
// window in the row set and reads their record sets, 20 per request; later cycles queue the
// recorders whose documents changed, rescan the last `registerRescanDays` days for sets that
// changed without their document, and read the queued sets. Every set is written whole,
// keyed by its recorder, through the import path. Nothing per recorder is held in memory
// beyond a page and a batch: the recorders discovered are in `sync_seen`, the rescan's rows
// in `sync_rescan`, the queue in `sync_queue`, the rows written in `sync_recorders`.
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

/** Recorders (queued, compared, deleted) taken from the state at a time. */
const CHUNK = 500
/** Recorders a first load's discovery collects before reading their sets (a bound, not per register). */
const DISCOVERED_AHEAD = 2000

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
  byKeyOnly = false

  constructor(
    readonly ctx: CycleContext,
    readonly plan: SetPlan,
    readonly report: SetReport,
    readonly st: SetState,
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

  /**
   * One row's Period and the hash of its mapped form (what the rescan compares), or undefined
   * when the row is dropped or cannot be mapped: mapping is row by row, so a set's info is its
   * rows' (a row that cannot be mapped leaves the others'; the set is then rewritten and warned about).
   */
  rowInfo(recorder: RecorderRef, row: Record<string, unknown>): RowInfo | undefined {
    const one = mapRecordSet(this.plan, recorder, [row])
    return one.ok ? infoOf(one)[0] : undefined
  }

  async hasStoredSet(ref: string): Promise<boolean> {
    if (await this.ctx.state.holdsRecorder(this.plan.entitySet, ref)) return true
    if (!this.table) return false
    return (await this.ctx.sql.all(`SELECT 1 AS x FROM ${this.table} WHERE recorder = ? LIMIT 1`, [ref])).length > 0
  }

  /** One record set read from the source (rows may be empty: no movements). */
  async handleSet(recorder: RecorderRef, rows: readonly Record<string, unknown>[], queued: boolean): Promise<void> {
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
        this.writer.recorder(this.plan.entitySet, recorder.ref, recorder.set, undefined)
      }
    } else {
      const info = infoOf(mapped, this.horizon)
      this.writer.writeOther(recorder.ref, mapped.object)
      this.writer.recorder(this.plan.entitySet, recorder.ref, recorder.set, info)
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
        const sets = await inGroups(this.ctx.source, recorders, async (group, opts) => {
          const { body } = await this.ctx.source.json<{ value?: Record<string, unknown>[] }>(
            () => this.ctx.source.url(this.plan.entitySet, { $format: 'json', $filter: this.setFilter(group) }),
            opts,
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
    const doneWindows = new Set(this.ctx.full ? [] : this.st.windowsDone)
    if (this.ctx.full) this.st.windowsDone = []
    const register = this.plan.entitySet
    await this.ctx.state.clearSeen(register)
    let allRead = true
    const paging: Paging = { size: 1000, adaptive: false }
    for (const w of windows) {
      if (doneWindows.has(w.id)) {
        allRead = false
        continue
      }
      const select = [...this.keys, 'Period'].join(',')
      // Recorders discovered and not read yet: read a few pages' worth at a time, so that the
      // record-set requests asked ahead (readAndWrite) seldom run dry at a page's end.
      let fresh: RecorderRef[] = []
      for await (const page of pages(
        this.ctx.source,
        { set: this.rowSet, select, filter: windowFilter('Period', w), orderby: this.rowOrder },
        paging,
      )) {
        // The page's recorders not met before in this discovery.
        const inPage = new Map<string, RecorderRef>()
        for (const row of page.entities) {
          const r = recorderOf(this.plan, row)
          if (r && !inPage.has(r.ref)) inPage.set(r.ref, r)
        }
        for (const ref of await this.ctx.state.markSeen(register, inPage.keys())) {
          const r = inPage.get(ref)!
          if (!r.set.startsWith('Document_')) {
            this.report.warn(r.ref, 'Recorder', `recorder type ${r.set} is not a document; set skipped`)
            this.report.skipped++
            continue
          }
          fresh.push(r)
        }
        if (fresh.length >= DISCOVERED_AHEAD) {
          await this.readAndWrite(fresh, false)
          fresh = []
        }
        this.report.tick()
      }
      await this.readAndWrite(fresh, false)
      this.report.windows++
      this.st.windowsDone.push(w.id)
      const snapshot = structuredClone(this.st)
      this.writer.also(() => this.ctx.state.saveSetState(register, this.plan.type, snapshot))
      await this.writer.flush()
    }
    this.st.firstLoadDone = true
    this.st.windowsDone = []
    // A complete first load that did not find a recorder the connector holds: its set goes (§7.6).
    if (allRead && this.errorFree) {
      const missing = await this.ctx.state.undiscoveredCount(register)
      const holds = await this.ctx.state.heldCount(register)
      if (missing > 20 && missing > (this.ctx.options.maxDeletePercent / 100) * holds) {
        this.report.note(`deletions withheld: ${missing} of ${holds}`)
      } else if (missing > 0) {
        let after = ''
        for (;;) {
          const chunk = await this.ctx.state.undiscovered(register, after, CHUNK)
          if (chunk.length === 0) break
          after = chunk.at(-1)!.recorder
          for (const { recorder: ref, recorder_set: set } of chunk) {
            const type = `Документ.${set.slice('Document_'.length)}`
            this.writer.writeOther(ref, { type: this.plan.type, Регистратор: { type, ref }, Движения: [] }, false)
            this.report.deleted++
            this.writer.recorder(register, ref, set, undefined)
            await this.writer.flushIfFull()
          }
        }
      }
    }
    await this.writer.flush()
    await this.ctx.state.clearSeen(register)
    return allRead
  }

  async incremental(): Promise<void> {
    const register = this.plan.entitySet
    // 1. Recorders of watched types that this cycle's version scans found new, changed or
    //    deleted joined the queue with the batches that handled them (objects.ts).
    // 2. The rescan of the last days: sets that changed without their document changing. The
    //    rows are read in Period order, not by recorder: each row's info goes to the state,
    //    and the sets are compared from there, a chunk of recorders at a time.
    const from = this.horizon
    await this.ctx.state.clearRescan(register)
    const paging: Paging = { size: this.st.pageSize, adaptive: true }
    let seq = 0
    for await (const page of pages(
      this.ctx.source,
      { set: this.rowSet, select: this.plan.rowSelect, filter: `Period ge datetime'${from}'`, orderby: this.rowOrder },
      paging,
    )) {
      const rows: [string, number, string, string, string][] = []
      for (const row of page.entities) {
        const r = recorderOf(this.plan, row)
        if (!r || !r.set.startsWith('Document_') || skipsRecorder(this.plan, r)) continue
        this.watch(r)
        const info = this.rowInfo(r, row)
        rows.push([r.ref, seq++, r.set, info?.[0] ?? '', info?.[1] ?? ''])
      }
      await this.ctx.state.saveRescan(register, rows)
      this.report.tick()
    }
    this.st.pageSize = paging.size
    // A recorder read whose rows there differ from those last written for it from `from` on.
    for (let after = ''; ; ) {
      const read = await this.ctx.state.rescanned(register, after, CHUNK)
      if (read.size === 0) break
      const held = await this.ctx.state.recorderRows(register, read.keys())
      const queued: [string, string][] = []
      for (const [ref, { set, rows }] of read) {
        after = ref
        const before = (held.get(ref)?.rows ?? []).filter(([p]) => p >= from)
        if (JSON.stringify(sortInfo(rows)) !== JSON.stringify(sortInfo(before))) queued.push([ref, set])
      }
      await this.ctx.sql.transaction(() => this.ctx.state.enqueue(register, queued))
    }
    // A recorder with rows written from `from` on of which none was read.
    for (let after = ''; ; ) {
      const unread = await this.ctx.state.unread(register, from, after, CHUNK)
      if (unread.length === 0) break
      after = unread.at(-1)!.recorder
      await this.ctx.sql.transaction(() =>
        this.ctx.state.enqueue(
          register,
          unread.map((u) => [u.recorder, u.recorder_set]),
        ),
      )
    }
    await this.ctx.state.clearRescan(register)
    // 3. The queue, including what an interrupted cycle left in it, a chunk at a time; each
    //    recorder leaves it in the batch that writes its set.
    for (let after = ''; ; ) {
      const queue = await this.ctx.state.queue(register, after, CHUNK)
      if (queue.length === 0) break
      after = queue.at(-1)!.recorder
      await this.readAndWrite(
        queue.map((q) => ({ ref: q.recorder, set: q.recorder_set })),
        true,
      )
    }
    await this.writer.flush()
  }
}

export async function syncRegister(ctx: CycleContext, plan: SetPlan, report: SetReport): Promise<{ complete: boolean; full: boolean }> {
  const st = await ctx.state.setState(plan.entitySet)
  const run = new RegisterSync(ctx, plan, report, st)
  let complete = true
  // A register's first load discovers every window: its full scan. Later cycles rescan recent days only.
  const first = !st.firstLoadDone || ctx.full
  if (first) complete = await run.firstLoad(await run.windows())
  else await run.incremental()
  await run.writer.flush()
  await ctx.state.saveSetState(plan.entitySet, plan.type, st)
  const ok = complete && run.errorFree && run.writer.invalid === 0
  return { complete: ok, full: ok && first }
}
