// Substring search through a trigram index (decision "Substring search through trigram
// indexes" in docs/perf/designs.md). Read models store folded copies of the searched text
// (values/fold.ts); each folded column a substring filter looks in gets a trigram index:
// FTS5 with the `trigram` tokenizer on SQLite, a pg_trgm GIN index on PostgreSQL. A needle
// of fewer than 3 characters has no trigram to look up and scans, as before.
import type { Dialect, SqlPort, SqlValue } from './sql.js'

/** Characters (code points, as both engines count them) a needle needs to use the index. */
export const TRIGRAM_MIN = 3

export const usesTrigrams = (needle: string): boolean => {
  let n = 0
  for (const _ of needle) if (++n >= TRIGRAM_MIN) return true
  return false
}

/**
 * An FTS5 phrase matching `needle` literally: inside double quotes only `"` is special. FTS5
 * reads its query up to a NUL, which stored text never holds (the import refuses it): the
 * NUL becomes U+FFFF, as PostgreSQL parameters do (store/postgres.ts), and the exact recheck
 * with the needle itself still finds nothing.
 */
export const ftsPhrase = (needle: string): string => `"${needle.replaceAll('"', '""').replaceAll('\0', '\uFFFF')}"`

/** A LIKE pattern matching `needle` anywhere, its `\`, `%` and `_` literal (backslash is LIKE's default escape). */
export const likePattern = (needle: string): string => `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** Where a substring condition looks: a folded column of a read model, and whether that column is indexed. */
export interface SearchTarget {
  readonly table: string
  readonly column: string
  /** The table's alias in the query, when it has one. */
  readonly qualifier?: string
  readonly indexed: boolean
}

/** `column` contains `needle` (both folded): through the index for 3+ characters, else a scan. */
export function containsSql(dialect: Dialect, target: SearchTarget, needle: string): { text: string; params: SqlValue[] } {
  if (target.indexed && usesTrigrams(needle)) return dialect.trigram.contains(target.table, target.column, needle, target.qualifier)
  const column = target.qualifier ? `${target.qualifier}.${target.column}` : target.column
  return { text: dialect.contains(column), params: [needle] }
}

/**
 * Makes the engine able to hold trigram indexes. On PostgreSQL that is `CREATE EXTENSION
 * pg_trgm`, which a role without rights cannot run: then the filters keep scanning (same
 * results, slower) and `warn` says so once. Runs inside the migration's transaction, so the
 * attempt is fenced by a savepoint that a failure rolls back to.
 */
export async function setUpTrigrams(sql: SqlPort, warn: (message: string) => void): Promise<boolean> {
  const setup = sql.dialect.trigram.setup
  if (!setup) return true
  await sql.exec('SAVEPOINT docgate_trigram')
  try {
    await sql.exec(setup)
    await sql.exec('RELEASE SAVEPOINT docgate_trigram')
    return true
  } catch (err) {
    await sql.exec('ROLLBACK TO SAVEPOINT docgate_trigram; RELEASE SAVEPOINT docgate_trigram')
    warn(
      `${trigramsMissing}: ${(err as Error).message}. Substring filters scan their tables (same results, slower) ` +
        'until a database owner runs CREATE EXTENSION pg_trgm and docgate imports again.',
    )
    return false
  }
}

export const trigramsMissing = 'substring search has no trigram index'

/** The trigram structures `tables` should have that the store lacks (checked when serving starts). */
export async function missingTrigramIndexes(
  sql: SqlPort,
  tables: readonly { table: string; search?: readonly string[] }[],
): Promise<string[]> {
  const wanted = tables.flatMap((t) => (t.search && t.search.length > 0 ? sql.dialect.trigram.names(t.table, t.search) : []))
  if (wanted.length === 0) return []
  const have = new Set((await sql.all<{ name: string }>(sql.dialect.trigram.existing)).map((r) => r.name))
  return wanted.filter((n) => !have.has(n))
}
