// Entry of a serving worker thread (started by pool.ts).
import { serveInWorker } from './worker-loop.js'

await serveInWorker()
