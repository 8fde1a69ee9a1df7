// Rebuilds read-model rows for every object whose printed form may have changed: the
// changed objects themselves and every object that references one of them.
import { ALL_TABLE_TYPES } from '../model/objects.js'
import type { ReadModel } from '../endpoints/define.js'
import type { Row, SqlPort, SqlValue } from '../store/sql.js'

const BATCH = 2000
/** Past this many changed references, rebuilding everything is cheaper than tracing them. */
const FULL_REBUILD = 20_000

function refColumns(source: string): string[] {
  const decl = ALL_TABLE_TYPES.find((t) => t.table === source)
  if (!decl) return []
  const cols = decl.attrs.filter((a) => a.kind === 'ref' || a.kind === 'composite').map((a) => a.col)
  return decl.hierarchical ? [...cols, 'parent'] : cols
}

export async function rebuildReadModels(sql: SqlPort, models: readonly ReadModel[], touched: ReadonlySet<string> | 'all'): Promise<number> {
  await sql.exec('CREATE TEMP TABLE IF NOT EXISTS _touched (ref TEXT PRIMARY KEY); CREATE TEMP TABLE IF NOT EXISTS _affected (ref TEXT PRIMARY KEY);')
  await sql.run('DELETE FROM _touched')
  const everything = touched === 'all' || touched.size > FULL_REBUILD
  if (!everything) await sql.insertRows('_touched', ['ref'], [...touched].map((r) => [r]))
  let built = 0
  for (const model of models) {
    await sql.run('DELETE FROM _affected')
    if (everything) {
      await sql.run(`DELETE FROM ${model.table}`)
      await sql.run(`INSERT INTO _affected (ref) SELECT ref FROM ${model.source}`)
    } else {
      const branches = ['ref', ...refColumns(model.source)].map(
        (c) => `SELECT ref FROM ${model.source} WHERE ${c} IN (SELECT ref FROM _touched)`,
      )
      await sql.run(`INSERT INTO _affected (ref) ${branches.join(' UNION ')}`)
      await sql.run(`DELETE FROM ${model.table} WHERE ref IN (SELECT ref FROM _touched) OR ref IN (SELECT ref FROM _affected)`)
    }
    built += await buildRows(sql, model)
  }
  return built
}

async function buildRows(sql: SqlPort, model: ReadModel): Promise<number> {
  let names: string[] | undefined
  let after = ''
  let count = 0
  for (;;) {
    const rows = await sql.all<Row>(
      `SELECT ${model.select} WHERE s.ref IN (SELECT ref FROM _affected) AND s.ref > ? ORDER BY s.ref LIMIT ?`,
      [after, BATCH],
    )
    if (rows.length === 0) return count
    const out: SqlValue[][] = []
    for (const row of rows) {
      const { values, short } = model.build(row)
      names ??= Object.keys(values)
      out.push([row.ref as string, Buffer.from(JSON.stringify(short)), ...names.map((n) => values[n] ?? null)])
    }
    await sql.insertRows(model.table, ['ref', 'short', ...names!], out)
    count += rows.length
    after = rows.at(-1)!.ref as string
  }
}
