// A serving worker with test hooks, chosen by a query parameter the endpoints ignore:
// `hook=sleep` blocks past the pool's limit before running, `hook=stuck` never returns,
// `hook=crash` throws outside any request handler, `hook=write` tries to write its store,
// `hook=heap` fails with the worker's heap limit in MiB.
import { getHeapStatistics } from 'node:v8'
import { serveInWorker } from '../../src/serving/worker-loop.js'

export const SLEEP_MS = 300

await serveInWorker({
  async before(request, store) {
    const hook = new URLSearchParams(request.query).get('hook')
    if (hook === 'sleep') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, SLEEP_MS)
    if (hook === 'stuck') for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000)
    if (hook === 'crash')
      setImmediate(() => {
        throw new Error('worker crashed on purpose')
      })
    if (hook === 'crash') await new Promise(() => {})
    if (hook === 'write') await store.run('DELETE FROM users')
    if (hook === 'heap') throw new Error(`heap limit ${getHeapStatistics().heap_size_limit / 2 ** 20} MiB`)
  },
})
