// `docgate sync` (sync.md §2): flags → a run (`--once`, `--every`), `--check` or `--status`.
// Local failures exit 2 before anything is attempted; source failures exit 1 (or, under
// `--every`, wait for the next cycle); signals end the run after the batch being written.
import { existsSync, readFileSync } from 'node:fs'
import { commandUsage } from './commands.js'
import type { SqlPort } from '../store/sql.js'
import { isPostgresUrl, openReadOnly, resolveDb } from '../store/open.js'
import { openWritable } from '../app/store.js'
import { pause } from '../values/pause.js'
import { CheckFailed, knownOtherDocuments, startupCheck } from '../sync/check.js'
import { runCycle } from '../sync/cycle.js'
import type { CycleContext } from '../sync/context.js'
import { MapFileError, defaultMapFile, parseMapFile, resolveMap } from '../sync/mapping/index.js'
import type { MapFile } from '../sync/mapping/index.js'
import { consoleSink } from '../sync/output.js'
import type { Sink } from '../sync/output.js'
import { Source } from '../sync/source/client.js'
import type { Transport } from '../sync/source/transport.js'
import { printStatus } from '../sync/status.js'
import { SyncLock, SyncStore } from '../sync/state/store.js'
import { ensureSyncTables, hasSyncTables } from '../sync/state/tables.js'
import { localDay } from '../sync/windows.js'
import { backgroundCheckpoints } from '../sync/checkpoints.js'
import type { Checkpoints } from '../sync/checkpoints.js'

export interface SyncFlags {
  readonly db?: string
  readonly source?: string
  readonly user?: string
  readonly 'password-stdin'?: boolean
  readonly map?: string
  readonly once?: boolean
  readonly every?: string
  readonly full?: boolean
  readonly 'scan-all'?: boolean
  readonly check?: boolean
  readonly status?: boolean
}

/** A local reason: one line, exit 2, nothing attempted. */
class LocalError extends Error {}

/** Misuse of the command line: the problem in one line, then the synopsis (sync.md §2). */
const misuse = (problem: string) => new LocalError(`${problem}\n${commandUsage('sync')}`)

function sourceRoot(url: string | undefined): string {
  if (!url) throw misuse('--source is required')
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw misuse(`--source is not a URL: ${url.replace(/\/\/[^@/]*@/, '//…@')}`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw misuse('--source must be an http(s) URL')
  if (u.username || u.password) throw misuse('--source must not carry user info; use --user and --password-stdin')
  if (u.search || url.includes('?')) throw misuse('--source must not have a query')
  if (u.hash || url.includes('#')) throw misuse('--source must not have a fragment')
  return url.replace(/\/+$/, '')
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

function loadMap(file: string | undefined): MapFile {
  if (file === undefined) return defaultMapFile()
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new LocalError(`--map: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`)
  }
  try {
    return parseMapFile(text)
  } catch (err) {
    if (err instanceof MapFileError || err instanceof SyntaxError) throw new LocalError(`--map ${file}: ${err.message}`)
    throw err
  }
}

/** A store location fit for output: a PostgreSQL URL without its password. */
export const shownDb = (db: string): string => db.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/, '$1:…@')

/** `--check` and `--status` never create a store. */
async function openExisting(db: string): Promise<SqlPort> {
  if (!isPostgresUrl(db) && !existsSync(db)) throw new LocalError(`store missing: ${shownDb(db)}`)
  try {
    return await openReadOnly(db)
  } catch (err) {
    throw new LocalError(`cannot open the store: ${(err as Error).message}`)
  }
}

/**
 * Whether a docgate store is there (§2 `--status`): a PostgreSQL database that does not
 * exist, or an SQLite file or a database without docgate's tables, is `store missing`.
 * Failing to reach the server at all is a store that cannot be opened.
 */
async function requireStore(sql: SqlPort, db: string): Promise<void> {
  try {
    await sql.all('SELECT 1 FROM meta LIMIT 1')
  } catch (err) {
    const e = err as { code?: string; message?: string }
    // 3D000: no such database; 42P01: no such table (PostgreSQL); SQLite says "no such table".
    if (e.code === '3D000' || e.code === '42P01' || /no such table/.test(e.message ?? ''))
      throw new LocalError(`store missing: ${shownDb(db)}`)
    throw new LocalError(`cannot open the store: ${e.message ?? String(err)}`)
  }
}

export interface SyncRuntime {
  readonly sink?: Sink
  /** Waits between attempts (tests shorten them). */
  readonly retryDelaysMs?: readonly number[]
  /** Aborts the run as SIGTERM would (tests). */
  readonly signal?: AbortSignal
  /** The cycle's day (tests); default: today, local time. */
  readonly today?: () => string
  /** The clock (tests): when cycles and scans begin, and so when a full scan is due (§7.4). */
  readonly now?: () => Date
  /** An open store to use instead of `--db` (tests of the in-process engine); left open. */
  readonly sql?: SqlPort
  /** Sees the source client (its request and byte counts), for the benchmark. */
  readonly onSource?: (source: Source) => void
  /** Where the source's requests leave from, given the map's `concurrency` (cli/sync-thread.ts); default: this thread. */
  readonly transport?: (concurrency: number) => Transport
}

export async function sync(flags: SyncFlags, runtime: SyncRuntime = {}): Promise<number> {
  const sink = runtime.sink ?? consoleSink()
  try {
    return await syncCommand(flags, runtime, sink)
  } catch (err) {
    if (err instanceof LocalError) {
      sink.err(`docgate: ${err.message}`)
      return 2
    }
    throw err
  }
}

async function syncCommand(flags: SyncFlags, runtime: SyncRuntime, sink: Sink): Promise<number> {
  if (flags.check && flags.status) throw misuse('--check and --status exclude each other')
  const mode = flags.check ? '--check' : flags.status ? '--status' : undefined
  const runFlags = [
    flags.once && '--once',
    flags.every !== undefined && '--every',
    flags.full && '--full',
    flags['scan-all'] && '--scan-all',
  ].filter((f) => typeof f === 'string')
  if (mode && runFlags.length > 0) throw misuse(`${mode} does not combine with ${runFlags.join(', ')}`)
  if (flags.once && flags.every !== undefined) throw misuse('--once and --every exclude each other')
  if (flags.full && flags['scan-all']) throw misuse('--full and --scan-all exclude each other')
  const db = resolveDb(flags.db)
  if (flags.status) {
    const sql = runtime.sql ?? (await openExisting(db))
    try {
      await requireStore(sql, db)
      if (!(await hasSyncTables(sql))) {
        sink.out('no sync has run on this store')
        return 0
      }
      await printStatus(new SyncStore(sql), sink)
      return 0
    } finally {
      if (!runtime.sql) await sql.close()
    }
  }
  const every = flags.every === undefined ? undefined : Number(flags.every)
  if (every !== undefined && !(Number.isInteger(every) && every >= 1))
    throw misuse(`--every must be a whole number of seconds ≥ 1, got "${flags.every}"`)
  const root = sourceRoot(flags.source)
  const map = loadMap(flags.map)
  const user = flags.user ?? process.env.DOCGATE_SOURCE_USER
  const password = flags['password-stdin'] ? await readStdin() : (process.env.DOCGATE_SOURCE_PASSWORD ?? '')

  const controller = new AbortController()
  runtime.signal?.addEventListener('abort', () => controller.abort(), { once: true })
  const source = new Source({
    root,
    user,
    password,
    concurrency: map.options.concurrency,
    readTimeoutMs: map.options.readTimeoutSeconds * 1000,
    retryDelaysMs: runtime.retryDelaysMs,
    signal: controller.signal,
    transport: runtime.transport?.(map.options.concurrency),
  })
  runtime.onSource?.(source)
  try {
    if (flags.check) return await check(db, source, map, sink, runtime.sql)
    return await run(db, source, map, sink, {
      every,
      full: flags.full === true,
      scanAll: flags['scan-all'] === true,
      controller,
      now: runtime.now ?? (() => new Date()),
      today: runtime.today ?? (() => localDay(runtime.now?.())),
      external: runtime.signal !== undefined,
      sql: runtime.sql,
    })
  } finally {
    await source.close()
  }
}

async function check(db: string, source: Source, map: MapFile, sink: Sink, given?: SqlPort): Promise<number> {
  let sql: SqlPort | undefined = given
  if (!sql && (isPostgresUrl(db) || existsSync(db))) sql = await openExisting(db)
  try {
    const state = sql && (await hasSyncTables(sql)) ? new SyncStore(sql) : undefined
    const checked = await startupCheck(source, map, state, false)
    sink.out(checked.sourceLine)
    for (const line of checked.resolution.lines) sink.out(line)
    return checked.resolution.missing === 0 ? 0 : 1
  } catch (err) {
    if (err instanceof CheckFailed) {
      sink.err(err.message)
      return 1
    }
    throw err
  } finally {
    if (!given) await sql?.close()
  }
}

const RECHECK_MS = 24 * 3600 * 1000

async function run(
  db: string,
  source: Source,
  map: MapFile,
  sink: Sink,
  o: {
    every?: number
    full: boolean
    scanAll: boolean
    controller: AbortController
    now: () => Date
    today: () => string
    external: boolean
    sql?: SqlPort
  },
): Promise<number> {
  let sql: SqlPort
  let checkpoints: Checkpoints | undefined
  try {
    sql = o.sql ?? (await openWritable(db))
    // A sync batch dirties at most a few thousand pages; the default 64 MiB page cache only
    // held read pages the writer does not need again, and cost 90 MB of peak RSS at scale 10
    // (docs/perf/history.md, bench:sync) for no speed.
    if (!o.sql && sql.dialect.name === 'sqlite') {
      await sql.exec('PRAGMA cache_size = -16384')
      checkpoints = await backgroundCheckpoints(db, sql)
    }
  } catch (err) {
    throw new LocalError(`cannot open the store: ${(err as Error).message}`)
  }
  const state = new SyncStore(sql)
  const lock = new SyncLock(sql)
  let signals = 0
  const onSignal = () => {
    signals++
    if (signals > 1) process.exit(o.every === undefined ? 1 : 0)
    o.controller.abort()
  }
  if (!o.external) {
    process.on('SIGTERM', onSignal)
    process.on('SIGINT', onSignal)
  }
  try {
    await ensureSyncTables(sql)
    const holder = await lock.acquire()
    if (holder) throw new LocalError(`another docgate sync is running on this store (pid ${holder.pid} on ${holder.host})`)
    await state.setMeta('source', source.root)
    let checked: Awaited<ReturnType<typeof startupCheck>> | undefined
    let checkedAt = 0
    for (;;) {
      const started = Date.now()
      let code = 0
      try {
        if (!checked || Date.now() - checkedAt > RECHECK_MS) {
          checked = await startupCheck(source, map, state, true)
          checkedAt = Date.now()
          if (checked.resolution.missing > 0) {
            for (const line of checked.resolution.missingLines) sink.out(line)
            sink.out(checked.resolution.lines.at(-1)!)
            checked = undefined
            code = 1
          }
        }
        if (checked) {
          const ctx: CycleContext = {
            sql,
            state,
            source,
            meta: checked.meta,
            options: map.options,
            today: o.today(),
            now: o.now,
            started: o.now(),
            full: o.full,
            scanAll: o.scanAll,
            sink,
            signal: o.controller.signal,
            registers: new Map(checked.resolution.plans.filter((p) => p.kind === 'register').map((p) => [p.entitySet, p])),
            watchers: new Map(),
            otherDocuments: new Set(),
          }
          // Other documents first met last cycle are planned from now on.
          const plans = checked.resolution.plans
          const result = await runCycle(ctx, plans, map)
          if (result.recheck) checked = undefined
          else if (ctx.otherDocuments.size > 0)
            checked = { ...checked, resolution: resolveMap(checked.meta, map, await knownOtherDocuments(state)) }
          if (result.status === 'interrupted' && o.every === undefined) sink.err('interrupted')
          code = result.status === 'complete' ? 0 : 1
        }
      } catch (err) {
        if (err instanceof LocalError) throw err
        if (o.controller.signal.aborted) {
          if (o.every === undefined) sink.err('interrupted')
        } else {
          sink.err(err instanceof CheckFailed ? err.message : `error: ${(err as Error).message}`)
        }
        checked = err instanceof CheckFailed ? undefined : checked
        code = 1
      }
      if (o.controller.signal.aborted) return o.every === undefined ? 1 : 0
      if (o.every === undefined) return code
      const wait = Math.max(0, started + o.every * 1000 - Date.now())
      await pause(wait, o.controller.signal)
      if (o.controller.signal.aborted) return 0
    }
  } finally {
    if (!o.external) {
      process.off('SIGTERM', onSignal)
      process.off('SIGINT', onSignal)
    }
    await lock.release()
    await checkpoints?.stop()
    if (!o.sql) await sql.close()
  }
}
