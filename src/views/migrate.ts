// Creates the schema on a writable store and keeps read models in step with the code
// that builds them: a changed read-model definition is dropped and rebuilt whole.
import { createHash } from 'node:crypto'
import type { ReadModel } from './define.js'
import type { DerivedTable, ViewCatalog } from './define.js'
import { FULL_COLUMNS } from './full-forms.js'
import { PAGES_VERSION, readyPagesTable } from './pages.js'
import { rebuildReadModels } from './rebuild.js'
import { newAnswersGen } from './generation.js'
import { changesCurrent, migrateChanges, resetChanges } from './changes.js'
import { migrateReady } from './ready-answers.js'
import { readyTable } from './ready-bytes.js'
import { rebuildCashAccounts } from './cash/accounts.js'
import { SCHEMA_VERSION, modelTables, tableDdl } from '../store/schema.js'
import type { TableDef } from '../store/table.js'
import type { SqlPort } from '../store/sql.js'
import { suffixDdl, suffixTable } from '../store/suffix.js'
import { WORD_ITEMS_VERSION, dropWordItemsDdl, dropWordsDdl, wordItemsDdl, wordsDdl } from '../store/words.js'
import { missingTrigramIndexes, setUpTrigrams } from '../store/trigram.js'

export function readModelTable(model: ReadModel): TableDef {
  return {
    name: model.table,
    columns: [
      { name: 'ref', type: 'text' },
      { name: 'short', type: 'blob' },
      ...model.columns,
      // `full_form` is NULL for a document its builder left out of `data`; the other two are '' for none.
      ...(model.full ? FULL_COLUMNS.map((name) => ({ name, type: name === 'full_form' ? ('blob' as const) : ('text' as const) })) : []),
    ],
    primaryKey: model.rowKey ? ['ref', model.rowKey] : ['ref'],
    // An owner's rows are read together: stored in key order where the engine can (the
    // trigram index of a searched model needs rowids, so only a model without one).
    ...(model.rowKey && !model.search?.length ? { clustered: true } : {}),
    indexes: model.indexes ?? [],
  }
}

const signature = (model: ReadModel): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        model.columns,
        model.indexes ?? [],
        model.search ?? [],
        model.select,
        model.version,
        model.full?.signature ?? null,
        model.pages ?? null,
        PAGES_VERSION,
        // Only where given, so that the models without them keep their signatures (and stores their rows).
        ...(model.rowKey || model.traces ? [model.rowKey ?? null, model.traces ?? [], readModelTable(model).clustered ?? false] : []),
        ...(model.suffixed ? [{ suffixed: model.suffixed }] : []),
        ...(model.words ? [{ words: model.words }] : []),
        // JSON leaves out the item builder (code): `version` says when what it prints changes.
        ...(model.wordItems ? [{ wordItems: model.wordItems, version: WORD_ITEMS_VERSION }] : []),
      ]),
    )
    .digest('hex')

export async function getMeta(sql: SqlPort, key: string): Promise<string | undefined> {
  const rows = await sql.all<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key])
  return rows[0]?.value
}

export async function setMeta(sql: SqlPort, key: string, value: string): Promise<void> {
  await sql.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value])
}

export async function deleteMeta(sql: SqlPort, key: string): Promise<void> {
  await sql.run('DELETE FROM meta WHERE key = ?', [key])
}

/** Set while batches finished with `ready: 'later'` await `rebuildDeferred` (import/batch.ts). */
export const READY_PENDING = 'ready_pending'

export interface MigrateOptions {
  /** Told what the store had to do without (pg_trgm not creatable): the migration goes on. */
  readonly warn?: (message: string) => void
}

const stderrWarning = (message: string): void => console.error(`warning: ${message}`)

/** Idempotent: creates what is missing and rebuilds read models whose definition changed. */
export async function migrate(sql: SqlPort, views: ViewCatalog, options: MigrateOptions = {}): Promise<void> {
  const tables = [...modelTables(), readyPagesTable, readyTable]
  await sql.exec(tables.map((t) => tableDdl(t, sql.dialect)).join('\n'))
  const version = await getMeta(sql, 'schema_version')
  if (version !== undefined && version !== String(SCHEMA_VERSION)) {
    throw new Error(`the store has schema version ${version}; this docgate needs ${SCHEMA_VERSION}: import the data into a new store`)
  }
  await setMeta(sql, 'schema_version', String(SCHEMA_VERSION))
  // Pages of another layout may lack a column; every read model is rebuilt then (PAGES_VERSION is in its signature), pages and all.
  if ((await getMeta(sql, 'pages_version')) !== String(PAGES_VERSION)) {
    await sql.exec(`DROP TABLE ${readyPagesTable.name};\n${tableDdl(readyPagesTable, sql.dialect)}`)
    await setMeta(sql, 'pages_version', String(PAGES_VERSION))
  }
  await migrateChanges(sql)
  await keepWhole(sql, tables)
  const trigrams = await setUpTrigrams(sql, options.warn ?? stderrWarning)
  // A load that deferred its read models stopped before building them: every one is rebuilt.
  const pending = (await getMeta(sql, READY_PENDING)) !== undefined
  const stale: ReadModel[] = []
  for (const model of views.models) {
    const search = model.search ?? []
    // An index that could not be made before (no pg_trgm then) is made as soon as it can be.
    const index = trigrams && search.length > 0 ? sql.dialect.trigram.create(model.table, search) : ''
    const sig = signature(model)
    if (!pending && (await getMeta(sql, `read_model:${model.table}`)) === sig) {
      if (index && (await missingTrigramIndexes(sql, [model])).length > 0) {
        await sql.exec(index)
        // An index the engine does not fill itself starts empty: give it the rows already there.
        const sync = sql.dialect.trigram.sync
        if (sync) await sql.run(sync.remember(model.table, search))
      }
      continue
    }
    const suffixed = model.suffixed ?? []
    const words = model.words && model.rowKey ? wordsDdl(model.table, model.rowKey, model.words, sql.dialect) : ''
    const items = model.wordItems ? wordItemsDdl(model.table, model.wordItems, sql.dialect) : ''
    await sql.exec(
      `${sql.dialect.trigram.drop(model.table)}\n${suffixed.map((c) => `DROP TABLE IF EXISTS ${suffixTable(model.table, c)};`).join('\n')}\n` +
        `${dropWordsDdl(model.table)}\n${dropWordItemsDdl(model.table)}\n` +
        `DROP TABLE IF EXISTS ${model.table};\n${tableDdl(readModelTable(model), sql.dialect)}\n${index}\n${suffixDdl(model.table, suffixed, sql.dialect)}\n${words}\n${items}`,
    )
    await setMeta(sql, `read_model:${model.table}`, sig)
    stale.push(model)
  }
  if (stale.length > 0) {
    await rebuildReadModels(sql, stale, 'all')
    await resetChanges(sql, stale)
  }
  await migrateDerived(sql, views.derived)
  await migrateReady(
    sql,
    stale.map((m) => m.table),
    views.answers,
  )
  if (pending) {
    await rebuildCashAccounts(sql)
    await deleteMeta(sql, READY_PENDING)
  }
  // A rebuilt model or answer may print differently: answers kept by servers are stale.
  await newAnswersGen(sql)
}

/**
 * The `whole` columns (schema.ts) kept uncompressed where the engine compresses. The ALTER
 * locks its table until the migration commits, so it runs only for a column not yet so.
 */
async function keepWhole(sql: SqlPort, tables: readonly TableDef[]): Promise<void> {
  const uncompressed = sql.dialect.uncompressed
  if (!uncompressed) return
  for (const table of tables) {
    const whole = table.columns.filter((c) => c.whole).map((c) => c.name)
    if (whole.length === 0) continue
    const kept = new Set((await sql.all<{ name: string }>(uncompressed.stored, [table.name])).map((r) => r.name))
    for (const column of whole) if (!kept.has(column)) await sql.exec(uncompressed.keep(table.name, column))
  }
}

/**
 * What a writing command's migrate would still rebuild: read models, derived tables and
 * ready answers stored by an earlier definition. A read-only server cannot rebuild them,
 * and would print old forms or fail on a missing column.
 */
export async function outdated(sql: SqlPort, views: ViewCatalog): Promise<string[]> {
  const stale: string[] = []
  if ((await getMeta(sql, READY_PENDING)) !== undefined) stale.push('read models (a demo stopped before building them)')
  if (!(await changesCurrent(sql))) stale.push('the change log')
  for (const model of views.models) if ((await getMeta(sql, `read_model:${model.table}`)) !== signature(model)) stale.push(model.table)
  for (const d of views.derived) if ((await getMeta(sql, `derived:${d.name}`)) !== derivedSignature(d)) stale.push(d.name)
  for (const answer of views.answers) if ((await getMeta(sql, `ready:${answer.name}`)) !== String(answer.version)) stale.push(answer.name)
  return stale
}

const derivedSignature = (d: DerivedTable): string =>
  createHash('sha256')
    .update(JSON.stringify([d.tables, d.source, d.sourceIndexes ?? [], d.keyColumns, d.version]))
    .digest('hex')

/** Derived tables (views/derived.ts) follow their definition like read models do. */
async function migrateDerived(sql: SqlPort, tables: readonly DerivedTable[]): Promise<void> {
  for (const d of tables) {
    const name = (cols: readonly string[]) => `${d.source}__${cols.join('_')}`
    const indexes = [
      ...(d.retiredSourceIndexes ?? []).map((cols) => `DROP INDEX IF EXISTS ${name(cols)};`),
      ...(d.sourceIndexes ?? []).map((cols) => `CREATE INDEX IF NOT EXISTS ${name(cols)} ON ${d.source} (${cols.join(', ')});`),
    ]
    await sql.exec(indexes.join('\n'))
    const sig = derivedSignature(d)
    if ((await getMeta(sql, `derived:${d.name}`)) === sig) continue
    await sql.exec(d.tables.map((t) => `DROP TABLE IF EXISTS ${t.name};\n${tableDdl(t, sql.dialect)}`).join('\n'))
    await setMeta(sql, `derived:${d.name}`, sig)
    await d.update(sql, 'all')
  }
}
