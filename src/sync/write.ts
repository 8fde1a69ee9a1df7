// A sync batch (sync.md §7.7): at most 1000 objects of one entity set, written through the
// import path (validation, read models, derived tables) together with the connector's
// bookkeeping for them, in one transaction. An object that fails validation is skipped
// with a warning and its version is not saved, so the next cycle tries it again.
import { hash } from 'node:crypto'
import { ImportBatch } from '../import/batch.js'
import type { SqlPort } from '../store/sql.js'
import type { PagesMode } from '../views/pages.js'
import type { SetReport } from './output.js'
import type { Held, SyncStore } from './state/store.js'

const BATCH_SIZE = 1000

// The one-shot hash skips a Hash object per call: a first load hashes every object and movement.
export const formHash = (object: unknown): string => hash('sha1', JSON.stringify(object), 'base64')

interface Item {
  readonly object: Record<string, unknown>
  readonly ref: string
  /** Saved with the object: [version, hash, extra]; undefined for record sets and deletions. */
  readonly saved?: readonly [version: string, hash: string, extra: string]
  readonly deleted?: boolean
  /** Counted in the set's `written` (a record set written on its own account). */
  readonly counted?: boolean
}

export class SetWriter {
  readonly #items: Item[] = []
  readonly #versions: [string, string, string, string][] = []
  readonly #after: (() => Promise<void>)[] = []
  #forget: string[] = []
  /** What this batch will save per ref, until it commits: a ref met again before then is judged by it. */
  #pending = new Map<string, Held>()
  /** Recorders that join a register's queue with this batch (§7.5 step 1): register → [recorder, its set]. */
  #queue = new Map<string, [string, string][]>()
  /** The rows written for recorders in this batch (§7.7), saved with it: register → entries. */
  #recorders = new Map<string, [string, string, [string, string][] | undefined][]>()
  #recorderCount = 0

  constructor(
    readonly sql: SqlPort,
    readonly state: SyncStore,
    readonly entitySet: string,
    readonly report: SetReport,
    /** How the batches leave the ready pages they change (import/batch.ts `finish`). */
    readonly pages: PagesMode = 'build',
  ) {}

  get size(): number {
    return this.#items.length + this.#versions.length
  }

  /** The version, hash and extra this unflushed batch saves for `ref`, if any. */
  pending(ref: string): Held | undefined {
    return this.#pending.get(ref)
  }

  /** A recorder for a register's queue, committed with this batch. */
  enqueue(register: string, recorder: string, recorderSet: string): void {
    const list = this.#queue.get(register) ?? []
    list.push([recorder, recorderSet])
    this.#queue.set(register, list)
  }

  /** An object to write, with the version and form hash to save for it. */
  write(ref: string, object: Record<string, unknown>, version: string, hash: string, extra = ''): void {
    this.#items.push({ object, ref, saved: [version, hash, extra] })
    this.#pending.set(ref, { version, hash, extra })
  }

  /** A record set or an extra object (not a row of this set's saved versions). */
  writeOther(ref: string, object: Record<string, unknown>, counted = true): void {
    this.#items.push({ object, ref, counted })
  }

  /** A deletion of an object this set holds: the object goes and so does its saved row. */
  remove(ref: string, object: Record<string, unknown>): void {
    this.#items.push({ object, ref, deleted: true })
    this.#forget.push(ref)
  }

  /** Only the version (unchanged form, or read but not synced: hash ''). */
  saveVersion(ref: string, version: string, hash: string, extra = ''): void {
    this.#versions.push([ref, version, hash, extra])
    this.#pending.set(ref, { version, hash, extra })
  }

  /** What the connector holds of a recorder's set after this batch: its rows, or undefined for none. */
  recorder(register: string, recorder: string, recorderSet: string, rows: [string, string][] | undefined): void {
    const list = this.#recorders.get(register) ?? []
    list.push([recorder, recorderSet, rows])
    this.#recorders.set(register, list)
    this.#recorderCount++
  }

  /** State writes that must commit with this batch (a window done, a queue entry gone). */
  also(work: () => Promise<void>): void {
    this.#after.push(work)
  }

  /** Closes the batch at 1000 objects, or as many bookkeeping rows: nothing is held beyond a batch. */
  async flushIfFull(): Promise<void> {
    if (this.#items.length >= BATCH_SIZE || this.#versions.length + this.#after.length + this.#recorderCount >= BATCH_SIZE)
      await this.flush()
  }

  async flush(): Promise<void> {
    if (
      this.#items.length === 0 &&
      this.#versions.length === 0 &&
      this.#after.length === 0 &&
      this.#forget.length === 0 &&
      this.#queue.size === 0 &&
      this.#recorders.size === 0
    )
      return
    const items = this.#items.splice(0)
    const versions = this.#versions.splice(0)
    const after = this.#after.splice(0)
    const forget = this.#forget
    const queue = this.#queue
    const recorders = this.#recorders
    this.#recorders = new Map()
    this.#recorderCount = 0
    this.#forget = []
    this.#pending = new Map()
    this.#queue = new Map()
    let written = 0
    let deleted = 0
    let failed = 0
    await this.sql.transaction(async () => {
      // A window with nothing to write still commits its bookkeeping, without the read-model pass.
      const batch = items.length > 0 ? new ImportBatch(this.sql) : undefined
      const saved: [string, string, string, string][] = []
      for (const item of items) {
        const outcome = await batch!.add(item.object)
        if (!outcome.ok) {
          failed++
          const [attribute, ...rest] = outcome.reason.split(': ')
          this.report.warn(item.ref, rest.length > 0 ? attribute! : '', rest.length > 0 ? rest.join(': ') : outcome.reason)
          continue
        }
        if (item.deleted) deleted++
        else if (item.saved || item.counted) written++
        if (item.saved) saved.push([item.ref, ...item.saved])
      }
      // sync.md prints no dangling-reference warning: a reference arrives before its target's set is read.
      await batch?.finish({ dangling: false, answers: 'drop', pages: this.pages })
      await this.state.saveObjects(this.entitySet, [...saved, ...versions])
      await this.state.forgetObjects(this.entitySet, forget)
      for (const [register, entries] of queue) await this.state.enqueue(register, entries)
      for (const [register, entries] of recorders) await this.state.saveRecorders(register, entries)
      for (const work of after) await work()
    })
    this.report.written += written
    this.report.deleted += deleted
    this.report.skipped += failed
    if (failed > 0) this.invalid += failed
  }

  /** Objects refused by validation in this set this cycle (the set is then not error-free). */
  invalid = 0
}
