// The connector's own tables (sync.md §7.7): names begin with `sync_`, the API never reads
// them, and they live in the store so that any process — a resumed sync, `--status`, a
// serving instance's readiness and metrics — sees the same state. The password is never here.
import { tableDdl } from '../../store/schema.js'
import type { TableDef } from '../../store/table.js'
import type { SqlPort } from '../../store/sql.js'

const text = (name: string) => ({ name, type: 'text' as const })
const int = (name: string) => ({ name, type: 'int' as const })

/** The recorders with a saved row (sync_recorders `last_period`), as the partial index and the statements reading through it say. */
export const RECENT = "last_period <> ''"

export const SYNC_TABLES: readonly TableDef[] = [
  // Cached $metadata model and hash, the source URL, the lock.
  { name: 'sync_meta', columns: [text('key'), text('value')], primaryKey: ['key'] },
  {
    name: 'sync_cycles',
    columns: [
      text('started_at'),
      text('ended_at'),
      text('status'),
      int('sets'),
      int('failed'),
      int('read'),
      int('written'),
      int('deleted'),
      int('id'),
    ],
    primaryKey: ['id'],
  },
  {
    // One row per entity set: what --status prints, and `state` (JSON) for resuming;
    // `last_full_scan`: when the last complete scan of every window began (§7.4).
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
      text('last_full_scan'),
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
    // Per register and recorder: the Period and hash of each row written (JSON), for the
    // rescan, and the latest of those Periods ('' when none), so that the rescan reaches
    // only the recorders with rows in its days. Only those are indexed by it: most recorders
    // have no row in the rescan's days, and an entry each, at a random place of the index,
    // was one more page a first load's batch wrote for every record set.
    name: 'sync_recorders',
    columns: [text('register'), text('recorder'), text('recorder_set'), text('rows'), text('last_period')],
    primaryKey: ['register', 'recorder'],
    clustered: true,
    indexes: [{ columns: ['register', 'last_period'], where: RECENT }],
  },
  {
    name: 'sync_queue',
    columns: [text('register'), text('recorder'), text('recorder_set')],
    primaryKey: ['register', 'recorder'],
  },
  {
    // Scratch of the scan in progress: the refs (recorders, for a register's discovery) it has
    // met, for its dedupe and its deletions (§7.2, §7.6). Emptied when a scan of the set begins.
    name: 'sync_seen',
    columns: [text('entity_set'), text('ref')],
    primaryKey: ['entity_set', 'ref'],
    clustered: true,
  },
  {
    // Scratch of a register's rescan (§7.5 step 2): per row read, its recorder and, when the
    // row is kept, its Period and the hash of its mapped form ('' when dropped).
    name: 'sync_rescan',
    columns: [text('register'), text('recorder'), int('seq'), text('recorder_set'), text('period'), text('hash')],
    primaryKey: ['register', 'recorder', 'seq'],
    clustered: true,
  },
]

/** Columns added after a table was first released: an older store gets them on its next run. */
const ADDED: readonly { readonly table: string; readonly column: string; readonly backfill?: (sql: SqlPort) => Promise<void> }[] = [
  { table: 'sync_sets', column: 'last_full_scan' },
  { table: 'sync_recorders', column: 'last_period', backfill: backfillLastPeriod },
]

/** The latest Period of a recorder's saved rows, '' when it has none. */
export const lastPeriodOf = (rows: readonly (readonly [string, string])[]): string => rows.reduce((m, [p]) => (p > m ? p : m), '')

async function backfillLastPeriod(sql: SqlPort): Promise<void> {
  let after = ['', '']
  for (;;) {
    const rows = await sql.all<{ register: string; recorder: string; rows: string }>(
      `SELECT register, recorder, rows FROM sync_recorders WHERE (register > ? OR (register = ? AND recorder > ?)) ORDER BY register, recorder LIMIT 1000`,
      [after[0]!, after[0]!, after[1]!],
    )
    if (rows.length === 0) return
    await sql.transaction(async () => {
      for (const r of rows) {
        const last = lastPeriodOf(JSON.parse(r.rows) as [string, string][])
        if (last)
          await sql.run('UPDATE sync_recorders SET last_period = ? WHERE register = ? AND recorder = ?', [last, r.register, r.recorder])
      }
    })
    const end = rows.at(-1)!
    after = [end.register, end.recorder]
  }
}

async function columnsOf(sql: SqlPort, table: string): Promise<Set<string>> {
  const rows =
    sql.dialect.name === 'sqlite'
      ? await sql.all<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
      : await sql.all<{ name: string }>(
          'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?',
          [table],
        )
  return new Set(rows.map((r) => r.name))
}

export async function ensureSyncTables(sql: SqlPort): Promise<void> {
  await sql.exec(SYNC_TABLES.map((t) => tableDdl({ ...t, indexes: [] }, sql.dialect)).join('\n'))
  for (const a of ADDED) {
    if ((await columnsOf(sql, a.table)).has(a.column)) continue
    await sql.exec(`ALTER TABLE ${a.table} ADD COLUMN ${a.column} ${sql.dialect.types.text} NOT NULL DEFAULT ''`)
    await a.backfill?.(sql)
  }
  // Indexes last: they may name an added column. A store of an earlier docgate indexed every recorder.
  await sql.exec('DROP INDEX IF EXISTS sync_recorders__register_last_period')
  await sql.exec(
    SYNC_TABLES.map((t) =>
      tableDdl(t, sql.dialect)
        .split('\n')
        .filter((l) => l.startsWith('CREATE INDEX'))
        .join('\n'),
    ).join('\n'),
  )
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
