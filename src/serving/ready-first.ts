// Requests whose answer is read whole from a few ready pages (a list asked for whole or for
// a period, short or full, at most LOOP_PAGES pages and LOOP_BYTES, pipeline/run.ts) or
// from a ready answer (the unfiltered materials tree, views/ready-answers.ts) run on the event loop:
// a few indexed reads of stored bytes, each statement bounded (8 pages, one 768 KiB chunk),
// cost less than the hand-off to a worker and its wake-up. So do requests that a substring
// condition bounds to a few rows, as the trigram index finds them (a document by its
// number), and a cash statement of up to 200 accounts. Everything else — other filters,
// full forms built per request, trees, large ready answers — goes to the pool, so it never
// holds the loop (docs/perf/designs.md, "Ready answers on the event loop" and the entries after it).
import type { Executor } from './executor.js'
import type { LoopExecutor } from './in-process.js'

/** The loop answers what it can (`attempt`); the pool the rest. */
export function readyFirst(loop: LoopExecutor, pool: Executor): Executor {
  return {
    execute: async (request, how) => (await loop.attempt(request, how)) ?? pool.execute(request, how),
    async close() {
      await Promise.all([loop.close(), pool.close()])
    },
  }
}
