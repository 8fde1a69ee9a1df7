// The entries of an import file, read, parsed and validated in a thread of its own
// (check-thread.ts) while this one writes: at scale 10 the checking thread takes ~1.5 s of
// the import's work off the writer (decision "Import: lines checked in a thread of their
// own"). One thread serves the process, started at the first file and left idle between.
import { MessageChannel, Worker } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import type { Parsed } from './parse.js'
import type { Validated } from './validate.js'
import { fromMessage } from './validated-message.js'
import type { ValidatedMessage } from './validated-message.js'

/** A line parsed (the caller validates it), invalid JSON, or parsed and validated already. */
export type Entry = Parsed | { readonly line: number; readonly checked: Validated }

export interface CheckRequest {
  readonly path: string
  readonly port: MessagePort
}
export type CheckedEntry = { readonly line: number; readonly error: string } | { readonly line: number; readonly checked: ValidatedMessage }
/** What the thread sends on a file's port: entries, the end, or why the file could not be read. */
export type CheckedBatch =
  | { readonly entries: readonly CheckedEntry[] }
  | { readonly end: true }
  | { readonly failed: string; readonly code?: string }
/** What the reader sends back: one more batch may come, or none. */
export type ReaderSignal = 'more' | 'stop'

let thread: { worker: Worker; readers: Set<(err: Error) => void> } | undefined

function checkingThread(): NonNullable<typeof thread> {
  if (thread) return thread
  const worker = new Worker(new URL('./check-thread.js', import.meta.url))
  const started = { worker, readers: new Set<(err: Error) => void>() }
  const lost = (err: Error) => {
    if (thread === started) thread = undefined
    for (const fail of started.readers) fail(err)
  }
  worker.on('error', lost)
  worker.on('exit', (code) => lost(new Error(`the import's checking thread stopped (exit code ${code})`)))
  worker.unref()
  return (thread = started)
}

/** A file's entries, checked from the call on; `close` stops a reader that will not be read to its end. */
export interface EntryReader extends AsyncIterable<Entry> {
  close(): void
}

export function readEntries(path: string): EntryReader {
  const { worker, readers } = checkingThread()
  const { port1: port, port2 } = new MessageChannel()
  const inbox: CheckedBatch[] = []
  let arrived: (() => void) | undefined
  const receive = (batch: CheckedBatch) => {
    inbox.push(batch)
    arrived?.()
  }
  const fail = (err: Error) => receive({ failed: err.message })
  port.on('message', receive)
  // Only a reader waiting for lines keeps the process alive: one started ahead and then
  // dropped (the file before it failed) must not.
  port.unref()
  readers.add(fail)
  worker.postMessage({ path, port: port2 } satisfies CheckRequest, [port2])
  let closed = false
  const close = () => {
    if (closed) return
    closed = true
    port.postMessage('stop' satisfies ReaderSignal)
    port.close()
    readers.delete(fail)
    // Whoever still reads it learns that the file was not read to its end.
    receive({ failed: `the reading of ${path} was stopped` })
  }
  async function* entries(): AsyncGenerator<Entry> {
    try {
      for (;;) {
        if (inbox.length === 0) {
          port.ref()
          while (inbox.length === 0) await new Promise<void>((resolve) => (arrived = resolve))
          port.unref()
        }
        const batch = inbox.shift()!
        if ('end' in batch) return
        if ('failed' in batch) throw Object.assign(new Error(batch.failed), batch.code ? { code: batch.code } : {})
        // Granted before this batch is written, so the thread checks the next one meanwhile.
        port.postMessage('more' satisfies ReaderSignal)
        for (const e of batch.entries) yield 'checked' in e ? { line: e.line, checked: fromMessage(e.checked) } : e
      }
    } finally {
      close()
    }
  }
  const iterator = entries()
  return { [Symbol.asyncIterator]: () => iterator, close }
}

/**
 * The entries of each file in turn, as `docgate import` reads them: the next file's
 * checking starts when this one's last line has been read, so the thread works on it
 * while the writer builds this file's read models (about half of an import's time).
 */
export function* readFiles(paths: readonly string[]): Generator<AsyncIterable<Entry>> {
  let next = paths.length > 0 ? readEntries(paths[0]!) : undefined
  let current: EntryReader | undefined
  try {
    for (let i = 0; i < paths.length; i++) {
      current = next!
      next = undefined
      const following = paths[i + 1]
      const reader = current
      yield (async function* () {
        yield* reader
        if (following !== undefined) next = readEntries(following)
      })()
      if (!next && following !== undefined) next = readEntries(following)
    }
  } finally {
    // A caller that stops early (a file failed) may leave the current file unread.
    current?.close()
    next?.close()
  }
}
