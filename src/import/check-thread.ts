// The checking thread of `docgate import` (read.ts): reads, parses and validates a file's
// lines while the calling thread writes the ones before them. Each file comes with a port
// of its own; batches go out as the reader grants them, so at most AHEAD of them wait.
import { parentPort } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import { parseEntries } from './parse.js'
import { validate, weightOf } from './validate.js'
import { toMessage } from './validated-message.js'
import type { CheckedBatch, CheckedEntry, CheckRequest, ReaderSignal } from './read.js'

/**
 * Batches sent and not yet taken by the reader. The writer takes lines in bursts — it
 * buffers rows, then writes them (writer.ts) — so the thread must be able to check more
 * than a buffer's worth while one is written: with 4 batches ahead and 10,000-row buffers
 * the writer waited 1.4 s of a scale-10 import; with 24 it waits ~0.1 s in all.
 */
const AHEAD = 24
/** A batch is sent at this many rows (objects, tabular and register rows), */
const BATCH_ROWS = 1000
/** or at this many bytes of attachment content. */
const BATCH_BYTES = 4 * 1024 * 1024
/** A file's first batch is small: the writer waits for it. */
const FIRST_BATCH_ROWS = 50

async function check(path: string, port: MessagePort): Promise<void> {
  let credits = AHEAD
  let stopped = false
  let granted: (() => void) | undefined
  port.on('message', (signal: ReaderSignal) => {
    if (signal === 'stop') stopped = true
    else credits++
    granted?.()
  })
  const send = async (batch: CheckedBatch): Promise<void> => {
    while (credits === 0 && !stopped) await new Promise<void>((resolve) => (granted = resolve))
    credits--
    if (!stopped) port.postMessage(batch)
  }
  try {
    let entries: CheckedEntry[] = []
    let rows = 0
    let bytes = 0
    let limit = FIRST_BATCH_ROWS
    for await (const entry of parseEntries(path)) {
      if (stopped) return
      if ('error' in entry) {
        entries.push(entry)
        rows++
      } else {
        const v = validate(entry.value)
        const weight = v.ok ? weightOf(v.operation) : { rows: 1, bytes: 0 }
        rows += weight.rows
        bytes += weight.bytes
        entries.push({ line: entry.line, checked: toMessage(v) })
      }
      if (rows >= limit || bytes >= BATCH_BYTES) {
        await send({ entries })
        entries = []
        rows = 0
        bytes = 0
        limit = BATCH_ROWS
      }
    }
    if (entries.length > 0) await send({ entries })
    if (!stopped) port.postMessage({ end: true } satisfies CheckedBatch)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    if (!stopped) port.postMessage({ failed: e.message ?? String(err), code: e.code } satisfies CheckedBatch)
  } finally {
    port.close()
  }
}

parentPort!.on('message', ({ path, port }: CheckRequest) => void check(path, port))
