// Reads and writes of the connector's tables. Writes that belong to a batch run inside the
// batch's transaction (the caller's), so an object and its saved version commit together.
import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import type { SqlPort, SqlValue } from '../../store/sql.js'
import { renewStatistics } from '../../store/statistics.js'
import { RECENT, lastPeriodOf } from './tables.js'

const nowIso = (): string => new Date().toISOString()

/** Resumable per-set state (sync_sets.state). */
export interface SetState {
  firstLoadDone: boolean
  /** Windows completed by the first load in progress (`*`, `YYYY-MM`, `YYYY-MM-DD`, `YYYY-MM+`). */
  windowsDone: string[]
  pageSize: number
  /** Months read in day windows (they needed more than 10 pages). */
  dayMonths: string[]
  /** The source refused `$select` with a tabular part: read whole entities. */
  noSelect: boolean
  /** Registers: watched recorder types (entity-set names). */
  recorderSets: string[]
}

const emptySetState = (): SetState => ({
  firstLoadDone: false,
  windowsDone: [],
  pageSize: 20,
  dayMonths: [],
  noSelect: false,
  recorderSets: [],
})

export interface SetRow {
  readonly entity_set: string
  readonly type: string
  readonly last_complete_scan: string
  readonly last_error: string
  readonly last_error_at: string
  readonly objects: number
  readonly written_total: number
  readonly errors_total: number
  readonly state: string
  /** Absent on a store whose tables predate it, read through a read-only handle. */
  readonly last_full_scan?: string
}

export interface Held {
  readonly version: string
  readonly hash: string
  readonly extra: string
}

/** Keys per `IN (…)` list: always this many (the last list repeats a key), so one statement text serves. */
const IN_LIST = 100

export class SyncStore {
  constructor(readonly sql: SqlPort) {}

  /** `statement(marks)` once per list of IN_LIST keys, `head` before the keys; the rows of all. */
  async #inLists<T>(statement: (marks: string) => string, head: readonly SqlValue[], keys: Iterable<string>): Promise<T[]> {
    const unique = [...new Set(keys)]
    const out: T[] = []
    const marks = Array.from({ length: IN_LIST }, () => '?').join(', ')
    for (let i = 0; i < unique.length; i += IN_LIST) {
      const part = unique.slice(i, i + IN_LIST)
      while (part.length < IN_LIST) part.push(part[0]!)
      for (const row of await this.sql.all<T>(statement(marks), [...head, ...part])) out.push(row)
    }
    return out
  }

  async meta(key: string): Promise<string | undefined> {
    return (await this.sql.all<{ value: string }>('SELECT value FROM sync_meta WHERE key = ?', [key]))[0]?.value
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.sql.run('INSERT INTO sync_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
      key,
      value,
    ])
  }

  async setRow(set: string): Promise<SetRow | undefined> {
    return (await this.sql.all<SetRow>('SELECT * FROM sync_sets WHERE entity_set = ?', [set]))[0]
  }

  async setRows(): Promise<SetRow[]> {
    return this.sql.all<SetRow>('SELECT * FROM sync_sets ORDER BY entity_set')
  }

  async setState(set: string): Promise<SetState> {
    const row = await this.setRow(set)
    return row?.state ? { ...emptySetState(), ...(JSON.parse(row.state) as Partial<SetState>) } : emptySetState()
  }

  async saveSetState(set: string, type: string, state: SetState): Promise<void> {
    await this.sql.run(
      `INSERT INTO sync_sets (entity_set, type, state) VALUES (?, ?, ?)
       ON CONFLICT (entity_set) DO UPDATE SET type = excluded.type, state = excluded.state`,
      [set, type, JSON.stringify(state)],
    )
  }

  /** `complete`: when a complete scan ended; `full`: when it began, if it was a full one (§7.4). */
  async setDone(
    set: string,
    fields: { complete?: string; full?: string; error?: string; at?: string; written: number; errors: number },
  ): Promise<void> {
    const objects = await this.heldCount(set)
    const at = fields.at ?? nowIso()
    await this.sql.run(
      `UPDATE sync_sets SET objects = ?, written_total = written_total + ?, errors_total = errors_total + ?,
         last_complete_scan = CASE WHEN ? = '' THEN last_complete_scan ELSE ? END,
         last_full_scan = CASE WHEN ? = '' THEN last_full_scan ELSE ? END,
         last_error = CASE WHEN ? = '' THEN last_error ELSE ? END,
         last_error_at = CASE WHEN ? = '' THEN last_error_at ELSE ? END
       WHERE entity_set = ?`,
      [
        objects,
        fields.written,
        fields.errors,
        fields.complete ?? '',
        fields.complete ?? '',
        fields.full ?? '',
        fields.full ?? '',
        fields.error ?? '',
        fields.error ?? '',
        fields.error ?? '',
        at,
        set,
      ],
    )
  }

  async heldCount(set: string): Promise<number> {
    if (set.startsWith('AccumulationRegister_')) {
      const r = await this.sql.all<{ n: number }>('SELECT COUNT(*) AS n FROM sync_recorders WHERE register = ?', [set])
      return Number(r[0]?.n ?? 0)
    }
    const r = await this.sql.all<{ n: number }>("SELECT COUNT(*) AS n FROM sync_objects WHERE entity_set = ? AND hash <> ''", [set])
    return Number(r[0]?.n ?? 0)
  }

  /** What is saved for these refs of a set (one page's worth): ref → version, hash, extra. */
  async heldOf(set: string, refs: Iterable<string>): Promise<Map<string, Held>> {
    const rows = await this.#inLists<{ ref: string; version: string; hash: string; extra: string }>(
      (marks) => `SELECT ref, version, hash, extra FROM sync_objects WHERE entity_set = ? AND ref IN (${marks})`,
      [set],
      refs,
    )
    return new Map(rows.map((r) => [r.ref, { version: r.version, hash: r.hash, extra: r.extra }]))
  }

  /** A scan of the set begins: nothing met yet. */
  async clearSeen(set: string): Promise<void> {
    await this.sql.run('DELETE FROM sync_seen WHERE entity_set = ?', [set])
  }

  /**
   * Notes refs met by the scan in progress; returns those it had not met before. One insert
   * that skips the refs stored already: a lookup first would be planned by sync_seen's
   * statistics, which lag behind a scan filling it (PostgreSQL then read every ref met so far
   * for each list of 100: 90 s of a scale-100 first load).
   */
  async markSeen(set: string, refs: Iterable<string>): Promise<Set<string>> {
    const unique = [...new Set(refs)].sort()
    if (unique.length === 0) return new Set()
    return this.sql.transaction(() =>
      this.sql.insertNew(
        'sync_seen',
        ['entity_set', 'ref'],
        unique.map((r) => [set, r]),
        ['entity_set', 'ref'],
      ),
    )
  }

  /**
   * The anti-joins below against sync_seen are planned by its statistics: renewed first, as a
   * scan has just filled it (a nested loop over every seen ref per held one took 14–22 s at
   * scale 100 with the statistics of an empty table).
   */
  async #renewSeenStatistics(): Promise<void> {
    await this.sql.transaction(() => renewStatistics(this.sql, ['sync_seen']))
  }

  /** Written objects of a set that its scan did not meet: how many. */
  async unseenCount(set: string): Promise<number> {
    await this.#renewSeenStatistics()
    const r = await this.sql.all<{ n: number }>(
      `SELECT COUNT(*) AS n FROM sync_objects o WHERE o.entity_set = ? AND o.hash <> ''
         AND NOT EXISTS (SELECT 1 FROM sync_seen s WHERE s.entity_set = o.entity_set AND s.ref = o.ref)`,
      [set],
    )
    return Number(r[0]?.n ?? 0)
  }

  /** Up to `limit` of them, in ref order after `after`. */
  async unseen(set: string, after: string, limit: number): Promise<string[]> {
    const rows = await this.sql.all<{ ref: string }>(
      `SELECT o.ref FROM sync_objects o WHERE o.entity_set = ? AND o.hash <> '' AND o.ref > ?
         AND NOT EXISTS (SELECT 1 FROM sync_seen s WHERE s.entity_set = o.entity_set AND s.ref = o.ref)
       ORDER BY o.ref LIMIT ${Math.floor(limit)}`,
      [set, after],
    )
    return rows.map((r) => r.ref)
  }

  async saveObjects(set: string, rows: readonly (readonly [ref: string, version: string, hash: string, extra: string])[]): Promise<void> {
    if (rows.length === 0) return
    // One upsert per row instead of a delete and an insert; a ref given twice keeps its last row
    // (PostgreSQL refuses to update one row twice in a statement).
    const last = new Map(rows.map((r) => [r[0], r]))
    await this.sql.upsertRows(
      'sync_objects',
      ['entity_set', 'ref', 'version', 'hash', 'extra'],
      ['entity_set', 'ref'],
      [...last.values()].map((r) => [set, ...r]),
    )
  }

  async forgetObjects(set: string, refs: readonly string[]): Promise<void> {
    for (let i = 0; i < refs.length; i += 500) {
      const part = refs.slice(i, i + 500)
      await this.sql.run(`DELETE FROM sync_objects WHERE entity_set = ? AND ref IN (${part.map(() => '?').join(', ')})`, [set, ...part])
    }
  }

  /** Which of `registers` hold a connector-written set of this recorder (by key, one register at a time). */
  async registersOf(registers: Iterable<string>, recorder: string): Promise<{ register: string; recorder_set: string }[]> {
    const out: { register: string; recorder_set: string }[] = []
    for (const register of registers) {
      const rows = await this.sql.all<{ recorder_set: string }>(
        'SELECT recorder_set FROM sync_recorders WHERE register = ? AND recorder = ?',
        [register, recorder],
      )
      for (const r of rows) out.push({ register, recorder_set: r.recorder_set })
    }
    return out
  }

  async holdsRecorder(register: string, recorder: string): Promise<boolean> {
    return (await this.sql.all('SELECT 1 AS x FROM sync_recorders WHERE register = ? AND recorder = ?', [register, recorder])).length > 0
  }

  /** Saved rows of these recorders: recorder → its set and [Period, hash] rows. */
  async recorderRows(register: string, recorders: Iterable<string>): Promise<Map<string, { set: string; rows: [string, string][] }>> {
    const rows = await this.#inLists<{ recorder: string; recorder_set: string; rows: string }>(
      (marks) => `SELECT recorder, recorder_set, rows FROM sync_recorders WHERE register = ? AND recorder IN (${marks})`,
      [register],
      recorders,
    )
    return new Map(rows.map((r) => [r.recorder, { set: r.recorder_set, rows: JSON.parse(r.rows) as [string, string][] }]))
  }

  /** Held recorders the first load's discovery did not meet: how many, and up to `limit` after `after`. */
  async undiscoveredCount(register: string): Promise<number> {
    await this.#renewSeenStatistics()
    const r = await this.sql.all<{ n: number }>(
      `SELECT COUNT(*) AS n FROM sync_recorders r WHERE r.register = ?
         AND NOT EXISTS (SELECT 1 FROM sync_seen s WHERE s.entity_set = r.register AND s.ref = r.recorder)`,
      [register],
    )
    return Number(r[0]?.n ?? 0)
  }

  async undiscovered(register: string, after: string, limit: number): Promise<{ recorder: string; recorder_set: string }[]> {
    return this.sql.all(
      `SELECT r.recorder, r.recorder_set FROM sync_recorders r WHERE r.register = ? AND r.recorder > ?
         AND NOT EXISTS (SELECT 1 FROM sync_seen s WHERE s.entity_set = r.register AND s.ref = r.recorder)
       ORDER BY r.recorder LIMIT ${Math.floor(limit)}`,
      [register, after],
    )
  }

  /**
   * The rows written for these recorders of a register, or none (undefined: the connector no
   * longer holds a set of it); a recorder named twice keeps its last entry. One prepared
   * statement over the batch's recorders instead of a call per recorder.
   */
  async saveRecorders(
    register: string,
    entries: Iterable<readonly [recorder: string, recorderSet: string, rows: readonly [string, string][] | undefined]>,
  ): Promise<void> {
    const last = new Map<string, readonly [string, readonly [string, string][] | undefined]>()
    for (const [recorder, set, rows] of entries) last.set(recorder, [set, rows])
    const saved: SqlValue[][] = []
    for (const [recorder, [set, rows]] of last) {
      if (rows) saved.push([register, recorder, set, JSON.stringify(rows), lastPeriodOf(rows)])
      else await this.sql.run('DELETE FROM sync_recorders WHERE register = ? AND recorder = ?', [register, recorder])
    }
    await this.sql.upsertRows(
      'sync_recorders',
      ['register', 'recorder', 'recorder_set', 'rows', 'last_period'],
      ['register', 'recorder'],
      saved,
    )
  }

  /** A rescan begins: nothing read yet. */
  async clearRescan(register: string): Promise<void> {
    await this.sql.run('DELETE FROM sync_rescan WHERE register = ?', [register])
  }

  /** Rows of one rescan page: [recorder, seq, recorder set, Period, hash] ('' for a dropped row). */
  async saveRescan(register: string, rows: readonly (readonly [string, number, string, string, string])[]): Promise<void> {
    if (rows.length === 0) return
    await this.sql.transaction(() =>
      this.sql.insertRows(
        'sync_rescan',
        ['register', 'recorder', 'seq', 'recorder_set', 'period', 'hash'],
        rows.map((r) => [register, ...r]),
      ),
    )
  }

  /** Up to `limit` recorders the rescan read, after `after`, with their kept rows. */
  async rescanned(register: string, after: string, limit: number): Promise<Map<string, { set: string; rows: [string, string][] }>> {
    const recorders = await this.sql.all<{ recorder: string }>(
      `SELECT DISTINCT recorder FROM sync_rescan WHERE register = ? AND recorder > ? ORDER BY recorder LIMIT ${Math.floor(limit)}`,
      [register, after],
    )
    const out = new Map<string, { set: string; rows: [string, string][] }>()
    if (recorders.length === 0) return out
    const rows = await this.#inLists<{ recorder: string; recorder_set: string; period: string; hash: string }>(
      (marks) =>
        `SELECT recorder, recorder_set, period, hash FROM sync_rescan WHERE register = ? AND recorder IN (${marks}) ORDER BY recorder, seq`,
      [register],
      recorders.map((r) => r.recorder),
    )
    for (const r of rows) {
      const entry = out.get(r.recorder) ?? { set: r.recorder_set, rows: [] }
      if (r.hash !== '') entry.rows.push([r.period, r.hash])
      out.set(r.recorder, entry)
    }
    return out
  }

  /** Held recorders with a saved row from `from` on that the rescan did not read: up to `limit` after `after`. */
  async unread(register: string, from: string, after: string, limit: number): Promise<{ recorder: string; recorder_set: string }[]> {
    return this.sql.all(
      `SELECT r.recorder, r.recorder_set FROM sync_recorders r WHERE r.register = ? AND r.${RECENT} AND r.last_period >= ? AND r.recorder > ?
         AND NOT EXISTS (SELECT 1 FROM sync_rescan s WHERE s.register = r.register AND s.recorder = r.recorder)
       ORDER BY r.recorder LIMIT ${Math.floor(limit)}`,
      [register, from, after],
    )
  }

  /** Up to `limit` queued recorders after `after`, in recorder order. */
  async queue(register: string, after = '', limit = 1000): Promise<{ recorder: string; recorder_set: string }[]> {
    return this.sql.all(
      `SELECT recorder, recorder_set FROM sync_queue WHERE register = ? AND recorder > ? ORDER BY recorder LIMIT ${Math.floor(limit)}`,
      [register, after],
    )
  }

  async enqueue(register: string, items: readonly (readonly [recorder: string, set: string])[]): Promise<void> {
    if (items.length === 0) return
    const last = new Map(items.map(([recorder, set]) => [recorder, set]))
    await this.sql.upsertRows(
      'sync_queue',
      ['register', 'recorder', 'recorder_set'],
      ['register', 'recorder'],
      [...last].map(([r, set]) => [register, r, set]),
    )
  }

  async dequeue(register: string, recorder: string): Promise<void> {
    await this.sql.run('DELETE FROM sync_queue WHERE register = ? AND recorder = ?', [register, recorder])
  }

  async startCycle(): Promise<number> {
    const r = await this.sql.all<{ id: number | null }>('SELECT MAX(id) AS id FROM sync_cycles')
    const id = Number(r[0]?.id ?? 0) + 1
    await this.sql.run("INSERT INTO sync_cycles (id, started_at, ended_at, status) VALUES (?, ?, '', 'running')", [id, nowIso()])
    return id
  }

  async endCycle(
    id: number,
    status: 'complete' | 'failed' | 'interrupted',
    n: { sets: number; failed: number; read: number; written: number; deleted: number },
  ): Promise<void> {
    await this.sql.run(
      'UPDATE sync_cycles SET ended_at = ?, status = ?, sets = ?, failed = ?, read = ?, written = ?, deleted = ? WHERE id = ?',
      [nowIso(), status, n.sets, n.failed, n.read, n.written, n.deleted, id] as SqlValue[],
    )
  }
}

export interface LockHolder {
  readonly pid: number
  readonly host: string
}

/**
 * The one-writer lock of §2: a row renewed while the run lives, taken over after 120 s of
 * silence. Where the store has a second connection (PostgreSQL), the renewals go through
 * it: on the run's own connection a renewal due while a batch's transaction is open would
 * join that transaction (and be undone with it) and overlap its statements on one client.
 */
export class SyncLock {
  static readonly STALE_MS = 120_000
  readonly #sql: SqlPort
  readonly #token = randomUUID()
  #value = ''
  #timer: NodeJS.Timeout | undefined
  #renewer: SqlPort | undefined

  constructor(sql: SqlPort) {
    this.#sql = sql
  }

  #make(): string {
    return JSON.stringify({ pid: process.pid, host: hostname(), token: this.#token, at: Date.now() })
  }

  /** Takes the lock, or names its holder. */
  async acquire(): Promise<LockHolder | undefined> {
    const value = this.#make()
    if ((await this.#sql.run("INSERT INTO sync_meta (key, value) VALUES ('lock', ?) ON CONFLICT (key) DO NOTHING", [value])) === 1) {
      this.#value = value
    } else {
      const current = (await this.#sql.all<{ value: string }>("SELECT value FROM sync_meta WHERE key = 'lock'"))[0]?.value ?? ''
      const holder = JSON.parse(current || '{}') as { pid?: number; host?: string; at?: number }
      if (Date.now() - (holder.at ?? 0) < SyncLock.STALE_MS) return { pid: holder.pid ?? 0, host: holder.host ?? '?' }
      if ((await this.#sql.run("UPDATE sync_meta SET value = ? WHERE key = 'lock' AND value = ?", [value, current])) !== 1) {
        return { pid: holder.pid ?? 0, host: holder.host ?? '?' }
      }
      this.#value = value
    }
    this.#renewer = this.#sql.sibling ? await this.#sql.sibling() : undefined
    this.#timer = setInterval(() => void this.renew().catch(() => {}), 30_000)
    this.#timer.unref()
    return undefined
  }

  async renew(): Promise<void> {
    if (!this.#value) return
    const next = this.#make()
    const sql = this.#renewer ?? this.#sql
    if ((await sql.run("UPDATE sync_meta SET value = ? WHERE key = 'lock' AND value = ?", [next, this.#value])) === 1) this.#value = next
  }

  async release(): Promise<void> {
    clearInterval(this.#timer)
    await this.#renewer?.close().catch(() => {})
    this.#renewer = undefined
    if (this.#value) await this.#sql.run("DELETE FROM sync_meta WHERE key = 'lock' AND value = ?", [this.#value]).catch(() => {})
    this.#value = ''
  }
}
