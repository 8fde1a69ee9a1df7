// The writable store of every writing command (import, demo, sync, users): opened, its
// schema and views brought up to date with the views the endpoints declare.
import { VIEWS } from '../endpoints/index.js'
import { openWriting } from '../store/open.js'
import type { SqlPort } from '../store/sql.js'
import { migrate } from '../views/migrate.js'
import type { MigrateOptions } from '../views/migrate.js'

export async function openWritable(db: string, options: MigrateOptions = {}): Promise<SqlPort> {
  const store = await openWriting(db)
  await store.transaction(() => migrate(store, VIEWS, options))
  return store
}
