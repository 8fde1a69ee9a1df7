// The change log of the list endpoints (decision "Changes since"): which rows of each list's
// read model a write re-printed, and which identities (the printed fields a client keys a
// row by: `Номер` and the date, or `Код`) stopped naming a row. Rows are noted while the
// rebuild runs (views/rebuild.ts) in a session table, and moved into the log at the end of
// the batch under one new position, in the same transaction as the answers generation: a
// position is drawn by an UPDATE of its `meta` row, whose lock every writer takes in turn,
// so positions are committed in their order and a reader that saw position P has seen
// every row logged at P or before. The log keeps KEEP_DAYS days; a token is accepted for
// ACCEPT_DAYS, a day less, so no row a request accepted may still read is ever pruned under it.
import { randomBytes } from 'node:crypto'
import type { ReadModel } from './define.js'
import { ANSWERS_GEN } from './generation.js'
import type { Condition } from '../store/plan.js'
import type { Row, SqlPort, SqlValue } from '../store/sql.js'
import type { TableDef } from '../store/table.js'
import { tableDdl } from '../store/schema.js'
import { whileUnchanged } from '../store/unchanged.js'

const LOG = 'change_log'
const POSITIONS = 'change_positions'
/** Rows noted by this session's rebuild, not yet in the log. */
const PENDING = '_changes'

/** Bumped when the log's layout changes: the tables are made anew, under a new store id (every token is then 410). */
const CHANGES_VERSION = 1
/** Days a token stays good: its answer lists every change since. */
export const ACCEPT_DAYS = 30
/** Days the log keeps its rows. */
const KEEP_DAYS = ACCEPT_DAYS + 1
const DAY_MS = 86_400_000

const KEY = {
  version: 'changes_version',
  store: 'changes_store',
  position: 'changes_pos',
  floor: 'changes_floor',
  reset: (model: string) => `changes_reset:${model}`,
} as const

const changeTables: readonly TableDef[] = [
  {
    name: LOG,
    // `removed` is '' for a row re-printed, else the JSON of the identity that stopped naming a row.
    columns: [
      { name: 'model', type: 'text' },
      { name: 'pos', type: 'int' },
      { name: 'ref', type: 'text' },
      { name: 'removed', type: 'text' },
    ],
    primaryKey: ['model', 'pos', 'ref', 'removed'],
    clustered: true,
  },
  {
    name: POSITIONS,
    columns: [
      { name: 'pos', type: 'int' },
      { name: 'at', type: 'text' },
    ],
    primaryKey: ['pos'],
    indexes: [['at']],
  },
]

/** The read models whose rows the log follows: those of list endpoints. */
const logged = (model: ReadModel): model is ReadModel & { identity: readonly string[] } =>
  model.pages !== undefined && model.identity !== undefined

const metaValues = async (sql: SqlPort, keys: readonly string[]): Promise<Map<string, string>> => {
  const rows = await sql.all<{ key: string; value: string }>(
    `SELECT key, value FROM meta WHERE key IN (${keys.map(() => '?').join(', ')})`,
    keys,
  )
  return new Map(rows.map((r) => [r.key, r.value]))
}

const setMeta = (sql: SqlPort, key: string, value: string) =>
  sql.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value])

/** Part of migrate: makes the log's tables, anew (under a new store id) when their version differs. */
export async function migrateChanges(sql: SqlPort): Promise<void> {
  const version = (await metaValues(sql, [KEY.version])).get(KEY.version)
  if (version === String(CHANGES_VERSION)) return
  await sql.exec(changeTables.map((t) => `DROP TABLE IF EXISTS ${t.name};\n${tableDdl(t, sql.dialect)}`).join('\n'))
  await sql.run("DELETE FROM meta WHERE key LIKE 'changes\\_%' ESCAPE '\\'")
  await setMeta(sql, KEY.store, randomBytes(9).toString('base64url'))
  await setMeta(sql, KEY.position, '0')
  await setMeta(sql, KEY.floor, '0')
  await setMeta(sql, KEY.version, String(CHANGES_VERSION))
}

/** Whether the store's log is the one this code keeps (a server cannot make it). */
export async function changesCurrent(sql: SqlPort): Promise<boolean> {
  return (await metaValues(sql, [KEY.version])).get(KEY.version) === String(CHANGES_VERSION)
}

const pendingDdl = (sql: SqlPort) =>
  `CREATE TEMP TABLE IF NOT EXISTS ${PENDING} (model ${sql.dialect.types.text}, ref ${sql.dialect.types.text}, removed ${sql.dialect.types.text})`

/** The identity a short form prints, as the JSON `removed` lists it. */
const identityOf = (fields: readonly string[], short: unknown): string => {
  const form = JSON.parse(Buffer.isBuffer(short) ? short.toString('utf8') : String(short)) as Record<string, unknown>
  return JSON.stringify(Object.fromEntries(fields.map((f) => [f, form[f] ?? null])))
}

/**
 * What a model's rebuild notes for the log. `before` runs before its stale rows are deleted,
 * with the batch's changed objects in `_touched`: only those can lose an identity (it is
 * their own number, date or code, never a referenced object's); `after` runs once the rows
 * are built again, with the re-printed ones in `_affected`.
 */
export async function changesBefore(sql: SqlPort, model: ReadModel): Promise<Map<string, string> | undefined> {
  if (!logged(model)) return undefined
  const rows = await sql.all<Row>(`SELECT ref, short FROM ${model.table} WHERE ref IN (SELECT ref FROM _touched)`)
  return new Map(rows.map((r) => [String(r.ref), identityOf(model.identity, r.short)]))
}

export async function changesAfter(sql: SqlPort, model: ReadModel, before: Map<string, string> | undefined): Promise<void> {
  if (!logged(model) || before === undefined) return
  await sql.exec(pendingDdl(sql))
  await sql.run(`INSERT INTO ${PENDING} (model, ref, removed) SELECT ?, ref, '' FROM _affected`, [model.table])
  if (before.size === 0) return
  const now = new Map(
    (await sql.selectIn<Row>(model.table, ['ref', 'short'], 'ref', [...before.keys()])).map((r) => [
      String(r.ref),
      identityOf(model.identity, r.short),
    ]),
  )
  const gone: SqlValue[][] = []
  for (const [ref, identity] of before) if (now.get(ref) !== identity) gone.push([model.table, ref, identity])
  if (gone.length > 0) await sql.insertRows(PENDING, ['model', 'ref', 'removed'], gone)
}

/** Draws the next position (the lock of its `meta` row is held to the commit). */
async function nextPosition(sql: SqlPort, now: Date): Promise<number> {
  await sql.run(`UPDATE meta SET value = CAST(CAST(value AS BIGINT) + 1 AS TEXT) WHERE key = ?`, [KEY.position])
  const pos = Number((await metaValues(sql, [KEY.position])).get(KEY.position))
  await sql.run(`INSERT INTO ${POSITIONS} (pos, at) VALUES (?, ?)`, [pos, now.toISOString()])
  return pos
}

/**
 * Moves what the batch's rebuild noted into the log under a new position, and prunes what
 * is past keeping; part of the batch's transaction (import/batch.ts). Nothing noted, no position.
 */
export async function recordChanges(sql: SqlPort, models: readonly ReadModel[], now = new Date()): Promise<void> {
  await sql.exec(pendingDdl(sql))
  const [noted] = await sql.all<{ n: number }>(`SELECT count(*) AS n FROM ${PENDING}`)
  if (Number(noted?.n ?? 0) === 0) return
  const pos = await nextPosition(sql, now)
  await sql.run(`INSERT INTO ${LOG} (model, pos, ref, removed) SELECT DISTINCT model, CAST(? AS BIGINT), ref, removed FROM ${PENDING}`, [
    pos,
  ])
  await sql.run(sql.dialect.empty(PENDING))
  await prune(sql, models, now)
}

/**
 * The models were rebuilt whole (migrate, a demo's deferred build): what they print may
 * have changed everywhere, and what they printed before is not known, so a token older
 * than now is refused for them (410: reload).
 */
export async function resetChanges(sql: SqlPort, models: readonly ReadModel[], now = new Date()): Promise<void> {
  const reset = models.filter(logged)
  if (reset.length === 0) return
  const pos = await nextPosition(sql, now)
  for (const m of reset) {
    await setMeta(sql, KEY.reset(m.table), String(pos))
    await sql.run(`DELETE FROM ${LOG} WHERE model = ?`, [m.table])
  }
}

async function prune(sql: SqlPort, models: readonly ReadModel[], now: Date): Promise<void> {
  const before = (days: number) => new Date(now.getTime() - days * DAY_MS).toISOString()
  const last = async (days: number) =>
    Number((await sql.all<{ pos: number | null }>(`SELECT max(pos) AS pos FROM ${POSITIONS} WHERE at < ?`, [before(days)]))[0]?.pos ?? 0)
  const floor = await last(ACCEPT_DAYS)
  if (floor <= Number((await metaValues(sql, [KEY.floor])).get(KEY.floor) ?? 0)) return
  await setMeta(sql, KEY.floor, String(floor))
  const kept = await last(KEEP_DAYS)
  if (kept === 0) return
  // By model: each delete is a range of the log's key.
  for (const m of models.filter(logged)) await sql.run(`DELETE FROM ${LOG} WHERE model = ? AND pos <= ?`, [m.table, kept])
  await sql.run(`DELETE FROM ${POSITIONS} WHERE pos <= ?`, [kept])
}

/** Where a model's log stands: the store's id, its position now, and the oldest position a token may name. */
export interface ChangesState {
  readonly store: string
  readonly position: number
  readonly oldest: number
}

/**
 * The answers generation and the log's position, read by one statement: the serving process
 * reads them together (serving/generations.ts), so a plain answer's token costs no read of its own.
 * Every conditional request asks it, so a SQLite reader keeps it while it sees no commit and
 * calls at once share a read (store/unchanged.ts).
 */
export function generationAndPosition(sql: SqlPort): Promise<{ gen: string; store: string; position: number }> {
  return whileUnchanged(sql, 'generation and position', async () => {
    const meta = await metaValues(sql, [ANSWERS_GEN, KEY.store, KEY.position])
    return { gen: meta.get(ANSWERS_GEN) ?? '', store: meta.get(KEY.store) ?? '', position: Number(meta.get(KEY.position) ?? 0) }
  })
}

export async function changesState(sql: SqlPort, model: string): Promise<ChangesState> {
  const meta = await metaValues(sql, [KEY.store, KEY.position, KEY.floor, KEY.reset(model)])
  return {
    store: meta.get(KEY.store) ?? '',
    position: Number(meta.get(KEY.position) ?? 0),
    oldest: Math.max(Number(meta.get(KEY.floor) ?? 0), Number(meta.get(KEY.reset(model)) ?? 0)),
  }
}

/** The condition keeping the rows of `model` re-printed after position `since`. */
export const changedAfter = (model: string, since: number): Condition => ({
  kind: 'sql',
  text: `ref IN (SELECT ref FROM ${LOG} WHERE model = ? AND pos > ? AND removed = '')`,
  params: [model, since],
})

/** The identities (JSON texts) that stopped naming a row of `model` after position `since`, in the order they did. */
export async function removedAfter(sql: SqlPort, model: string, since: number): Promise<string[]> {
  const rows = await sql.all<{ removed: string }>(
    `SELECT removed FROM ${LOG} WHERE model = ? AND pos > ? AND removed <> '' GROUP BY removed ORDER BY max(pos), removed`,
    [model, since],
  )
  return rows.map((r) => r.removed)
}
