// Reads and writes of the connector's tables. Writes that belong to a batch run inside the
// batch's transaction (the caller's), so an object and its saved version commit together.
import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import type { SqlPort, SqlValue } from '../../store/sql.js'

export const nowIso = (): string => new Date().toISOString()

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

export const emptySetState = (): SetState => ({ firstLoadDone: false, windowsDone: [], pageSize: 20, dayMonths: [], noSelect: false, recorderSets: [] })

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
}

export interface Held {
  readonly version: string
  readonly hash: string
  readonly extra: string
}

export class SyncStore {
  constructor(readonly sql: SqlPort) {}

  async meta(key: string): Promise<string | undefined> {
    return (await this.sql.all<{ value: string }>('SELECT value FROM sync_meta WHERE key = ?', [key]))[0]?.value
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.sql.run('INSERT INTO sync_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value])
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

  async setDone(set: string, fields: { complete?: string; error?: string; written: number; errors: number }): Promise<void> {
    const objects = await this.heldCount(set)
    const at = nowIso()
    await this.sql.run(
      `UPDATE sync_sets SET objects = ?, written_total = written_total + ?, errors_total = errors_total + ?,
         last_complete_scan = CASE WHEN ? = '' THEN last_complete_scan ELSE ? END,
         last_error = CASE WHEN ? = '' THEN last_error ELSE ? END,
         last_error_at = CASE WHEN ? = '' THEN last_error_at ELSE ? END
       WHERE entity_set = ?`,
      [objects, fields.written, fields.errors, fields.complete ?? '', fields.complete ?? '', fields.error ?? '', fields.error ?? '', fields.error ?? '', at, set],
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

  /** Everything saved for a set: ref → version, hash, extra. */
  async held(set: string): Promise<Map<string, Held>> {
    const rows = await this.sql.all<{ ref: string; version: string; hash: string; extra: string }>(
      'SELECT ref, version, hash, extra FROM sync_objects WHERE entity_set = ?',
      [set],
    )
    return new Map(rows.map((r) => [r.ref, { version: r.version, hash: r.hash, extra: r.extra }]))
  }

  async saveObjects(set: string, rows: readonly (readonly [ref: string, version: string, hash: string, extra: string])[]): Promise<void> {
    if (rows.length === 0) return
    // One upsert per row instead of a delete and an insert; a ref given twice keeps its last row
    // (PostgreSQL refuses to update one row twice in a statement).
    const last = new Map(rows.map((r) => [r[0], r]))
    await this.sql.upsertRows('sync_objects', ['entity_set', 'ref', 'version', 'hash', 'extra'], ['entity_set', 'ref'], [...last.values()].map((r) => [set, ...r]))
  }

  async forgetObjects(set: string, refs: readonly string[]): Promise<void> {
    for (let i = 0; i < refs.length; i += 500) {
      const part = refs.slice(i, i + 500)
      await this.sql.run(`DELETE FROM sync_objects WHERE entity_set = ? AND ref IN (${part.map(() => '?').join(', ')})`, [set, ...part])
    }
  }

  /** Registers holding a connector-written set of this recorder. */
  async registersOf(recorder: string): Promise<{ register: string; recorder_set: string }[]> {
    return this.sql.all('SELECT register, recorder_set FROM sync_recorders WHERE recorder = ?', [recorder])
  }

  async recorders(register: string): Promise<Map<string, { set: string; rows: [string, string][] }>> {
    const rows = await this.sql.all<{ recorder: string; recorder_set: string; rows: string }>(
      'SELECT recorder, recorder_set, rows FROM sync_recorders WHERE register = ?',
      [register],
    )
    return new Map(rows.map((r) => [r.recorder, { set: r.recorder_set, rows: JSON.parse(r.rows) as [string, string][] }]))
  }

  async saveRecorder(register: string, recorder: string, recorderSet: string, rows: readonly [string, string][] | undefined): Promise<void> {
    if (!rows) {
      await this.sql.run('DELETE FROM sync_recorders WHERE register = ? AND recorder = ?', [register, recorder])
      return
    }
    await this.sql.run(
      `INSERT INTO sync_recorders (register, recorder, recorder_set, rows) VALUES (?, ?, ?, ?)
       ON CONFLICT (register, recorder) DO UPDATE SET recorder_set = excluded.recorder_set, rows = excluded.rows`,
      [register, recorder, recorderSet, JSON.stringify(rows)],
    )
  }

  async queue(register: string): Promise<{ recorder: string; recorder_set: string }[]> {
    return this.sql.all('SELECT recorder, recorder_set FROM sync_queue WHERE register = ? ORDER BY recorder', [register])
  }

  async enqueue(register: string, items: readonly (readonly [recorder: string, set: string])[]): Promise<void> {
    for (const [recorder, set] of items) {
      await this.sql.run('INSERT INTO sync_queue (register, recorder, recorder_set) VALUES (?, ?, ?) ON CONFLICT (register, recorder) DO NOTHING', [register, recorder, set])
    }
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

  async endCycle(id: number, status: 'complete' | 'failed' | 'interrupted', n: { sets: number; failed: number; read: number; written: number; deleted: number }): Promise<void> {
    await this.sql.run('UPDATE sync_cycles SET ended_at = ?, status = ?, sets = ?, failed = ?, read = ?, written = ?, deleted = ? WHERE id = ?', [
      nowIso(),
      status,
      n.sets,
      n.failed,
      n.read,
      n.written,
      n.deleted,
      id,
    ] as SqlValue[])
  }
}

export interface LockHolder {
  readonly pid: number
  readonly host: string
}

/** The one-writer lock of §2: a row renewed while the run lives, taken over after 120 s of silence. */
export class SyncLock {
  static readonly STALE_MS = 120_000
  readonly #sql: SqlPort
  readonly #token = randomUUID()
  #value = ''
  #timer: NodeJS.Timeout | undefined

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
    this.#timer = setInterval(() => void this.renew().catch(() => {}), 30_000)
    this.#timer.unref()
    return undefined
  }

  async renew(): Promise<void> {
    if (!this.#value) return
    const next = this.#make()
    if ((await this.#sql.run("UPDATE sync_meta SET value = ? WHERE key = 'lock' AND value = ?", [next, this.#value])) === 1) this.#value = next
  }

  async release(): Promise<void> {
    clearInterval(this.#timer)
    if (this.#value) await this.#sql.run("DELETE FROM sync_meta WHERE key = 'lock' AND value = ?", [this.#value]).catch(() => {})
    this.#value = ''
  }
}
