// Rebuilds read-model rows — short and full forms — for every object whose printed form
// may have changed: the changed objects themselves, every object that references one of
// them, and what a full form prints beyond its own columns (fullTraces).
import { ALL_TABLE_TYPES } from '../model/objects.js'
import { allowsType } from '../model/define.js'
import type { FullResult, ReadModel, RequestContext } from './define.js'
import { FULL_COLUMNS, fullForms, readyForm } from './full-forms.js'
import { bucketsOf, rebuildPages } from './pages.js'
import type { PagesMode } from './pages.js'
import { changesAfter, changesBefore } from './changes.js'
import { keyTable } from '../store/sql.js'
import type { Dialect, Row, SqlPort, SqlValue } from '../store/sql.js'
import { indexedColumn } from '../store/schema.js'
import { SuffixEntries } from '../store/suffix.js'
import { WordEntries, WordItemEntries } from '../store/words.js'

const BATCH = 2000
/** Past this many changed objects of a model's own type, rebuilding it whole is cheaper. */
const FULL_REBUILD = 20_000
/** Rows rebuilt in one batch past which its trigram index is merged (store/sql.ts `optimize`). */
const MERGE_AFTER = 5_000

/** What an import changed: references, and the types of the objects behind them. */
export interface Touched {
  readonly refs: ReadonlySet<string>
  readonly types: ReadonlySet<string>
  /** Whether owners were touched through links (refs whose types are not in `types`); unknown = yes. */
  readonly owners?: boolean
}

/**
 * Columns of the model's source that may hold a changed reference: `ref` always (the
 * object itself, and owners of changed attachments or payment records arrive as refs),
 * plus each reference attribute whose target type was touched.
 */
function columnsToTrace(source: string, types: ReadonlySet<string>): string[] {
  const decl = ALL_TABLE_TYPES.find((t) => t.table === source)
  if (!decl) return ['ref']
  const cols = ['ref']
  for (const a of decl.attrs) {
    const targets = a.kind === 'ref' ? [a.target] : a.kind === 'composite' ? a.targets : []
    if ([...types].some((t) => allowsType(targets, t))) cols.push(a.col)
  }
  if (decl.hierarchical && types.has(decl.type)) cols.push('parent')
  return cols
}

const ownType = (source: string): string | undefined => ALL_TABLE_TYPES.find((t) => t.table === source)?.type

/** `column` of `table` holds one of the batch's touched refs: by its index where it has one. */
const touchedIn = (dialect: Dialect, table: string, column: string): string =>
  indexedColumn(table, column) ? dialect.inKeys(column, '_touched') : `${column} IN (SELECT ref FROM _touched)`

const touches = (types: ReadonlySet<string>, targets: readonly string[]): boolean => [...types].some((t) => allowsType(targets, t))

/**
 * Selects of source refs whose full form may have changed beyond the model's own columns:
 * through a reference in a tabular row (a renamed material prints in the document's
 * rows) and through the endpoint's own traces (planned cost, linked documents).
 */
function fullTraces(model: ReadModel, types: ReadonlySet<string>, dialect: Dialect): string[] {
  if (!model.full) return (model.traces ?? []).filter((t) => touches(types, t.types)).map((t) => t.sql)
  const decl = ALL_TABLE_TYPES.find((t) => t.table === model.source)
  const traces: string[] = []
  for (const part of decl?.tabular ?? []) {
    for (const a of part.attrs) {
      const targets = a.kind === 'ref' ? [a.target] : a.kind === 'composite' ? a.targets : []
      if (touches(types, targets)) traces.push(`SELECT owner AS ref FROM ${part.table} WHERE ${touchedIn(dialect, part.table, a.col)}`)
    }
  }
  for (const t of model.full.traces) if (touches(types, t.types)) traces.push(t.sql)
  return traces
}

/**
 * Whether any row of the model can be affected: its own objects changed, an object it
 * references changed, or an owner was touched through a link. A small sync batch touches
 * one type, and each model it cannot see would cost its statements for nothing.
 */
function canSee(model: ReadModel, touched: Touched, dialect: Dialect): boolean {
  if (touched.owners !== false) return true
  const type = ownType(model.source)
  if (type === undefined) return true
  if ([...touched.types].some((t) => allowsType([type], t))) return true
  return columnsToTrace(model.source, touched.types).length > 1 || fullTraces(model, touched.types, dialect).length > 0
}

/** `pagesMode`: how the ready pages of the rows rebuilt are left (views/pages.ts `PagesMode`); a whole model's are always joined. */
export async function rebuildReadModels(
  sql: SqlPort,
  models: readonly ReadModel[],
  touched: Touched | 'all',
  pagesMode: PagesMode = 'build',
): Promise<number> {
  await sql.exec(keyTable(sql.dialect, '_affected'))
  let traced = false
  let built = 0
  for (const model of models) {
    if (touched !== 'all' && !canSee(model, touched, sql.dialect)) continue
    await sql.run(sql.dialect.empty('_affected'))
    const type = ownType(model.source)
    const whole = touched === 'all' || (touched.refs.size > FULL_REBUILD && type !== undefined && touched.types.has(type))
    const search = model.search ?? []
    const trigrams = search.length > 0 ? sql.dialect.trigram.sync : undefined
    const suffixes = model.suffixed?.length ? new SuffixEntries(sql, model.table, model.suffixed) : undefined
    const words = model.words && model.rowKey ? new WordEntries(sql, model.table, model.rowKey, model.words) : undefined
    const items = model.wordItems ? new WordItemEntries(sql, model.table, model.wordItems) : undefined
    // Buckets of ready pages whose rows change: where the old rows were and the new ones are.
    const pages = model.pages
    const buckets = new Set<string>()
    if (touched !== 'all' && !traced) {
      await sql.fillKeys('_touched', touched.refs)
      traced = true
    }
    // What the batch's own objects printed as their identity, for the change log (views/changes.ts).
    const printed = touched === 'all' ? undefined : await changesBefore(sql, model)
    if (whole) {
      if (trigrams) await sql.run(trigrams.forget(model.table, search))
      await suffixes?.forgetAll()
      await words?.forgetAll()
      await items?.forgetAll()
      await sql.run(`DELETE FROM ${model.table}`)
      await sql.run(`INSERT INTO _affected (ref) SELECT ref FROM ${model.source}`)
    } else {
      const branches = columnsToTrace(model.source, touched.types).map(
        (c) => `SELECT ref FROM ${model.source} WHERE ${touchedIn(sql.dialect, model.source, c)}`,
      )
      let affected = await sql.run(`INSERT INTO _affected (ref) ${branches.join(' UNION ')}`)
      // One statement per trace: a trace may be a WITH RECURSIVE query, which no UNION branch can be.
      for (const trace of fullTraces(model, touched.types, sql.dialect)) {
        affected += await sql.run(
          // NOT EXISTS: PostgreSQL's NOT IN over a subquery beyond work_mem rescans it per row.
          `INSERT INTO _affected (ref) SELECT DISTINCT t.ref FROM (${trace}) AS t WHERE t.ref IN (SELECT ref FROM ${model.source}) ` +
            'AND NOT EXISTS (SELECT 1 FROM _affected a WHERE a.ref = t.ref)',
        )
      }
      // One IN over both lists: PostgreSQL plans `IN (…) OR IN (…)` as subplans tested per row
      // (a scan of _affected per row once it outgrows work_mem: 30 s a batch at scale 100).
      const stale = sql.dialect.inAny('ref', ['_touched', '_affected'])
      if (pages) for (const b of await bucketsOf(sql, pages, stale)) buckets.add(b)
      if (trigrams) await sql.run(trigrams.forget(model.table, search, stale))
      await suffixes?.keep(stale)
      await words?.forget(stale)
      await items?.forget(stale)
      await sql.run(`DELETE FROM ${model.table} WHERE ${stale}`)
      // Nothing to build (a removed object's row went with the DELETE); PostgreSQL would still
      // plan the model's whole select for an empty set.
      if (affected === 0) {
        await changesAfter(sql, model, printed)
        await suffixes?.finish()
        if (pages) await rebuildPages(sql, pages, [...buckets], pagesMode)
        continue
      }
    }
    const rebuilt = await buildRows(sql, model, [suffixes, words, items])
    built += rebuilt
    await changesAfter(sql, model, printed)
    await suffixes?.finish()
    if (trigrams) await sql.run(trigrams.remember(model.table, search, whole ? undefined : 'ref IN (SELECT ref FROM _affected)'))
    // A large rebuild leaves the index in many segments; merging costs about what the
    // rebuild did, so a sync's small batches leave it to the engine's own merging.
    if (trigrams?.optimize && (whole || rebuilt >= MERGE_AFTER)) await sql.run(trigrams.optimize(model.table))
    // A whole model's entries fill its GIN pending lists: merged now, while another writer
    // builds other models (rebuildDeferred), not all at the end (0.4–0.6 s at scale 10).
    const settle = sql.dialect.trigram.settle
    if (whole && settle && search.length > 0) await sql.all(settle(model.table))
    if (!pages) continue
    if (whole) await rebuildPages(sql, pages, 'all')
    else {
      for (const b of await bucketsOf(sql, pages, 'ref IN (SELECT ref FROM _affected)')) buckets.add(b)
      await rebuildPages(sql, pages, [...buckets], pagesMode)
    }
  }
  return built
}

/** One batch of a model's rows: their columns as stored, and their full forms' builder once its reads are done. */
interface Batch {
  readonly last: Row
  readonly columns: string[]
  readonly out: SqlValue[][]
  readonly full?: { readonly rows: readonly Row[]; readonly form: (row: Row) => FullResult }
}

/** What is kept beside a model's rows from the values written (suffix entries, words). */
interface Beside {
  written(columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void>
}

async function buildRows(sql: SqlPort, model: ReadModel, beside: readonly (Beside | undefined)[]): Promise<number> {
  let names: string[] | undefined
  // One context for the whole rebuild, so what its pages share (specifications) is read once.
  const ctx: RequestContext = { sql, now: () => new Date(), options: { full: true }, flags: new Map(), values: new Map() }
  // Several rows per object (rowKey): batches continue after the last (ref, rowKey) pair.
  const key = model.rowKey
  const read = async (after: Row | undefined): Promise<Batch | undefined> => {
    const ref = (after?.ref as string | undefined) ?? ''
    const rows = await sql.all<Row>(
      key === undefined
        ? `SELECT ${model.select} WHERE s.ref IN (SELECT ref FROM _affected) AND s.ref > ? ORDER BY s.ref LIMIT ?`
        : // A row value, which both engines read as one index range (decision "Joined pages keep the subquery's order").
          `SELECT ${model.select} WHERE s.ref IN (SELECT ref FROM _affected) AND (s.ref, s.${key}) > (?, ?) ORDER BY s.ref, s.${key} LIMIT ?`,
      key === undefined ? [ref, BATCH] : [ref, (after?.[key] as SqlValue | undefined) ?? -1, BATCH],
    )
    if (rows.length === 0) return undefined
    const built = rows.map((row) => {
      const { values, short } = model.build(row)
      return { ref: row.ref as string, short: Buffer.from(JSON.stringify(short)), values }
    })
    names ??= Object.keys(built[0]!.values)
    const columns = ['ref', 'short', ...names]
    const out: SqlValue[][] = built.map((b) => [b.ref, b.short, ...names!.map((n) => b.values[n] ?? null)])
    if (!model.full) return { last: rows.at(-1)!, columns, out }
    // The endpoint's builder sees what it sees when serving: read-model rows of ref, short and values.
    const modelRows = built.map((b): Row => ({ ...b.values, ref: b.ref, short: b.short }))
    const form = await fullForms(model.full.service, model.full.page, ctx, modelRows)
    return { last: rows.at(-1)!, columns: [...columns, ...FULL_COLUMNS], out, full: { rows: modelRows, form } }
  }
  let count = 0
  let next = read(undefined)
  for (;;) {
    const batch = await next
    if (!batch) return count
    // The next batch's reads are sent now: a database server runs them while this batch's
    // forms are rendered, where the two took turns (the JavaScript is a third of a rebuild).
    next = read(batch.last)
    // Its failure is met where it is awaited, not as an unhandled rejection meanwhile.
    next.catch(() => undefined)
    try {
      if (batch.full) {
        const { rows, form } = batch.full
        rows.forEach((row, i) => {
          const ready = readyForm(form(row))
          batch.out[i]!.push(ready.full, ready.issue, ready.blobs)
        })
      }
      await sql.insertRows(model.table, batch.columns, batch.out)
      for (const b of beside) await b?.written(batch.columns, batch.out)
    } catch (err) {
      // Nothing of the rebuild may still be running when the caller's transaction ends.
      await next.catch(() => undefined)
      throw err
    }
    count += batch.out.length
  }
}
