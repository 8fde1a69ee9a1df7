// Opens the store a `--db` value names: an SQLite file path (the embedded default).
import { SqliteStore } from './sqlite.js'
import type { SqlPort } from './sql.js'
import { migrate } from './migrate.js'

export const DEFAULT_DB = './data/docgate.db'

export function resolveDb(flag: string | undefined): string {
  return flag ?? process.env.DOCGATE_DB ?? DEFAULT_DB
}

/** The serving store: read-only, so no request path can write. */
export async function openReadOnly(db: string): Promise<SqlPort> {
  if (/^postgres(ql)?:\/\//.test(db)) throw new Error('PostgreSQL is not supported yet: use an SQLite file path')
  return new SqliteStore(db, { readonly: true })
}

/** The import/administration store: writable, with the schema brought up to date. */
export async function openWritable(db: string): Promise<SqlPort> {
  if (/^postgres(ql)?:\/\//.test(db)) throw new Error('PostgreSQL is not supported yet: use an SQLite file path')
  const store = new SqliteStore(db)
  await store.transaction(() => migrate(store))
  return store
}
