// Messages between the pool (main thread) and a serving worker. Answer bytes travel as
// transferred ArrayBuffers; the worker sends at most WINDOW chunks beyond the credit the
// main side has returned, so a slow client holds a bounded amount of memory.
import type { BoundSpec } from '../pipeline/bound.js'
import type { PageInfo } from '../endpoints/pages.js'
import type { Format } from '../endpoints/fields.js'

export const WINDOW = 4

/** Values of a worker's stop flag (one Int32 in a SharedArrayBuffer, read between rows). */
export const RUNNING = 0
export const CANCELLED = 1
export const TIMED_OUT = 2

export interface WorkerSetup {
  readonly db: string
  /** PostgreSQL: this worker's share of the serving connections. */
  readonly connections?: number
  /** Report each store read's duration (the store-query histogram). */
  readonly timeQueries: boolean
  readonly flag: SharedArrayBuffer
}

export type ToWorker =
  | {
      readonly type: 'run'
      readonly id: number
      readonly service: string
      readonly query: string
      readonly now: number
      readonly deadline: number
      readonly limitMs: number
      readonly bound?: BoundSpec
      readonly format?: Format
    }
  | { readonly type: 'credit'; readonly id: number; readonly n: number }
  /** A streamed chunk's buffer, given back once the socket has written it (serving/lent.ts). */
  | { readonly type: 'spare'; readonly bytes: ArrayBuffer }
  /** Wakes a worker waiting for credit so that it reads its stop flag. */
  | { readonly type: 'cancel'; readonly id: number }

export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'warn'; readonly message: string }
  /** A paged answer's next cursor and total, sent before its bytes. */
  | { readonly type: 'page'; readonly id: number; readonly page: PageInfo }
  /** A CSV answer's `errors`, sent after its last chunk and before its end. */
  | { readonly type: 'errors'; readonly id: number; readonly errors: readonly string[]; readonly removed?: readonly unknown[] }
  | { readonly type: 'whole'; readonly id: number; readonly bytes: ArrayBuffer; readonly rows: number | null; readonly queries: number[] }
  /** `length` bytes of `bytes` are the answer's; the buffer may be bigger, to be filled again. */
  | { readonly type: 'chunk'; readonly id: number; readonly bytes: ArrayBuffer; readonly length: number }
  | { readonly type: 'end'; readonly id: number; readonly rows: number | null; readonly queries: number[] }
  | { readonly type: 'error'; readonly id: number; readonly message: string; readonly stopped: boolean; readonly queries: number[] }
