// Requests whose answer is read whole from ready pages (a list asked for whole or for a
// period, short or full without attachment contents, endpoints/shared/ready-pages.ts) or
// from a ready answer (the unfiltered materials tree, import/ready.ts) run on the event loop:
// a few indexed reads of stored bytes, each statement bounded (16 pages, one 768 KiB chunk),
// cost less than the hand-off to a worker and its wake-up. So do requests that a substring
// condition bounds to a few rows, as the trigram index counts them first (a document by its
// number), and a cash statement of up to 200 accounts. Everything else that computes —
// other filters, full forms with contents, trees — goes to the pool, so it never holds the
// loop (decisions.md, "Ready answers on the event loop" and the entries after it).
import { endpointByService } from '../endpoints/index.js'
import { queryPairs } from '../pipeline/parse.js'
import { computesOnLoop, readsOnLoop } from '../pipeline/run.js'
import type { SqlPort } from '../store/sql.js'
import type { DataRequest, Executor } from './executor.js'

/** Whether `request` runs on the event loop: ready pages, a ready answer, a few rows a trigram index finds, a small cash statement. */
export function readyOnly(sql: SqlPort): (request: DataRequest) => boolean | Promise<boolean> {
  return (request) => {
    const ep = endpointByService.get(request.service)
    if (!ep) return false
    const pairs = queryPairs(request.query)
    return ep.kind === 'list' ? readsOnLoop(ep, pairs, sql) : computesOnLoop(ep, pairs, sql)
  }
}

export function readyFirst(ready: Executor, pool: Executor, isReady: (request: DataRequest) => boolean | Promise<boolean>): Executor {
  return {
    execute: async (request, how) => ((await isReady(request)) ? ready : pool).execute(request, how),
    async close() {
      await Promise.all([ready.close(), pool.close()])
    },
  }
}
