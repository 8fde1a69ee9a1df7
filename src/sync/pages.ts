// Offset paging over one window (sync.md §7.2): adaptive page sizes (8 MiB ÷ bytes per
// entry of the last page, within 1…1000), a 5xx or timeout divides the size by 4 and the
// same offset is read again, the window ends at a short page.
import type { RequestOptions, Source, SourceError } from './source/client.js'

export interface PageQuery {
  readonly set: string
  readonly select?: string
  readonly filter?: string
  readonly orderby: string
}

export interface Paging {
  /** Current page size (object pages learn it; version pages stay at 1000 unless a failure shrinks them). */
  size: number
  readonly adaptive: boolean
}

const TARGET_BYTES = 8 * 1024 * 1024
const MAX_PAGE = 1000

export interface Page {
  readonly entities: Record<string, unknown>[]
  readonly bytes: number
}

interface Fetched extends Page {
  readonly top: number
  readonly more: boolean
}

/**
 * The pages of one query in order. The next page is requested as soon as this one has
 * arrived, before the caller writes it: the source prepares the next answer while the
 * store commits this one (one request ahead, within the client's limit of 2 at once).
 */
export async function* pages(source: Source, q: PageQuery, paging: Paging): AsyncGenerator<Page> {
  const fetch = async (skip: number): Promise<Fetched> => {
    let top = paging.size
    const { body, bytes } = await source.json<{ value?: unknown; 'odata.nextLink'?: string }>(
      () =>
        source.url(q.set, {
          $format: 'json',
          $select: q.select,
          $filter: q.filter,
          $orderby: q.orderby,
          $top: top,
          $skip: skip || undefined,
        }),
      {
        beforeRetry: (err: SourceError) => {
          if (err.kind === 'status' || err.message === 'read timeout') {
            top = Math.max(1, Math.floor(top / 4))
            paging.size = top
          }
        },
      },
    )
    if (!Array.isArray(body.value)) throw new Error('answer without a "value" array')
    const entities = body.value as Record<string, unknown>[]
    if (paging.adaptive && entities.length > 0) {
      paging.size = Math.min(MAX_PAGE, Math.max(1, Math.floor(TARGET_BYTES / (bytes / entities.length))))
    }
    return { entities, bytes, top, more: entities.length > 0 && (entities.length >= top || body['odata.nextLink'] !== undefined) }
  }
  let skip = 0
  let next: Promise<Fetched> | undefined = fetch(skip)
  try {
    while (next) {
      const page: Fetched = await next
      next = undefined
      if (page.more) {
        skip += page.entities.length
        next = fetch(skip)
        // Awaited on the next turn; until then a failure must not count as unhandled.
        next.catch(() => {})
      }
      yield { entities: page.entities, bytes: page.bytes }
    }
  } finally {
    // A caller that stops early abandons the request ahead; its answer is not needed.
    next?.catch(() => {})
  }
}

/**
 * Lets the event loop run. Mapping and writing a page or a round is one chain of
 * microtasks: without a turn of the loop in between, the request asked ahead is not even
 * written to the socket (the HTTP client sends from an immediate) and the answer that came
 * meanwhile is not read, so the source would wait for the store instead of working beside it.
 */
export const yieldToIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Objects or record sets handled between two turns of the event loop. */
export const YIELD_EVERY = 16

/** `Ref_Key eq guid'a' or …` for up to 20 refs. */
export const refFilter = (refs: readonly string[]): string => refs.map((r) => `Ref_Key eq guid'${r}'`).join(' or ')

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/**
 * Reads a group of keys (refetch, record sets); a group the source finds too heavy (5xx,
 * timeout) is read again in quarters, as a page would be made smaller (§7.2), after the
 * wait of §8. Every read that held a key counts among its 5 attempts: a single key gets
 * what is left of the schedule.
 */
export async function inGroups<T, R>(
  source: Source,
  items: readonly T[],
  read: (group: readonly T[], opts: RequestOptions) => Promise<R[]>,
  spent = 0,
): Promise<R[]> {
  if (items.length <= 1) return read(items, { spent })
  try {
    return await read(items, { retry: false })
  } catch (err) {
    const e = err as SourceError
    if (!(e instanceof Error) || !('retryable' in e) || !e.retryable || (e.kind !== 'status' && e.message !== 'read timeout')) throw err
    if (spent + 1 >= source.attempts) throw err
    await source.pause(spent)
    const size = Math.ceil(items.length / 4)
    const out: R[] = []
    for (const part of chunks(items, size)) out.push(...(await inGroups(source, part, read, spent + 1)))
    return out
  }
}
