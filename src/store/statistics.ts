// Planner statistics renewed inside an import transaction. PostgreSQL plans a join by the
// statistics of its tables, which autovacuum gathers only after a commit: a batch that fills
// a table and then reads it joined (the read models' reads of the rows it wrote) is planned
// by the table as it was. A tabular part counted empty made each page's read of 512
// documents' rows hash the whole `objects` table three times (0.2 s a read at scale 10);
// a key list counted at 18 rows, holding thousands, made a turnover rebuild a hash join
// filtered row by row (6 s). SQLite plans by its indexes and needs nothing here.
import type { SqlPort } from './sql.js'

/**
 * Renews the statistics of `tables`, or of every table grown by more than a fifth since they
 * were last gathered (Dialect.statistics), where the engine needs it.
 */
export async function renewStatistics(sql: SqlPort, tables?: readonly string[]): Promise<void> {
  const statistics = sql.dialect.statistics
  if (!statistics) return
  const names = tables ?? (await sql.all<{ name: string }>(statistics.changed)).map((r) => r.name)
  for (const name of names) await sql.exec(statistics.gather(name))
}
