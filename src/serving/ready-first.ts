// Requests whose answer is read whole from ready pages (a list asked for whole or for a
// period, endpoints/shared/ready-pages.ts) or from a ready answer (the unfiltered materials
// tree, import/ready.ts) run on the event loop: a few indexed reads of stored bytes, each
// statement bounded (16 pages, one 768 KiB chunk), cost less than the hand-off to a worker
// and its wake-up. Everything that computes — filters, full forms, trees, the cash
// statement — goes to the pool, so it never holds the loop (decision "Ready answers on the
// event loop").
import { endpointByService } from '../endpoints/index.js'
import { queryPairs } from '../pipeline/parse.js'
import { readsReadyAnswer, readsReadyPages } from '../pipeline/run.js'
import type { SqlPort } from '../store/sql.js'
import type { DataRequest, Executor } from './executor.js'

/** Whether `request` is answered from ready pages alone. */
export function readyOnly(sql: SqlPort): (request: DataRequest) => boolean {
  return (request) => {
    const ep = endpointByService.get(request.service)
    if (!ep) return false
    const pairs = queryPairs(request.query)
    return ep.kind === 'list' ? readsReadyPages(ep, pairs, sql) : readsReadyAnswer(ep, pairs)
  }
}

export function readyFirst(ready: Executor, pool: Executor, isReady: (request: DataRequest) => boolean): Executor {
  return {
    execute: (request, how) => (isReady(request) ? ready : pool).execute(request, how),
    async close() {
      await Promise.all([ready.close(), pool.close()])
    },
  }
}
