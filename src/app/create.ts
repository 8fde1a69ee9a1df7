// The one composition root of the serving side: the store handle, the executor that answers
// data requests (in this thread, or a worker pool that leaves the event loop the cheap
// answers; the answer cache in front) and the HTTP surface over it, MCP included.
// `docgate serve`, `docgate mcp`, the tests and the benchmarks all build the app here, so
// every surface asks the same executor.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { buildServer } from '../http/server.js'
import type { Authenticate, RequestObserver } from '../http/server.js'
import { answerCache } from '../serving/answer-cache.js'
import type { AnswerCache } from '../serving/answer-cache.js'
import { compressing } from '../serving/compress.js'
import { Generations } from '../serving/generations.js'
import type { Executor } from '../serving/executor.js'
import { inProcessExecutor } from '../serving/in-process.js'
import { WorkerPool } from '../serving/pool.js'
import { readyFirst } from '../serving/ready-first.js'
import type { SqlPort } from '../store/sql.js'

/** A data request's time limit unless told otherwise (`serve --request-timeout`). */
export const DEFAULT_TIME_LIMIT_MS = 30_000

/** What the executor needs: the store, and how requests run. */
export interface ExecutorConfig {
  /** The serving store (read-only). */
  readonly sql: SqlPort
  /**
   * Worker threads for the data requests (`serve --workers`), each opening the store at `db`;
   * 0 (the default) answers them in this thread.
   */
  readonly workers?: number
  readonly db?: string
  /** A data request's time limit; 0: none. */
  readonly timeLimitMs?: number
  /** Bytes of repeated answers kept (`serve --answer-cache`); 0: none. */
  readonly answerCacheBytes?: number
  /** Told of the answer cache once it exists (metrics). */
  readonly onAnswerCache?: (cache: AnswerCache) => void
  /** Each store read's seconds, from the workers too (metrics). */
  readonly queryTime?: (seconds: number) => void
  readonly warn?: (message: string) => void
}

export interface AppConfig extends ExecutorConfig {
  readonly auth: Authenticate
  readonly logger?: Logger | false
  /** The clock; tests inject a fixed one. */
  readonly now?: () => Date
  /** GET /openapi.json and /docs (`serve --no-docs` turns them off). */
  readonly docs?: boolean
  readonly observer?: RequestObserver
}

export type App = FastifyInstance & {
  draining: boolean
  /** What every surface asks for an answer; closed with the app. */
  readonly executor: Executor
}

/** The executor of `config`: the answer path every surface shares. */
export async function createExecutor(config: ExecutorConfig): Promise<Executor> {
  const timeLimitMs = config.timeLimitMs ?? 0
  const here = inProcessExecutor(config.sql, timeLimitMs)
  let executor: Executor = here
  if ((config.workers ?? 0) > 0) {
    if (config.db === undefined) throw new Error('a worker pool needs the store location (db)')
    const pool = await WorkerPool.start({
      db: config.db,
      size: config.workers!,
      timeLimitMs,
      queryTime: config.queryTime,
      warn: config.warn,
    })
    executor = readyFirst(here, pool)
  }
  if ((config.answerCacheBytes ?? 0) > 0) {
    // The cache compresses what a request's coding asks for, and keeps it compressed.
    const cache = answerCache(executor, config.sql, { bytes: config.answerCacheBytes! })
    config.onAnswerCache?.(cache)
    executor = cache
  } else executor = compressing(executor)
  return executor
}

export async function createApp(config: AppConfig): Promise<App> {
  const executor = await createExecutor(config)
  // The generation is known from the start: a plain answer is tagged without a read of its own.
  const generations = new Generations(config.sql)
  // A store that cannot be read yet is read by the first request instead.
  await generations.fresh().catch(() => undefined)
  const server = buildServer({ ...config, executor, generations }) as App
  Object.defineProperty(server, 'executor', { value: executor })
  server.addHook('onClose', async () => executor.close())
  return server
}
