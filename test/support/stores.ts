// One fresh store per test app, on each engine: an SQLite file, an in-process PGlite
// database, or (when DOCGATE_TEST_PG_URL is set) a new database on a real server.
import { rmSync } from 'node:fs'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import pg from 'pg'
import { migrate } from '../../src/views/migrate.js'
import { openReadOnly } from '../../src/store/open.js'
import { openWritable } from '../../src/app/store.js'
import { PgStore } from '../../src/store/postgres.js'
import { SqliteStore } from '../../src/store/sqlite.js'
import type { SqlPort, SqlValue } from '../../src/store/sql.js'
import { importEntries } from '../../src/import/run.js'
import type { ImportReport } from '../../src/import/run.js'
import { VIEWS } from '../../src/endpoints/index.js'

const entries = (objects: readonly unknown[]) => objects.map((value, i) => ({ line: i + 1, value }))

async function importInto(location: string, objects: readonly unknown[]): Promise<ImportReport> {
  const w = await openWritable(location)
  try {
    return await importEntries(w, entries(objects))
  } finally {
    await w.close()
  }
}

export type Backend = 'sqlite' | 'pglite' | 'postgres'

/** Store engines every HTTP suite runs on. */
export const BACKENDS: readonly Backend[] = ['sqlite', 'pglite', ...(process.env.DOCGATE_TEST_PG_URL ? (['postgres'] as const) : [])]

export interface TestStore {
  /** A writable handle (import, users); close it before serving. */
  readonly writer: SqlPort
  /** The serving handle, opened the way `docgate serve` opens it (read-only). */
  openReader(): Promise<SqlPort>
  /** One write beside the running server (e.g. a revoke). */
  write(sql: string, params?: readonly SqlValue[]): Promise<void>
  /** An import beside the running server (one transaction, like `docgate import`). */
  importMore(objects: readonly unknown[]): Promise<ImportReport>
  /** SQLite file path or PostgreSQL URL. */
  readonly location: string
  cleanup(): Promise<void>
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'docgate-test-'))
}

const int8 = { 20: (v: string) => Number(v) }

export async function createTestStore(backend: Backend): Promise<TestStore> {
  if (backend === 'sqlite') {
    const dir = tempDir()
    const location = join(dir, 'test.db')
    return {
      writer: await openWritable(location),
      openReader: () => openReadOnly(location),
      async write(sql, params = []) {
        const w = new SqliteStore(location)
        await w.run(sql, params)
        await w.close()
      },
      importMore: (objects) => importInto(location, objects),
      location,
      async cleanup() {
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }
  if (backend === 'pglite') {
    const db = new PGlite({ parsers: int8, extensions: { pg_trgm } })
    const writer = new PgStore(db)
    await writer.transaction(() => migrate(writer, VIEWS))
    return {
      writer,
      async openReader() {
        // One in-process database: serving turns the session read-only, as the pool's option does.
        await db.exec('SET default_transaction_read_only = on')
        return new PgStore(db, { readonly: true, close: async () => void (db.closed || (await db.close())) })
      },
      async write(sql, params = []) {
        await db.exec('BEGIN READ WRITE')
        await new PgStore(db).run(sql, params)
        await db.exec('COMMIT')
      },
      async importMore(objects) {
        await db.exec('SET default_transaction_read_only = off')
        try {
          return await importEntries(new PgStore(db), entries(objects))
        } finally {
          await db.exec('SET default_transaction_read_only = on')
        }
      },
      location: 'pglite://memory',
      async cleanup() {
        if (!db.closed) await db.close()
      },
    }
  }
  const base = process.env.DOCGATE_TEST_PG_URL!
  const name = `docgate_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(base)
  url.pathname = `/${name}`
  const location = url.toString()
  return {
    writer: await openWritable(location),
    openReader: () => openReadOnly(location),
    async write(sql, params = []) {
      const w = await openWritable(location)
      await w.run(sql, params)
      await w.close()
    },
    importMore: (objects) => importInto(location, objects),
    location,
    async cleanup() {
      // FORCE ends the test's own leftover sessions, but refuses (42501) while an autovacuum
      // worker, not ours to end, is in the database; a plain DROP has the server end that one.
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(async (err: { code?: string }) => {
        if (err.code !== '42501') throw err
        await admin.query(`DROP DATABASE IF EXISTS ${name}`)
      })
      await admin.end()
    },
  }
}
