// The background checkpointer's thread (see checkpoints.ts): its own connection to the
// sync's SQLite file, copying committed WAL frames into the database every few hundred
// milliseconds. A PASSIVE checkpoint never blocks the writer; a failed one is retried on
// the next tick, and the writer's own automatic checkpoint bounds the WAL meanwhile.
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'

const { path, intervalMs } = workerData as { path: string; intervalMs: number }
const db = new Database(path, { timeout: 0 })
// Per connection: a checkpoint syncs the WAL before and the database after copying, as the writer's would.
db.pragma('synchronous = NORMAL')
db.pragma('cache_size = -1024')

let timer: NodeJS.Timeout | undefined
const tick = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
  } catch {
    // busy or locked: the next tick tries again
  }
  timer = setTimeout(tick, intervalMs)
}
timer = setTimeout(tick, intervalMs)

parentPort!.on('message', (m) => {
  if (m !== 'stop') return
  clearTimeout(timer)
  db.close()
  parentPort!.close()
})
