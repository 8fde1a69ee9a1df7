// Answers kept in the serving process. What the API prints is a pure function of the stored
// data, the request and the day it is asked on (a cash statement without `to` ends today),
// so an answer kept under the store's answers generation (views/generation.ts, drawn anew
// by every import batch and migration) is the answer while the store still names that
// generation: one read of `meta` instead of the request's reads and builds. A BI report or a
// dashboard asks the same questions again and again; the 6 MB of
// `specifications?material=Кабель` took 220 ms of a worker each time (decision "Answers kept
// by the store's generation").
//
// Only what is asked again is kept: a request is remembered on its first asking (no store
// read), and its answer kept from the second asking within the last SEEN distinct requests.
// Answers asked once (random periods) would churn long-lived buffers through the collector
// for nothing (decision "Ready pages kept in each serving thread"). When the room is taken,
// what stays is what saves the most build time per byte (decision "Cold answers"): a new
// answer takes the place of the kept answers least worth their bytes — those unused for
// STALE_MS first, then those of least build time per byte — only when those of them used
// within STALE_MS took less time to build, all together, than it did. Answers of equal worth
// do not replace each other (full orders over random periods, 280 MB of them, would
// otherwise be built, copied and collected at every asking: 0.21 → 0.15 of the bare server),
// and a heavy answer asked again gets in though the room is busy with cheap ones. An answer
// whose `errors` is not empty is never kept: a part that failed to read may read next time.
import { Transform, pipeline } from 'node:stream'
import type { Readable } from 'node:stream'
import { performance } from 'node:perf_hooks'
import { LRUCache } from 'lru-cache'
import { isoDay, today } from '../values/dates.js'
import { answersGen } from '../views/generation.js'
import type { SqlPort } from '../store/sql.js'
import { hold } from './lent.js'
import { codedAnswer } from './compress.js'
import type { Coded } from './compress.js'
import type { Coding, DataRequest, Execution, Executor } from './executor.js'
import type { PageInfo } from '../endpoints/pages.js'

/** Requests remembered to admit an answer on its second asking. */
const SEEN = 256
/** A kept answer unused this long saves nothing: it gives way first, whatever it cost. */
const STALE_MS = 60_000
/** The envelope's end when `errors` is empty (spec: every answer ends with its `errors`). */
const NO_ERRORS = Buffer.from(',"errors":[]}')

/** An answer of the generation `current` names (the cache is emptied when it changes). */
interface Kept {
  readonly rows: number | undefined
  readonly bytes: Buffer
  /** The coding `bytes` are in (none: plain JSON). */
  readonly coding: Coding | undefined
  /** Milliseconds it took to build (a stream's until its end): what each asking saves. */
  readonly cost: number
  /** A paged answer's next cursor and total. */
  readonly page: PageInfo | undefined
  used: number
}

export interface AnswerCacheOptions {
  /** Bytes of answers kept (0: none); one answer may take at most a quarter of them. */
  readonly bytes: number
  /** Milliseconds, for build times and staleness (tests give their own). */
  readonly clock?: () => number
}

/** What the cache has done, for the metrics. */
export interface AnswerCacheStats {
  /** Answers given as kept. */
  readonly hits: number
  /** Answers asked again that were built all the same (not kept, or kept under an earlier generation). */
  readonly misses: number
  /** Bytes of the answers kept now. */
  readonly bytes: number
}

export interface AnswerCache extends Executor {
  readonly stats: AnswerCacheStats
  /** Answers compressed for a client that accepts a coding (a kept one is given as it was kept). */
  readonly compressions: number
}

/**
 * `how` that notes the answer's rows and page for the kept answer. The route makes its
 * AbortSignal only when something asks for it, so `signal` is a getter, on a class: an object
 * literal's getter is an accessor pair V8 makes in the old generation, which held the
 * request's objects past every scavenge (docs/perf/history.md "What the main thread promotes").
 */
class Counted implements Execution {
  seenRows: number | undefined
  seenPage: PageInfo | undefined
  readonly gone?: () => boolean
  readonly errors?: (errors: readonly string[], removed?: readonly unknown[]) => void

  constructor(private readonly how: Execution) {
    this.gone = how.gone
    this.errors = how.errors
  }

  get signal(): AbortSignal {
    return this.how.signal
  }

  readonly rows = (n: number): void => {
    this.seenRows = n
    this.how.rows?.(n)
  }

  readonly page = (info: PageInfo): void => {
    this.seenPage = info
    this.how.page?.(info)
  }
}

/** `inner` with its repeated answers kept (`bytes` > 0: `serve --answer-cache 0` uses `inner` itself). */
export function answerCache(inner: Executor, sql: SqlPort, { bytes, clock = () => performance.now() }: AnswerCacheOptions): AnswerCache {
  if (!(bytes > 0)) throw new RangeError(`an answer cache of ${bytes} bytes keeps nothing`)
  const largest = Math.floor(bytes / 4)
  const kept = new LRUCache<string, Kept>({ maxSize: bytes, sizeCalculation: (k) => k.bytes.length + 1 })
  const seen = new LRUCache<string, true>({ max: SEEN })
  /** The generation the last asking read: every answer kept is of it. */
  let current = ''
  let hits = 0
  let misses = 0
  let compressions = 0
  const compressed = () => {
    compressions++
  }
  /**
   * The kept answers that give way to a new one of `size` (counted) bytes that took `cost` ms
   * to build: none while it fits; else those unused for STALE_MS (oldest first), then those
   * of least cost per byte (least recently used first among equals), until it fits. Undefined
   * when it is not worth them: some victims were used within STALE_MS, and those took as much
   * time to build, all together, as it did, or more.
   */
  const victimsFor = (size: number, cost: number, at: number): string[] | undefined => {
    let short = kept.calculatedSize + size - bytes
    if (short <= 0) return []
    const stale = (k: Kept) => at - k.used > STALE_MS
    // rkeys: least recently used first; the sort is stable.
    const order = [...kept.rkeys()].map((key) => ({ key, k: kept.peek(key)! }))
    order.sort(
      (a, b) =>
        Number(stale(b.k)) - Number(stale(a.k)) || (stale(a.k) ? 0 : a.k.cost / (a.k.bytes.length + 1) - b.k.cost / (b.k.bytes.length + 1)),
    )
    const victims: string[] = []
    let fresh = 0
    let lost = 0
    for (const { key, k } of order) {
      if (short <= 0) break
      victims.push(key)
      short -= k.bytes.length + 1
      if (!stale(k)) {
        fresh++
        lost += k.cost
      }
    }
    return fresh === 0 || lost < cost ? victims : undefined
  }

  return {
    async execute(request: DataRequest, how: Execution) {
      const coding = request.coding
      // Each coding its own entry: a kept answer is given in the bytes it was kept in.
      const key = `${request.service}\n${isoDay(today(request.now))}\n${request.query}${request.bound ? `\n${JSON.stringify(request.bound)}` : ''}${request.format ? `\n${request.format}` : ''}${coding === undefined ? '' : `\n${coding}`}`
      const coded = (out: Coded) => {
        if (out.coding !== undefined) how.coded?.(out.coding)
        return out.body
      }
      if (!kept.has(key) && !seen.has(key)) {
        seen.set(key, true)
        return coded(await codedAnswer(await inner.execute(request, how), coding, compressed))
      }
      const gen = request.gen ?? (await answersGen(sql))
      if (request.gen === undefined) how.gen?.(gen)
      if (gen !== current) {
        // What is kept is of another generation: no answer now, and its room is the new one's at once.
        kept.clear()
        current = gen
      }
      // Looked up after the read: whatever is kept now is of `gen`.
      const known = kept.get(key)
      if (known !== undefined) {
        known.used = clock()
        if (known.rows !== undefined) how.rows?.(known.rows)
        if (known.coding !== undefined) how.coded?.(known.coding)
        if (known.page !== undefined) how.page?.(known.page)
        hits++
        return known.bytes
      }
      misses++
      const counted = new Counted(how)
      const start = clock()
      const body = await inner.execute(request, counted)
      // Whether a coded answer's `errors` is empty is seen on its plain bytes (its coded end says nothing).
      let plain: Buffer | Readable = body
      let plainEnd = () => (Buffer.isBuffer(body) ? body : Buffer.alloc(0))
      if (coding !== undefined && !Buffer.isBuffer(body)) {
        const tail = lastBytes(body, NO_ERRORS.length)
        plain = tail.stream
        plainEnd = tail.bytes
      }
      const out = await codedAnswer(plain, coding, compressed)
      const keep = (answer: Buffer) => {
        const clean = endsClean(out.coding === undefined ? answer : plainEnd())
        // An answer that began under a generation since replaced is kept by no one.
        if (gen !== current || answer.length > largest || !clean) return
        const at = clock()
        const cost = at - start
        const victims = victimsFor(answer.length + 1, cost, at)
        if (victims === undefined) return
        for (const v of victims) kept.delete(v)
        kept.set(key, { rows: counted.seenRows, page: counted.seenPage, bytes: answer, coding: out.coding, cost, used: at })
      }
      if (Buffer.isBuffer(out.body)) keep(out.body)
      return coded(Buffer.isBuffer(out.body) ? out : { body: collected(out.body, largest, keep), coding: out.coding })
    },
    close: () => inner.close(),
    get stats() {
      return { hits, misses, bytes: kept.calculatedSize }
    },
    get compressions() {
      return compressions
    },
  }
}

const endsClean = (answer: Buffer): boolean => answer.subarray(-NO_ERRORS.length).equals(NO_ERRORS)

/** `source` passed on as it is, its last `n` bytes known once it has ended. */
function lastBytes(source: Readable, n: number): { stream: Readable; bytes: () => Buffer } {
  let last: Buffer = Buffer.alloc(0)
  const through = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      // A copy: the chunk's memory may go back to its worker once written (serving/lent.ts).
      last = Buffer.concat([last, chunk.subarray(-n)]).subarray(-n)
      callback(null, chunk)
    },
  })
  pipeline(source, through, () => {})
  return { stream: through, bytes: () => last }
}

/**
 * `source` passed on chunk by chunk (its back-pressure and its failure unchanged: a failed
 * source cuts the stream), its bytes handed to `done` when it ended whole within `largest`.
 */
function collected(source: Readable, largest: number, done: (answer: Buffer) => void): Readable {
  let parts: Buffer[] | undefined = []
  let size = 0
  const through = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (parts !== undefined) {
        size += chunk.length
        if (size > largest) parts = undefined
        else {
          hold(chunk)
          parts.push(chunk)
        }
      }
      callback(null, chunk)
    },
    flush(callback) {
      if (parts !== undefined) done(Buffer.concat(parts, size))
      callback()
    },
  })
  // The route's reply destroys `through` when the client goes away: pipeline destroys the source, which stops its work.
  pipeline(source, through, () => {})
  return through
}
