// The connector's own tables (sync.md §7.7): names begin with `sync_`, the API never reads
// them, and they live in the store so that any process — a resumed sync, `--status`, a
// serving instance's readiness and metrics — sees the same state. The password is never here.
import { tableDdl } from '../../store/schema.js'
import type { TableDef } from '../../store/table.js'
import type { SqlPort } from '../../store/sql.js'

const text = (name: string) => ({ name, type: 'text' as const })
const int = (name: string) => ({ name, type: 'int' as const })

export const SYNC_TABLES: readonly TableDef[] = [
  // Cached $metadata model and hash, the source URL, the lock.
  { name: 'sync_meta', columns: [text('key'), text('value')], primaryKey: ['key'] },
  {
    name: 'sync_cycles',
    columns: [text('started_at'), text('ended_at'), text('status'), int('sets'), int('failed'), int('read'), int('written'), int('deleted'), int('id')],
    primaryKey: ['id'],
  },
  {
    // One row per entity set: what --status prints, and `state` (JSON) for resuming.
    name: 'sync_sets',
    columns: [
      text('entity_set'),
      text('type'),
      text('last_complete_scan'),
      text('last_error'),
      text('last_error_at'),
      int('objects'),
      int('written_total'),
      int('errors_total'),
      text('state'),
    ],
    primaryKey: ['entity_set'],
  },
  {
    // Per object read: its DataVersion and the hash of the form last written ('' = read but
    // not written by sync, e.g. a folder §4 leaves out); `extra` holds what a later cycle
    // needs without the source (a bank account's closing date).
    name: 'sync_objects',
    columns: [text('entity_set'), text('ref'), text('version'), text('hash'), text('extra')],
    primaryKey: ['entity_set', 'ref'],
    clustered: true,
  },
  {
    // Per register and recorder: the Period and hash of each row written (JSON), for the rescan.
    name: 'sync_recorders',
    columns: [text('register'), text('recorder'), text('recorder_set'), text('rows')],
    primaryKey: ['register', 'recorder'],
    clustered: true,
  },
  {
    name: 'sync_queue',
    columns: [text('register'), text('recorder'), text('recorder_set')],
    primaryKey: ['register', 'recorder'],
  },
]

export async function ensureSyncTables(sql: SqlPort): Promise<void> {
  await sql.exec(SYNC_TABLES.map((t) => tableDdl(t, sql.dialect)).join('\n'))
}

/** Whether the store has sync state at all (a read-only handle may not see the tables). */
export async function hasSyncTables(sql: SqlPort): Promise<boolean> {
  try {
    await sql.all('SELECT 1 FROM sync_cycles LIMIT 1')
    return true
  } catch {
    return false
  }
}
