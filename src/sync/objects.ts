// Catalogues and documents (sync.md §7.4, §7.6): a first load reads object pages window by
// window and resumes at the first incomplete one; later cycles scan versions — the recent
// months, or every window when a full scan is due —, refetch what is new or changed (20 per
// request), write only forms that differ, and delete what a complete, error-free full scan
// no longer finds — within the cap and after a confirmation. Nothing per object is held in
// memory beyond a page and a batch: what a scan has met is in `sync_seen`, what is saved in
// `sync_objects`, looked up a page at a time.
import type { CycleContext } from './context.js'
import { noteOtherDocuments } from './context.js'
import { attachmentContent, mapEntity } from './mapping/index.js'
import type { SetPlan } from './mapping/index.js'
import type { SetReport } from './output.js'
import { YIELD_EVERY, chunks, inGroups, pages, refFilter, yieldToIo } from './pages.js'
import type { Paging } from './pages.js'
import { SourceError } from './source/client.js'
import type { Held, SetState } from './state/store.js'
import { WHOLE, monthWindows, recentWindows, windowFilter } from './windows.js'
import type { Window } from './windows.js'
import { SetWriter, formHash } from './write.js'

const KEYS_PER_REQUEST = 20
/** Attachment contents requested ahead of the one being handled. */
const AHEAD = 3
/** A month read in more pages than this is read in day windows from the next cycle on. */
const PAGES_PER_MONTH = 10

export interface SetOutcome {
  /** Every window of this scan read and nothing failed. */
  readonly complete: boolean
  /** It was a full scan (every window): deletions were judged, and it is the set's last full scan. */
  readonly full: boolean
}

type Content = { ok: true; data: string } | { ok: false; reason: string }

const lower = (v: unknown): string => String(v ?? '').toLowerCase()

class ObjectSync {
  readonly writer: SetWriter
  errorFree = true
  readonly dayMonths: Set<string>

  constructor(
    readonly ctx: CycleContext,
    readonly plan: SetPlan,
    readonly report: SetReport,
    readonly st: SetState,
  ) {
    // An attachment changes its owner's forms, and a batch of them reaches owners on most
    // days of the base: their pages are joined once, at the end of the set (cycle.ts).
    this.writer = new SetWriter(ctx.sql, ctx.state, plan.entitySet, report, plan.kind === 'attachments' ? 'stale' : 'build')
    this.dayMonths = new Set(st.dayMonths)
  }

  get select(): string | undefined {
    return this.st.noSelect ? undefined : this.plan.select
  }

  get orderby(): string {
    return this.plan.dated ? 'Date,Ref_Key' : 'Ref_Key'
  }

  async windows(): Promise<Window[]> {
    if (!this.plan.dated) return [WHOLE]
    const { body } = await this.ctx.source.json<{ value?: { Date?: string }[] }>(() =>
      this.ctx.source.url(this.plan.entitySet, { $format: 'json', $select: 'Ref_Key,Date', $orderby: 'Date', $top: 1 }),
    )
    const earliest = body.value?.[0]?.Date
    return typeof earliest === 'string' ? monthWindows(earliest, this.ctx.today, this.dayMonths) : []
  }

  /** Pages of one window; a source that refuses `$select` with a tabular part is read whole from then on. */
  async *read(w: Window, select: string | undefined, paging: Paging): AsyncGenerator<Record<string, unknown>[]> {
    let count = 0
    try {
      for await (const page of pages(
        this.ctx.source,
        { set: this.plan.entitySet, select, filter: windowFilter('Date', w), orderby: this.orderby },
        paging,
      )) {
        count++
        yield page.entities
      }
    } catch (err) {
      if (
        count === 0 &&
        select !== undefined &&
        select === this.select &&
        err instanceof SourceError &&
        err.status === 400 &&
        this.refusesSelect(err)
      ) {
        yield* this.read(w, undefined, paging)
        return
      }
      throw err
    }
    if (count > PAGES_PER_MONTH && /^\d{4}-\d{2}\+?$/.test(w.id)) this.dayMonths.add(w.id.slice(0, 7))
  }

  refusesSelect(err: SourceError): boolean {
    // Only a $select that names a tabular part falls back (§7.1).
    const type = this.ctx.meta.entitySets[this.plan.entitySet]
    const named = new Set(this.plan.select.split(','))
    const parts = type?.properties.filter((p) => p.type.startsWith('Collection(') && named.has(p.name)) ?? []
    if (parts.length === 0 || this.st.noSelect) return false
    this.st.noSelect = true
    this.report.note(`the source refused $select with tabular parts (${err.message}); reading whole entities from now on`)
    return true
  }

  /** What is saved for these refs, the unflushed batch first. */
  async heldOf(refs: readonly string[]): Promise<Map<string, Held>> {
    const held = await this.ctx.state.heldOf(this.plan.entitySet, refs)
    for (const ref of refs) {
      const pending = this.writer.pending(ref)
      if (pending) held.set(ref, pending)
    }
    return held
  }

  /** A ref that a version scan found new, changed or deleted joins the queues of the registers watching its type (§7.5). */
  enqueueChanged(ref: string): void {
    for (const register of this.ctx.watchers.get(this.plan.entitySet) ?? []) this.writer.enqueue(register, ref, this.plan.entitySet)
  }

  async handle(entity: Record<string, unknown>, before: Held | undefined): Promise<void> {
    const ref = lower(entity.Ref_Key)
    const version = String(entity.DataVersion ?? '')
    const mapped = mapEntity(this.plan, entity, { today: this.ctx.today })
    for (const w of mapped.warnings) this.report.warn(w.ref, w.attribute, w.reason)
    if (!mapped.ok) {
      this.report.skipped++
      if (mapped.skip === 'error') {
        this.errorFree = false
        return
      }
      this.notSynced(ref, version, before)
      return
    }
    const object = mapped.object
    if (this.plan.kind === 'attachments') {
      const content = await this.contentOf(ref)
      if (!content.ok) {
        this.report.warn(ref, 'Данные', content.reason)
        this.report.skipped++
        this.notSynced(ref, version, before)
        return
      }
      object['Данные'] = content.data
    }
    noteOtherDocuments(object, this.ctx.otherDocuments)
    const hash = formHash(object)
    const extra = this.plan.entitySet === 'Catalog_БанковскиеСчета' ? closingExtra(entity, object) : ''
    if (before?.hash === hash && !this.ctx.full) this.writer.saveVersion(ref, version, hash, extra)
    else this.writer.write(ref, object, version, hash, extra)
    await this.writer.flushIfFull()
  }

  /** Read but left out by §4: its version is kept (no refetch) and an earlier synced form goes. */
  notSynced(ref: string, version: string, before: Held | undefined): void {
    if (before?.hash) this.writer.remove(ref, { type: this.typeOf(), ref, deleted: true })
    this.writer.saveVersion(ref, version, '')
  }

  typeOf(): string {
    return this.plan.type
  }

  /** Contents requested ahead of their entry, in request order. */
  readonly #ahead = new Map<string, Promise<Content>>()

  /**
   * Attachments are read one by one (§7.4). The contents of the next few entries are
   * requested before this one is handled, so the source always has the next request
   * waiting while the store writes; the client's gate still keeps at most `concurrency`
   * of them in flight.
   */
  lookAhead(entities: readonly Record<string, unknown>[], from: number): void {
    if (this.plan.kind !== 'attachments') return
    for (let i = from; i < Math.min(entities.length, from + AHEAD); i++) {
      const entity = entities[i]!
      const ref = lower(entity.Ref_Key)
      if (this.#ahead.has(ref) || !mapEntity(this.plan, entity, { today: this.ctx.today }).ok) continue
      const content = this.content(ref)
      content.catch(() => {})
      this.#ahead.set(ref, content)
    }
    // An entry met twice in a scan leaves its content unclaimed; never keep more than a window of them.
    while (this.#ahead.size > 2 * AHEAD) this.#ahead.delete(this.#ahead.keys().next().value!)
  }

  contentOf(ref: string): Promise<Content> {
    const ahead = this.#ahead.get(ref)
    if (ahead === undefined) return this.content(ref)
    this.#ahead.delete(ref)
    return ahead
  }

  async content(ref: string): Promise<Content> {
    try {
      const { body } = await this.ctx.source.json(() =>
        this.ctx.source.url(`${this.plan.entitySet}(guid'${ref}')`, { $format: 'json', $select: 'Хранилище_Type,Хранилище_Base64Data' }),
      )
      return attachmentContent(body)
    } catch (err) {
      if (err instanceof SourceError && err.status === 501)
        return { ok: false, reason: 'the source cannot serve this stored value (HTTP 501)' }
      throw err
    }
  }

  async firstLoad(windows: readonly Window[]): Promise<boolean> {
    const done = new Set(this.ctx.full ? [] : this.st.windowsDone)
    if (this.ctx.full) this.st.windowsDone = []
    await this.ctx.state.clearSeen(this.plan.entitySet)
    let allRead = true
    const paging: Paging = { size: this.st.pageSize, adaptive: true }
    for (const w of windows) {
      if (done.has(w.id)) {
        allRead = false
        continue
      }
      for await (const entities of this.read(w, this.select, paging)) {
        this.st.pageSize = paging.size
        // An object met twice in the scan is handled once (§7.2).
        const fresh = await this.ctx.state.markSeen(
          this.plan.entitySet,
          entities.map((e) => lower(e.Ref_Key)),
        )
        const page = entities.filter((e) => fresh.delete(lower(e.Ref_Key)))
        const held = await this.heldOf(page.map((e) => lower(e.Ref_Key)))
        for (const [i, entity] of page.entries()) {
          this.report.read++
          this.lookAhead(page, i + 1)
          await this.handle(entity, held.get(lower(entity.Ref_Key)))
          if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToIo()
        }
        this.report.tick()
      }
      this.report.windows++
      this.st.windowsDone.push(w.id)
      const snapshot = structuredClone(this.st)
      this.writer.also(() => this.ctx.state.saveSetState(this.plan.entitySet, this.plan.type, snapshot))
      await this.writer.flush()
    }
    this.st.firstLoadDone = true
    this.st.windowsDone = []
    return allRead
  }

  /**
   * A version scan of `windows`, page by page: each page's new and changed refs are refetched
   * and handled before the next page is judged. A full scan notes every ref it meets, for
   * the deletions that only it may judge (§7.6).
   */
  async incremental(windows: readonly Window[], full: boolean): Promise<void> {
    if (full) await this.ctx.state.clearSeen(this.plan.entitySet)
    const paging: Paging = { size: 1000, adaptive: false }
    for (const w of windows) {
      for await (const entities of this.read(w, 'Ref_Key,DataVersion', paging)) {
        // Within a page, a ref met twice counts with the last version read.
        const page = new Map<string, string>()
        for (const e of entities) page.set(lower(e.Ref_Key), String(e.DataVersion ?? ''))
        this.report.read += page.size
        if (full) await this.ctx.state.markSeen(this.plan.entitySet, page.keys())
        const held = await this.heldOf([...page.keys()])
        const fetch: string[] = []
        for (const [ref, version] of page) {
          const before = held.get(ref)
          if (before === undefined || before.version !== version) {
            fetch.push(ref)
            this.enqueueChanged(ref)
          } else if (becomesClosed(before.extra, this.ctx.today)) fetch.push(ref)
        }
        await this.refetch(fetch, held)
        this.report.tick()
      }
      this.report.windows++
    }
    await this.writer.flush()
  }

  /** Reads these refs by key (20 per request, `concurrency` requests at once) and handles each. */
  async refetch(refs: readonly string[], held: ReadonlyMap<string, Held>): Promise<void> {
    const groups = chunks(refs, KEYS_PER_REQUEST)
    for (const lanes of chunks(groups, this.ctx.options.concurrency)) {
      const answers = await Promise.all(lanes.map((group) => this.byKeys(group)))
      const entities = answers.flat()
      for (const [i, entity] of entities.entries()) {
        this.lookAhead(entities, i + 1)
        const ref = lower(entity.Ref_Key)
        await this.handle(entity, this.writer.pending(ref) ?? held.get(ref))
        if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToIo()
      }
      this.report.tick()
    }
  }

  async byKeys(refs: readonly string[]): Promise<Record<string, unknown>[]> {
    return inGroups(this.ctx.source, refs, async (group, opts) => {
      const { body } = await this.ctx.source.json<{ value?: Record<string, unknown>[] }>(
        () => this.ctx.source.url(this.plan.entitySet, { $format: 'json', $select: this.select, $filter: refFilter(group) }),
        opts,
      )
      return Array.isArray(body.value) ? body.value : []
    })
  }

  /** §7.6: absent from a complete, error-free full scan, within the cap, and not found by key. */
  async deletions(): Promise<void> {
    const set = this.plan.entitySet
    const count = await this.ctx.state.unseenCount(set)
    if (count === 0) return
    const holds = await this.ctx.state.heldCount(set)
    if (count > 20 && count > (this.ctx.options.maxDeletePercent / 100) * holds) {
      this.report.note(`deletions withheld: ${count} of ${holds}`)
      return
    }
    const registers = [...this.ctx.registers.keys()]
    let after = ''
    for (;;) {
      // Candidates a chunk at a time, in ref order: what a chunk deletes leaves the saved rows as it commits.
      const candidates = await this.ctx.state.unseen(set, after, 500)
      if (candidates.length === 0) break
      after = candidates.at(-1)!
      const still = new Set<string>()
      for (const refs of chunks(candidates, KEYS_PER_REQUEST)) for (const e of await this.byKeys(refs)) still.add(lower(e.Ref_Key))
      for (const ref of candidates) {
        if (still.has(ref)) continue
        this.enqueueChanged(ref)
        this.writer.remove(ref, { type: this.typeOf(), ref, deleted: true })
        if (this.plan.kind === 'document' || this.plan.kind === 'other-document') {
          for (const { register } of await this.ctx.state.registersOf(registers, ref)) {
            const reg = this.ctx.registers.get(register)
            if (!reg) continue
            this.writer.writeOther(ref, { type: reg.type, Регистратор: { type: this.typeOf(), ref }, Движения: [] }, false)
            this.writer.recorder(register, ref, set, undefined)
          }
        }
        await this.writer.flushIfFull()
      }
    }
    await this.writer.flush()
  }
}

/** A bank account's closing date and whether its written form was closed (`date|1`). */
function closingExtra(entity: Record<string, unknown>, object: Record<string, unknown>): string {
  const date = typeof entity['ДатаЗакрытия'] === 'string' && !entity['ДатаЗакрытия'].startsWith('0001-01-01') ? entity['ДатаЗакрытия'] : ''
  return date ? `${date.slice(0, 10)}|${object['Закрыт'] === true ? 1 : 0}` : ''
}

/** An open account whose closing date has come: rewritten with no change in 1C (§4.2). */
function becomesClosed(extra: string, today: string): boolean {
  if (!extra) return false
  const [date, closed] = extra.split('|')
  return closed === '0' && date! <= today
}

export async function syncObjects(ctx: CycleContext, plan: SetPlan, report: SetReport): Promise<SetOutcome> {
  const st = await ctx.state.setState(plan.entitySet)
  const lastFull = (await ctx.state.setRow(plan.entitySet))?.last_full_scan ?? ''
  const run = new ObjectSync(ctx, plan, report, st)
  const windows = await run.windows()
  let allRead = true
  let full = true
  if (!st.firstLoadDone || ctx.full) allRead = await run.firstLoad(windows)
  else {
    // §7.4: catalogues have no windows; a document set reads its recent months unless a full scan is due.
    const due = ctx.options.fullScanHours * 3600_000
    full = !plan.dated || ctx.scanAll || lastFull === '' || Date.parse(lastFull) <= ctx.started.getTime() - due
    await run.incremental(full ? windows : recentWindows(windows, ctx.today, ctx.options.recentMonths), full)
  }
  await run.writer.flush()
  st.dayMonths = [...run.dayMonths]
  const complete = allRead && run.errorFree && run.writer.invalid === 0
  // A recent scan never deletes (§7.6).
  if (complete && full) await run.deletions()
  if (full) await ctx.state.clearSeen(plan.entitySet)
  await ctx.state.saveSetState(plan.entitySet, plan.type, st)
  return { complete, full: complete && full }
}
