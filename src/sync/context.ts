// What every step of a cycle shares: the store and its sync state, the source, the
// options of the map file, the cycle's day, and what earlier sets of this cycle found.
import type { SqlPort } from '../store/sql.js'
import type { Metadata } from './metadata/model.js'
import type { SetPlan, SyncOptions } from './mapping/index.js'
import type { Sink } from './output.js'
import type { Source } from './source/client.js'
import type { SyncStore } from './state/store.js'

export interface CycleContext {
  readonly sql: SqlPort
  readonly state: SyncStore
  readonly source: Source
  readonly meta: Metadata
  readonly options: SyncOptions
  /** The cycle's day, local time, `YYYY-MM-DD`. */
  readonly today: string
  /** The clock (tests inject one); the cycle began at `started`. */
  readonly now: () => Date
  readonly started: Date
  readonly full: boolean
  /** `--scan-all`: every version scan of this run is a full scan (§7.4). */
  readonly scanAll: boolean
  readonly sink: Sink
  readonly signal: AbortSignal
  /** Register entity set → its plan, for deletions that must empty a document's record sets. */
  readonly registers: ReadonlyMap<string, SetPlan>
  /**
   * Per document entity set, the registers watching its type (§7.5 step 1): refs that a version
   * scan finds new, changed or deleted join their queues in the batch that handles them.
   */
  readonly watchers: Map<string, string[]>
  /** Entity sets of "other documents" met in kept values and record sets this cycle. */
  readonly otherDocuments: Set<string>
}

/** The seven documents of §4.3 are synced by their own plans; any other Document_* is an "other document". */
export const SEVEN = new Set([
  'Document_ЗаявкаНаРасходованиеСредств',
  'Document_ПоступлениеТоваровУслуг',
  'Document_ЗаказПокупателя',
  'Document_ЗаказПоставщику',
  'Document_ПеремещениеТоваров',
  'Document_ЗаказНаПроизводство',
  'Document_ТребованиеНакладная',
])

/** Collects `Document_X` sets named by composite values `{"type": "Документ.X", …}` of a mapped object. */
export function noteOtherDocuments(object: Record<string, unknown>, into: Set<string>): void {
  for (const v of Object.values(object)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const t = (v as { type?: unknown }).type
      if (typeof t === 'string' && t.startsWith('Документ.')) {
        const set = `Document_${t.slice('Документ.'.length)}`
        if (!SEVEN.has(set)) into.add(set)
      }
    }
  }
}
