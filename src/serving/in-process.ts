// `serve --workers 0`: data requests run on the event loop (as the server did before the
// pool), with the same time limit and client-gone checks between rows. With a pool, the
// loop still answers what costs a few bounded reads (`attempt`, serving/ready-first.ts).
import { Readable } from 'node:stream'
import { boundedBytes } from '../pipeline/bound.js'
import { answer, answerOnLoop } from '../pipeline/run.js'
import type { RunOptions } from '../pipeline/run.js'
import type { SqlPort } from '../store/sql.js'
import { CLIENT_GONE, Stopped, timeLimitMessage } from './executor.js'
import type { DataRequest, Execution, Executor } from './executor.js'

export interface LoopExecutor extends Executor {
  /** The answer when the request costs a few bounded reads (pipeline/run.ts `answerOnLoop`); null when it does not. */
  attempt(request: DataRequest, how: Execution): Promise<Buffer | Readable | null>
}

export function inProcessExecutor(sql: SqlPort, timeLimitMs: number): LoopExecutor {
  async function run(request: DataRequest, how: Execution, onLoopOnly: boolean): Promise<Buffer | Readable | null> {
    const deadline = timeLimitMs > 0 ? Date.now() + timeLimitMs : 0
    const gone = how.gone ?? (() => how.signal.aborted)
    const signal = {
      throwIfAborted() {
        if (gone()) throw new Stopped(CLIENT_GONE)
        if (deadline > 0 && Date.now() > deadline) throw new Stopped(timeLimitMessage(timeLimitMs))
      },
    }
    const options: RunOptions = {
      sql,
      now: () => request.now,
      rows: how.rows,
      signal,
      page: how.page,
      format: request.format,
      errors: how.errors,
    }
    // A bounded answer scans all of the answer's bytes: never on the loop beside the pool.
    if (onLoopOnly && request.bound) return null
    const body = onLoopOnly
      ? await answerOnLoop(request.service, request.query, options)
      : await answer(request.service, request.query, options)
    if (body === null) return null
    if (request.bound) return boundedBytes(body, request.bound)
    signal.throwIfAborted()
    return Buffer.isBuffer(body) ? body : Readable.from(body, { objectMode: false })
  }
  return {
    execute: async (request, how) => (await run(request, how, false))!,
    attempt: (request, how) => run(request, how, true),
    async close() {},
  }
}
