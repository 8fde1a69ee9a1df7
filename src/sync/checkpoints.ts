// Checkpoints of a sync into an SQLite store run in a thread of their own. With the
// default automatic checkpoint, every 1000 WAL pages the committing batch itself copies
// them into the database and waits for two fsyncs: at scale 10 that was three quarters of
// the time spent in COMMIT (docs/perf/history.md, bench:sync). Here the writer only appends
// to the WAL, and a second connection in a worker thread checkpoints while the sync reads
// the source and maps the next batch. Durability is unchanged: the same syncs happen, on
// another thread. The writer keeps an automatic checkpoint at a higher mark, so the WAL
// stays bounded even if the thread falls behind or fails.
//
// That mark is also what brings the WAL back to its start: a log is restarted only by a
// writer that finds every frame copied, and a sync writes without pause, so the thread's
// passive checkpoints leave the log growing until the writer's own checkpoint copies what
// is left. At 64 MiB that came every two or three batches of a register's first load, each
// time with the writer waiting; at 256 MiB the thread has copied most frames by then
// (docs/perf/history.md, "Sync: the writer's checkpoint mark").
import { Worker } from 'node:worker_threads'
import type { SqlPort } from '../store/sql.js'

const INTERVAL_MS = 200
/** The writer's own checkpoint: 256 MiB of 16 KiB pages, so the WAL stays under about that plus one batch. */
const BACKSTOP_PAGES = 16384

export interface Checkpoints {
  stop(): Promise<void>
}

export async function backgroundCheckpoints(path: string, sql: SqlPort): Promise<Checkpoints> {
  await sql.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`)
  const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), { workerData: { path, intervalMs: INTERVAL_MS } })
  // A thread that cannot run leaves checkpoints to the writer's backstop.
  worker.on('error', () => {})
  worker.unref()
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  return {
    async stop() {
      // Referenced again, or a process with nothing else to do would exit before the thread closes its connection.
      worker.ref()
      worker.postMessage('stop')
      await exited
    },
  }
}
