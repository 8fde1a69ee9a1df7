// Catalogues and documents (sync.md §7.4, §7.6): a first load reads object pages window by
// window and resumes at the first incomplete one; later cycles scan versions, refetch what
// is new or changed (20 per request), write only forms that differ, and delete what a
// complete, error-free scan no longer finds — within the cap and after a confirmation.
import type { CycleContext } from './context.js'
import { noteOtherDocuments } from './context.js'
import { attachmentContent, mapEntity } from './mapping/index.js'
import type { SetPlan } from './mapping/index.js'
import type { SetReport } from './output.js'
import { YIELD_EVERY, chunks, inGroups, pages, refFilter, yieldToIo } from './pages.js'
import type { Paging } from './pages.js'
import { SourceError } from './source/client.js'
import type { Held, SetState } from './state/store.js'
import { WHOLE, monthWindows, windowFilter } from './windows.js'
import type { Window } from './windows.js'
import { SetWriter, formHash } from './write.js'

const KEYS_PER_REQUEST = 20
/** Attachment contents requested ahead of the one being handled. */
const AHEAD = 3
/** A month read in more pages than this is read in day windows from the next cycle on. */
const PAGES_PER_MONTH = 10

export interface SetOutcome {
  /** Every window read this cycle and nothing failed: deletions may be judged. */
  readonly complete: boolean
}

type Content = { ok: true; data: string } | { ok: false; reason: string }

const lower = (v: unknown): string => String(v ?? '').toLowerCase()

/** Runs `work` over `items` with at most `n` in flight, results in order. */
async function inParallel<T, R>(items: readonly T[], n: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  const lanes = Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await work(items[i]!)
    }
  })
  await Promise.all(lanes)
  return out
}

class ObjectSync {
  readonly writer: SetWriter
  readonly seen = new Map<string, string>()
  errorFree = true
  readonly dayMonths: Set<string>

  constructor(
    readonly ctx: CycleContext,
    readonly plan: SetPlan,
    readonly report: SetReport,
    readonly st: SetState,
    readonly held: Map<string, Held>,
  ) {
    this.writer = new SetWriter(ctx.sql, ctx.state, plan.entitySet, report)
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
      for await (const page of pages(this.ctx.source, { set: this.plan.entitySet, select, filter: windowFilter('Date', w), orderby: this.orderby }, paging)) {
        count++
        yield page.entities
      }
    } catch (err) {
      if (count === 0 && select !== undefined && select === this.select && err instanceof SourceError && err.status === 400 && this.refusesSelect(err)) {
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

  async handle(entity: Record<string, unknown>): Promise<void> {
    const ref = lower(entity.Ref_Key)
    const version = String(entity.DataVersion ?? '')
    const mapped = mapEntity(this.plan, entity, { today: this.ctx.today })
    for (const w of mapped.warnings) this.report.warn(w.ref, w.attribute, w.reason)
    const before = this.held.get(ref)
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
      if (err instanceof SourceError && err.status === 501) return { ok: false, reason: 'the source cannot serve this stored value (HTTP 501)' }
      throw err
    }
  }

  async firstLoad(windows: readonly Window[]): Promise<boolean> {
    const done = new Set(this.ctx.full ? [] : this.st.windowsDone)
    if (this.ctx.full) this.st.windowsDone = []
    let allRead = true
    const paging: Paging = { size: this.st.pageSize, adaptive: true }
    for (const w of windows) {
      if (done.has(w.id)) {
        allRead = false
        continue
      }
      for await (const entities of this.read(w, this.select, paging)) {
        this.st.pageSize = paging.size
        for (const [i, entity] of entities.entries()) {
          const ref = lower(entity.Ref_Key)
          if (this.seen.has(ref)) continue
          this.seen.set(ref, String(entity.DataVersion ?? ''))
          this.report.read++
          this.lookAhead(entities, i + 1)
          await this.handle(entity)
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

  async incremental(windows: readonly Window[]): Promise<void> {
    const paging: Paging = { size: 1000, adaptive: false }
    for (const w of windows) {
      for await (const entities of this.read(w, 'Ref_Key,DataVersion', paging)) {
        for (const e of entities) this.seen.set(lower(e.Ref_Key), String(e.DataVersion ?? ''))
        this.report.tick()
      }
      this.report.windows++
    }
    this.report.read += this.seen.size
    const changed = this.ctx.changed.get(this.plan.entitySet) ?? new Set<string>()
    this.ctx.changed.set(this.plan.entitySet, changed)
    const fetch: string[] = []
    for (const [ref, version] of this.seen) {
      const before = this.held.get(ref)
      if (before === undefined || before.version !== version) {
        fetch.push(ref)
        changed.add(ref)
      } else if (becomesClosed(before.extra, this.ctx.today)) fetch.push(ref)
    }
    const groups = chunks(fetch, KEYS_PER_REQUEST)
    for (const lanes of chunks(groups, this.ctx.options.concurrency)) {
      const answers = await inParallel(lanes, lanes.length, (refs) => this.byKeys(refs))
      const entities = answers.flat()
      for (const [i, entity] of entities.entries()) {
        this.lookAhead(entities, i + 1)
        await this.handle(entity)
        if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToIo()
      }
      this.report.tick()
    }
    await this.writer.flush()
  }

  async byKeys(refs: readonly string[]): Promise<Record<string, unknown>[]> {
    return inGroups(refs, async (group, retry) => {
      const { body } = await this.ctx.source.json<{ value?: Record<string, unknown>[] }>(
        () => this.ctx.source.url(this.plan.entitySet, { $format: 'json', $select: this.select, $filter: refFilter(group) }),
        { retry },
      )
      return Array.isArray(body.value) ? body.value : []
    })
  }

  /** §7.6: absent from a complete, error-free scan, within the cap, and not found by key. */
  async deletions(): Promise<void> {
    const candidates = [...this.held].filter(([ref, h]) => h.hash !== '' && !this.seen.has(ref)).map(([ref]) => ref)
    if (candidates.length === 0) return
    const holds = [...this.held.values()].filter((h) => h.hash !== '').length
    if (candidates.length > 20 && candidates.length > (this.ctx.options.maxDeletePercent / 100) * holds) {
      this.report.note(`deletions withheld: ${candidates.length} of ${holds}`)
      return
    }
    const still = new Set<string>()
    for (const refs of chunks(candidates, KEYS_PER_REQUEST)) for (const e of await this.byKeys(refs)) still.add(lower(e.Ref_Key))
    const changed = this.ctx.changed.get(this.plan.entitySet) ?? new Set<string>()
    this.ctx.changed.set(this.plan.entitySet, changed)
    for (const ref of candidates) {
      if (still.has(ref)) continue
      changed.add(ref)
      this.writer.remove(ref, { type: this.typeOf(), ref, deleted: true })
      if (this.plan.kind === 'document' || this.plan.kind === 'other-document') {
        for (const { register } of await this.ctx.state.registersOf(ref)) {
          const reg = this.ctx.registers.get(register)
          if (!reg) continue
          this.writer.writeOther(ref, { type: reg.type, Регистратор: { type: this.typeOf(), ref }, Движения: [] }, false)
          this.writer.also(() => this.ctx.state.saveRecorder(register, ref, this.plan.entitySet, undefined))
        }
      }
      await this.writer.flushIfFull()
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
  const held = await ctx.state.held(plan.entitySet)
  const run = new ObjectSync(ctx, plan, report, st, held)
  const windows = await run.windows()
  let allRead = true
  if (!st.firstLoadDone || ctx.full) allRead = await run.firstLoad(windows)
  else await run.incremental(windows)
  await run.writer.flush()
  st.dayMonths = [...run.dayMonths]
  const complete = allRead && run.errorFree && run.writer.invalid === 0
  if (complete) await run.deletions()
  await ctx.state.saveSetState(plan.entitySet, plan.type, st)
  return { complete }
}
