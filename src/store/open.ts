// Opens the store a `--db` value names: an SQLite file path (the embedded default) or a
// `postgres://` URL (many stateless gateways over one database).
import pg from 'pg'
import { pgCopy } from './pg-copy.js'
import { PgStore } from './postgres.js'
import { SqliteStore } from './sqlite.js'
import type { SqlPort } from './sql.js'

const DEFAULT_DB = './data/docgate.db'

export function resolveDb(flag: string | undefined): string {
  return flag || process.env.DOCGATE_DB || DEFAULT_DB
}

export const isPostgresUrl = (db: string): boolean => /^postgres(ql)?:\/\//.test(db)

// PostgreSQL compiles a statement whose estimated cost passes jit_above_cost (the import's
// statements over unanalysed temp tables, estimated at 100× their rows) into machine code:
// 20–30 ms of compiling per statement for work of a few milliseconds. docgate's statements
// are short, so neither connection kind compiles: a PostgreSQL import 50 → 38 s at scale 10.
const NO_JIT = '-c jit=off'

// The writing session's reads join a batch's keys with rows it has just written or read,
// pages the server holds in memory; costed as disk reads (random_page_cost 4), a full form's
// tabular rows had their names joined by hashing all of `objects` (38 ms for 118,767 rows)
// rather than looking up the ~2,000 it needs: 55 → 18 ms per 500 documents at 1.1.
const WRITING = `${NO_JIT} -c random_page_cost=1.1`

// Values the import stores compressed (read-model forms of ~1–4 KB) are compressed with lz4
// where the server has it: pglz made the COPY of a document list's rows 2.6× slower (200 vs
// 79 ms for 3,000 supplier orders, at 7.1 vs 8.0 MB), and every read decompresses them again.
// A stored value names its method, so a store written before reads as it did.
const LZ4 =
  "SELECT set_config('default_toast_compression', 'lz4', false) FROM pg_settings " +
  "WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)"

// COUNT(*) and BIGINT columns arrive as numbers (every value docgate stores fits 2^53).
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text'),
}

// A serving statement is prepared once per session and run with each request's values. In
// its default mode PostgreSQL plans a statement anew for each run while the plan for unknown
// values looks dearer than those for the values seen (the lookup of a document by the digits
// of its number: a range of suffixes), and planning cost more than running: 300 → 145–180 µs
// a lookup. docgate's reads are indexed reads whose plan does not hang on the values, so the
// serving sessions keep the one plan for any values (decision "Serving statements planned once").
const PLANNED_ONCE = '-c plan_cache_mode=force_generic_plan'

/** Limits of the serving pool: a dead or frozen database gives a quick 500, not a hang. */
export const PG_SERVING = {
  max: 10,
  connectionTimeoutMillis: 1000,
  idleTimeoutMillis: 30_000,
  query_timeout: 5000,
  statement_timeout: 5000,
  idle_in_transaction_session_timeout: 10_000,
} as const

export function servingPool(url: string, onError: (err: Error) => void = () => {}, max: number = PG_SERVING.max): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    ...PG_SERVING,
    max,
    // Every serving transaction is read-only; the deployment's role should also hold SELECT only.
    options: `-c default_transaction_read_only=on ${NO_JIT} ${PLANNED_ONCE}`,
    types,
  })
  // An idle client killed by the server emits here; without a listener the process dies.
  pool.on('error', onError)
  return pool
}

/** The serving store: read-only, so no request path can write. `connections`: the PostgreSQL pool's size. */
export async function openReadOnly(db: string, onError?: (err: Error) => void, connections?: number): Promise<SqlPort> {
  if (isPostgresUrl(db)) {
    const pool = servingPool(db, onError, connections)
    return new PgStore(pool, { readonly: true, named: true, copy: pgCopy(pool), close: () => pool.end() })
  }
  return new SqliteStore(db, { readonly: true })
}

/** A writing PostgreSQL connection; its `sibling` is another, for work in transactions of its own beside it. */
async function writingConnection(db: string): Promise<PgStore> {
  const client = new pg.Client({ connectionString: db, types, options: WRITING })
  await client.connect()
  await client.query(LZ4)
  return new PgStore(client, { copy: pgCopy(client), close: () => client.end(), sibling: () => writingConnection(db) })
}

/** The import/administration store: writable; the caller brings its schema up to date (app/store.ts). */
export async function openWriting(db: string): Promise<SqlPort> {
  // One PostgreSQL connection: an import is one transaction and uses session temp tables.
  return isPostgresUrl(db) ? writingConnection(db) : new SqliteStore(db)
}
