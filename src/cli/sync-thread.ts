// A sync run (`--once`, `--every`) works in a thread of its own whose heap is bounded. What
// a run holds live stays small (a page and a batch), but in the process's own thread V8
// lets the heap grow over garbage toward its machine-sized limit: a scale-100 first load
// peaked at 334–361 MB, of which a heap snapshot found 22.5 MB live (docs/perf/history.md,
// "Sync at scale 100 on a quiet machine"). With this limit the same work peaks near 210 MB.
// `--check` and `--status` read little and run where they are called. Signals stay with
// the process: the first asks the run to stop after its batch, a second ends the process.
// The run's requests to the source go out from this thread (sync/source/transport.ts), so
// that those it asked ahead keep going while it commits a batch.
import { MessageChannel, Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import { PortTransport, serveTransport } from '../sync/source/transport.js'
import { sync } from './sync.js'
import type { SyncFlags } from './sync.js'

/** The run's old-generation limit: several times what it holds live, far below what V8 would allow. */
const SYNC_HEAP_MB = 512

interface Setup {
  readonly syncFlags: SyncFlags
  /** The run's requests to the source go out from this thread (sync/source/transport.ts). */
  readonly source: MessagePort
}

export async function syncInThread(flags: SyncFlags): Promise<number> {
  if (flags.check || flags.status) return sync(flags)
  const lane = new MessageChannel()
  serveTransport(lane.port1)
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { syncFlags: flags, source: lane.port2 } satisfies Setup,
    transferList: [lane.port2],
    resourceLimits: { maxOldGenerationSizeMb: SYNC_HEAP_MB },
    // `--password-stdin`: the password comes through the thread's own stdin.
    stdin: flags['password-stdin'] === true,
  })
  if (worker.stdin) process.stdin.pipe(worker.stdin)
  let signals = 0
  const onSignal = () => {
    if (++signals > 1) process.exit(flags.every === undefined ? 1 : 0)
    worker.postMessage('stop')
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  try {
    return await new Promise<number>((resolve, reject) => {
      let code: number | undefined
      worker.on('message', (m: number) => (code = m))
      worker.on('error', reject)
      worker.on('exit', (exit) => (code === undefined ? reject(new Error(`sync stopped unexpectedly (exit ${exit})`)) : resolve(code)))
    })
  } finally {
    lane.port1.close()
    process.off('SIGTERM', onSignal)
    process.off('SIGINT', onSignal)
    if (worker.stdin) {
      process.stdin.unpipe(worker.stdin)
      process.stdin.pause()
    }
  }
}

if (!isMainThread && (workerData as Partial<Setup> | null)?.syncFlags) {
  const port = parentPort!
  const stop = new AbortController()
  port.on('message', (m) => m === 'stop' && stop.abort())
  const setup = workerData as Setup
  const code = await sync(setup.syncFlags, { signal: stop.signal, transport: (n) => new PortTransport(setup.source, n) })
  port.postMessage(code)
  port.close()
}
