// The seam between the HTTP layer and whatever runs the API's data requests: in this
// thread (in-process.ts) or in a pool of worker threads (pool.ts).
import type { Readable } from 'node:stream'
import type { BoundSpec } from '../pipeline/bound.js'
import type { PageInfo } from '../endpoints/pages.js'
import type { Format } from '../endpoints/fields.js'

/** A content coding the answer may be sent in (serving/compress.ts). */
export type Coding = 'br' | 'gzip'

/** One data request, as the route has it after authentication. */
export interface DataRequest {
  readonly service: string
  /** The raw query string (the pipeline reads it itself: first value wins). */
  readonly query: string
  /** The request's clock reading; every date default of the answer derives from it. */
  readonly now: Date
  /**
   * Cut the answer for an agent (MCP) where it is built: the answer is then the JSON of a
   * BoundedText (pipeline/bound.ts), never given on the event loop.
   */
  readonly bound?: BoundSpec
  /**
   * The store's answers generation, read before the request runs, when its surface has just
   * read it (the HTTP route, for a conditional request): the answer cache uses it instead of
   * reading it again.
   */
  readonly gen?: string
  /** The coding the client accepts: the answer comes in it when it weighs 1 KiB or more (`Execution.coded` says so). */
  readonly coding?: Coding
  /** The format the request's `Accept` prefers, when not JSON (endpoints/fields.ts; `format` in the query wins). */
  readonly format?: Format
}

export interface Execution {
  /** Aborted when the client goes away: the request's work stops. */
  readonly signal: AbortSignal
  /** Whether the client is gone, asked without making `signal` where that costs. */
  readonly gone?: () => boolean
  /** Told how many `data` rows the answer holds (access log, metrics). */
  readonly rows?: (n: number) => void
  /** Told when the answer's bytes are in the request's `coding` (otherwise they are as they were). */
  readonly coded?: (coding: Coding) => void
  /** Told the answers generation when one is read for this request before its answer (the answer cache). */
  readonly gen?: (gen: string) => void
  /** Told a paged answer's next cursor and total (`limit`), before the answer is given. */
  readonly page?: (info: PageInfo) => void
  /** Told a CSV answer's `errors`, and a changes answer's `removed`, once its body has ended. */
  readonly errors?: (errors: readonly string[], removed?: readonly unknown[]) => void
}

export interface Executor {
  /**
   * The answer: whole bytes, or a stream once its first bytes exist. Rejects (a 500) when
   * the request fails or is stopped before any byte; after that, a failure destroys the
   * stream, so the client sees a cut body, never a valid-looking truncated one.
   */
  execute(request: DataRequest, how: Execution): Promise<Buffer | Readable>
  close(): Promise<void>
}

/** The time limit in words: `250 ms`, `30 s`, `1.5 s`. */
const limitText = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${+(ms / 1000).toFixed(3)} s`)

export const timeLimitMessage = (ms: number): string =>
  `request stopped: it ran longer than the time limit of ${limitText(ms)} (serve --request-timeout)`

export const CLIENT_GONE = 'request stopped: the client went away'

/** A request stopped on purpose (time limit, client gone), as opposed to one that failed. */
export class Stopped extends Error {}
