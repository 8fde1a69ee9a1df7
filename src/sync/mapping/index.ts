// The sync mapping (sync.md §4, §5): one source entity → one object in import form, by the
// plan that resolution compiled for its entity set.
import type { CompiledAttr, SetPlan } from './resolve.js'
import { MapError, guid, pairSet } from './values.js'
import type { ReadContext } from './values.js'

export { MapFileError, defaultMapFile, parseMapFile } from './mapfile.js'
export type { MapFile, SyncOptions } from './mapfile.js'
export { resolveMap } from './resolve.js'
export type { Resolution, SetPlan } from './resolve.js'

interface Warning {
  readonly ref: string
  readonly attribute: string
  readonly reason: string
}

export interface MapContext {
  /** The cycle's day, local time, `YYYY-MM-DD`. */
  readonly today: string
}

export type Mapped =
  | {
      readonly ok: true
      readonly object: Record<string, unknown>
      readonly warnings: readonly Warning[]
      /** Record sets: the source `Period` of each kept row, in the order of `Движения`. */
      readonly periods?: readonly string[]
    }
  | { readonly ok: false; readonly skip: 'not-synced' | 'error'; readonly warnings: readonly Warning[] }

const lineNumber = (row: Record<string, unknown>): number => {
  const n = Number(row.LineNumber)
  return Number.isFinite(n) ? n : 0
}

/** R5: rows by numeric LineNumber, stable. */
const byLine = (rows: readonly Record<string, unknown>[]) =>
  rows
    .map((row, i) => ({ row, i, n: lineNumber(row) }))
    .sort((a, b) => a.n - b.n || a.i - b.i)
    .map((x) => x.row)

function readAll(
  attrs: readonly CompiledAttr[],
  entity: Record<string, unknown>,
  out: Record<string, unknown>,
  ctx: ReadContext,
  prefix: string,
): void {
  for (const a of attrs) {
    try {
      out[a.name] = a.read(entity, ctx)
    } catch (err) {
      if (err instanceof MapError) throw new AttributeError(`${prefix}${a.name}`, err.message)
      throw err
    }
  }
}

class AttributeError extends Error {
  constructor(
    readonly attribute: string,
    reason: string,
  ) {
    super(reason)
  }
}

export function mapEntity(plan: SetPlan, entity: Record<string, unknown>, map: MapContext): Mapped {
  const ref = guid(entity.Ref_Key)
  const warnings: Warning[] = []
  const ctx: ReadContext = { today: map.today, warn: (attribute, reason) => warnings.push({ ref, attribute, reason }) }
  if (plan.skipFolders && entity.IsFolder === true) return { ok: false, skip: 'not-synced', warnings }
  const object: Record<string, unknown> = { type: plan.type, ref }
  try {
    readAll(plan.attrs, entity, object, ctx, '')
    for (const part of plan.parts) {
      if (part.from === undefined) {
        object[part.name] = []
        continue
      }
      const raw = entity[part.from]
      if (raw !== null && raw !== undefined && !Array.isArray(raw)) throw new AttributeError(part.name, 'expected an array of rows')
      object[part.name] = byLine((raw ?? []) as Record<string, unknown>[]).map((row) => {
        const out: Record<string, unknown> = { НомерСтроки: lineNumber(row) }
        readAll(part.rows, row, out, ctx, `${part.name}.`)
        return out
      })
    }
  } catch (err) {
    if (!(err instanceof AttributeError)) throw err
    warnings.push({ ref, attribute: err.attribute, reason: err.message })
    return { ok: false, skip: 'error', warnings }
  }
  // §4.2: an attachment whose owner is not one of the three documents is not synced.
  if (plan.kind === 'attachments' && !object['Объект']) return { ok: false, skip: 'not-synced', warnings }
  return { ok: true, object, warnings }
}

/** §4.2 Attachments: the content of one storage entry read by key. */
export function attachmentContent(entity: Record<string, unknown>): { ok: true; data: string } | { ok: false; reason: string } {
  const type = entity['Хранилище_Type']
  const data = entity['Хранилище_Base64Data']
  if (typeof type !== 'string' || !(type === 'application/octet-stream' || type.startsWith('image/'))) {
    return { ok: false, reason: `stored value of type ${JSON.stringify(type ?? null)} is not a file; not synced` }
  }
  const clean = typeof data === 'string' ? data.replace(/\s+/g, '') : ''
  if (clean === '') return { ok: false, reason: 'empty storage; not synced' }
  return { ok: true, data: clean }
}

export interface RecorderRef {
  readonly ref: string
  /** `Document_Y`, or the raw `_Type` when it names no catalogue or document. */
  readonly set: string
}

// A register's recorders are held for a whole cycle (76,650 at scale 10): a set name sliced
// from each row's `Recorder_Type` would keep that row's text alive with it (~10 MB there),
// so each name is one shared string.
const SET_NAMES = new Map<string, string>()
const SET_NAMES_MAX = 1000

function sharedName(name: string): string {
  const known = SET_NAMES.get(name)
  if (known !== undefined) return known
  if (SET_NAMES.size < SET_NAMES_MAX) SET_NAMES.set(name, name)
  return name
}

export function recorderOf(plan: SetPlan, entity: Record<string, unknown>): RecorderRef | undefined {
  if (plan.recorderKeys?.[0] === 'Recorder_Key') {
    const ref = guid(entity.Recorder_Key)
    return ref ? { ref, set: plan.recorderSet ?? '' } : undefined
  }
  const ref = guid(entity.Recorder)
  if (!ref) return undefined
  return { ref, set: sharedName(pairSet(entity.Recorder_Type) ?? String(entity.Recorder_Type ?? '')) }
}

export const skipsRecorder = (plan: SetPlan, r: RecorderRef): boolean => (plan.skipRecorderTypes ?? []).includes(r.set)

/** §4.4: one recorder's rows → its record set in import form. */
export function mapRecordSet(plan: SetPlan, recorder: RecorderRef, rows: readonly Record<string, unknown>[]): Mapped {
  const warnings: Warning[] = []
  const ctx: ReadContext = { today: '', warn: (attribute, reason) => warnings.push({ ref: recorder.ref, attribute, reason }) }
  if (!recorder.set.startsWith('Document_')) {
    warnings.push({ ref: recorder.ref, attribute: 'Регистратор', reason: `recorder type ${recorder.set} is not a document; set skipped` })
    return { ok: false, skip: 'error', warnings }
  }
  const moves: Record<string, unknown>[] = []
  const periods: string[] = []
  try {
    for (const row of byLine(rows)) {
      if (row.Active === false) continue
      if (plan.recordTypes && !plan.recordTypes.includes(String(row.RecordType))) continue
      const out: Record<string, unknown> = {}
      readAll(plan.attrs, row, out, ctx, '')
      const empty = plan.attrs.find(
        (a) => a.requiredInRow && (out[a.name] === '' || out[a.name] === null || out[a.name] === '0001-01-01T00:00:00'),
      )
      if (empty) {
        warnings.push({ ref: recorder.ref, attribute: empty.name, reason: `empty in row ${String(row.LineNumber ?? '?')}; row dropped` })
        continue
      }
      moves.push(out)
      periods.push(String(row.Period ?? ''))
    }
  } catch (err) {
    if (!(err instanceof AttributeError)) throw err
    warnings.push({ ref: recorder.ref, attribute: err.attribute, reason: err.message })
    return { ok: false, skip: 'error', warnings }
  }
  const type = `Документ.${recorder.set.slice('Document_'.length)}`
  return { ok: true, object: { type: plan.type, Регистратор: { type, ref: recorder.ref }, Движения: moves }, warnings, periods }
}
