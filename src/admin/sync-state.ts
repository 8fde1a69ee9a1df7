// The sync's state as any serving instance sees it: plain SELECTs on the connector's own
// tables (src/sync/state/tables.ts), so the serving path loads nothing of the sync itself.
import type { SqlPort } from '../store/sql.js'

interface SyncSetState {
  readonly entitySet: string
  readonly writtenTotal: number
  readonly errorsTotal: number
  /** ISO instant of the set's last error; '' when none. */
  readonly lastErrorAt: string
}

export interface SyncState {
  /** When the last complete cycle ended (ISO); null when none has completed. */
  readonly lastComplete: string | null
  readonly sets: readonly SyncSetState[]
}

async function hasTable(sql: SqlPort, name: string): Promise<boolean> {
  const rows =
    sql.dialect.name === 'sqlite'
      ? await sql.all("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?", [name])
      : await sql.all('SELECT 1 AS found WHERE to_regclass(?) IS NOT NULL', [name])
  return rows.length > 0
}

/** null when no sync has ever run on this store (no tables, or no cycle recorded). A store failure rejects. */
export async function readSyncState(sql: SqlPort): Promise<SyncState | null> {
  if (!(await hasTable(sql, 'sync_cycles'))) return null
  const [cycles] = await sql.all<{ cycles: number; complete: string | null }>(
    "SELECT COUNT(*) AS cycles, MAX(CASE WHEN status = 'complete' THEN ended_at END) AS complete FROM sync_cycles",
  )
  if (!cycles || Number(cycles.cycles) === 0) return null
  const sets = (await hasTable(sql, 'sync_sets'))
    ? await sql.all<{ entity_set: string; written_total: number | null; errors_total: number | null; last_error_at: string | null }>(
        'SELECT entity_set, written_total, errors_total, last_error_at FROM sync_sets ORDER BY entity_set',
      )
    : []
  return {
    lastComplete: cycles.complete || null,
    sets: sets.map((s) => ({
      entitySet: s.entity_set,
      writtenTotal: Number(s.written_total ?? 0),
      errorsTotal: Number(s.errors_total ?? 0),
      lastErrorAt: s.last_error_at ?? '',
    })),
  }
}
