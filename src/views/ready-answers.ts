// Ready answers: whole responses kept as bytes (views/ready-bytes.ts) because
// building them per request costs far more than sending them (the unfiltered materials
// tree: 20 MB from 50,000 read-model rows). Rebuilt at most once per import transaction,
// at its end, and only when what the transaction touched can change them: a sync that
// writes documents in batches of 1,000 never rebuilds the tree, one that writes a
// nomenclature item rebuilds it once for its batch.
import { dropReady, hasReady, readyTable, writeReady } from './ready-bytes.js'
import { ALL_TABLE_TYPES } from '../model/objects.js'
import { allowsType } from '../model/define.js'
import { tableDdl } from '../store/schema.js'
import type { SqlPort } from '../store/sql.js'
import type { ReadyAnswer } from './define.js'
import type { Touched } from './rebuild.js'

const TOUCHED = '_ready_touched'

/**
 * Whether the transaction may have changed what `answer` prints: an object of its own type
 * was stored or removed, or an object that one of its rows references through a printed
 * column was (e.g. a unit renamed; a counterparty no item names as supplier is not).
 */
async function affected(sql: SqlPort, answer: ReadyAnswer, touched: Touched): Promise<boolean> {
  const { table, type, columns } = answer.source
  if ([...touched.types].some((t) => allowsType([type], t))) return true
  const decl = ALL_TABLE_TYPES.find((t) => t.table === table)
  const traced = columns.filter((col) => {
    const a = decl?.attrs.find((x) => x.col === col)
    const targets = a?.kind === 'ref' ? [a.target] : a?.kind === 'composite' ? a.targets : []
    return [...touched.types].some((t) => allowsType(targets, t))
  })
  if (traced.length === 0) return false
  await sql.fillKeys(TOUCHED, touched.refs)
  const hits = await sql.all(
    `SELECT 1 AS hit FROM ${table} WHERE ${traced.map((c) => `${c} IN (SELECT ref FROM ${TOUCHED})`).join(' OR ')} LIMIT 1`,
  )
  return hits.length > 0
}

/**
 * After the read models of an import transaction: rebuilds each ready answer it may have
 * changed. With `drop` (a writer of many batches, such as sync) such an answer is dropped
 * instead, so no batch pays a build that grows with the store: until `restoreReadyAnswers`
 * builds it once, its endpoint computes it per request, with the same bytes.
 */
export async function refreshReadyAnswers(
  sql: SqlPort,
  touched: Touched | 'all',
  answers: readonly ReadyAnswer[],
  mode: 'rebuild' | 'drop' = 'rebuild',
): Promise<void> {
  for (const answer of answers) {
    if (touched !== 'all' && !(await affected(sql, answer, touched))) continue
    if (mode === 'drop') await dropReady(sql, answer.name)
    else await writeReady(sql, answer.name, await answer.build(sql))
  }
}

/** Builds each ready answer that a `drop` left without bytes (at the end of a sync set). */
export async function restoreReadyAnswers(sql: SqlPort, answers: readonly ReadyAnswer[]): Promise<void> {
  for (const answer of answers) if (!(await hasReady(sql, answer.name))) await writeReady(sql, answer.name, await answer.build(sql))
}

/**
 * From migrate: creates the ready table and rebuilds an answer whose definition changed or
 * whose read model migrate has just rebuilt (its rows may print differently now).
 */
export async function migrateReady(sql: SqlPort, rebuiltModels: readonly string[], answers: readonly ReadyAnswer[]): Promise<void> {
  await sql.exec(tableDdl(readyTable, sql.dialect))
  for (const answer of answers) {
    const key = `ready:${answer.name}`
    const version = String(answer.version)
    const [stored] = await sql.all<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key])
    if (stored?.value === version && !rebuiltModels.includes(answer.readModel)) continue
    await writeReady(sql, answer.name, await answer.build(sql))
    await sql.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, version])
  }
}
