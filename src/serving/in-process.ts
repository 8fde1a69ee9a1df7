// `serve --workers 0`: data requests run on the event loop (as the server did before the
// pool), with the same time limit and client-gone checks between rows.
import { Readable } from 'node:stream'
import { endpointByService } from '../endpoints/index.js'
import { queryPairs } from '../pipeline/parse.js'
import { runComputed, runList } from '../pipeline/run.js'
import type { SqlPort } from '../store/sql.js'
import { CLIENT_GONE, Stopped, timeLimitMessage } from './executor.js'
import type { DataRequest, Execution, Executor } from './executor.js'

export function inProcessExecutor(sql: SqlPort, timeLimitMs: number): Executor {
  return {
    async execute(request: DataRequest, how: Execution): Promise<Buffer | Readable> {
      const endpoint = endpointByService.get(request.service)
      if (!endpoint) throw new Error(`unknown service "${request.service}"`)
      const deadline = timeLimitMs > 0 ? Date.now() + timeLimitMs : 0
      const signal = {
        throwIfAborted() {
          if (how.signal.aborted) throw new Stopped(CLIENT_GONE)
          if (deadline > 0 && Date.now() > deadline) throw new Stopped(timeLimitMessage(timeLimitMs))
        },
      }
      const options = { sql, now: () => request.now, rows: how.rows, signal }
      const pairs = queryPairs(request.query)
      const body = endpoint.kind === 'list' ? await runList(endpoint, pairs, options) : await runComputed(endpoint, pairs, options)
      signal.throwIfAborted()
      return Buffer.isBuffer(body) ? body : Readable.from(body, { objectMode: false })
    },
    async close() {},
  }
}
