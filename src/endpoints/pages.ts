// Pages of a list (decision "Pages by keyset"): `limit=N` gives the first N rows in the
// list's own order and, while more remain, an opaque `cursor` to the next page: the keyset
// position of the page's last row (its sort keys, `ref` last; endpoints/define.ts
// `listOrder`), so a page never repeats or skips a row that did not change, whatever is
// written in between. `count=true` asks for the number of rows of the whole list. None of
// the three is a parameter of the contract: without `limit` the answer is the whole list
// as it always was, and the paging parameters are refused (400) rather than reported in
// `errors`, so a client that pages never takes a wrong page for a right one. They are not
// among an endpoint's declared parameters (those are the contract's): the OpenAPI document
// and the agent tools describe them beside the period (describe.ts `pageParams`).
import { createHash } from 'node:crypto'
import type { ListEndpoint } from './define.js'
import { NO, YES, listOrder } from './define.js'
import { m } from './meanings.js'
import type { Meaning } from './meanings.js'
import type { SqlValue } from '../store/sql.js'

const LIMIT_MAX = 10_000
const NAMES = ['limit', 'cursor', 'count'] as const

export const PAGE_MEANINGS: Readonly<Record<(typeof NAMES)[number], Meaning>> = {
  limit: m(
    `Размер страницы: первые N строк (1…${LIMIT_MAX}) в порядке списка; пока строки остаются, заголовок Link с rel="next" ведёт к следующей странице`,
    `Page size: the first N rows (1…${LIMIT_MAX}) in the list's order; while rows remain, a Link header with rel="next" leads to the next page`,
  ),
  cursor: m(
    'Позиция следующей страницы из заголовка Link (непрозрачная строка; только вместе с limit)',
    "The next page's position, from the Link header (an opaque string; only with limit)",
  ),
  count: m(
    'С limit: true добавляет заголовок X-Total-Count — число строк всего списка',
    'With limit: true adds an X-Total-Count header, the number of rows of the whole list',
  ),
}

/** What a paged request asks for. */
export interface PageRequest {
  readonly limit: number
  /** The sort keys of the previous page's last row (none: the first page). */
  readonly after?: readonly SqlValue[]
  readonly count: boolean
}

/** What a paged answer says besides its body: the route turns it into `Link` and `X-Total-Count`. */
export interface PageInfo {
  /** The cursor of the next page; none on the last one. */
  readonly next?: string
  readonly total?: number
}

/** A paging parameter that cannot be followed: the request is refused (400) with this message. */
export class BadPageRequest extends Error {}

// An empty value is the same as an absent parameter (decision D5), as for the contract's.
export const given = (pairs: ReadonlyMap<string, string>, name: string): string | undefined => {
  const v = pairs.get(name)
  return v === undefined || v === '' ? undefined : v
}

/** The request's pages: undefined without `limit` (the whole list); throws BadPageRequest. */
export function pageRequest(ep: ListEndpoint, pairs: ReadonlyMap<string, string>): PageRequest | undefined {
  const limit = given(pairs, 'limit')
  const cursor = given(pairs, 'cursor')
  const count = given(pairs, 'count')
  if (limit === undefined) {
    if (cursor !== undefined || count !== undefined) throw new BadPageRequest(`${cursor !== undefined ? 'cursor' : 'count'} needs limit`)
    return undefined
  }
  if (!/^\d{1,5}$/.test(limit) || Number(limit) < 1 || Number(limit) > LIMIT_MAX)
    throw new BadPageRequest(`limit must be a whole number from 1 to ${LIMIT_MAX}, got "${limit}"`)
  let counted = false
  if (count !== undefined) {
    const v = count.toLowerCase()
    if (!YES.includes(v) && !NO.includes(v)) throw new BadPageRequest(`count must be true or false, got "${count}"`)
    counted = YES.includes(v)
  }
  return { limit: Number(limit), count: counted, ...(cursor !== undefined ? { after: decodeCursor(ep, pairs, cursor) } : {}) }
}

/**
 * What a cursor is bound to: the service and the request's other parameters (first value of
 * each key, `limit` and `count` aside, which may change from page to page).
 */
function scope(ep: ListEndpoint, pairs: ReadonlyMap<string, string>): string {
  const rest = [...pairs]
    .filter(([k, v]) => !(NAMES as readonly string[]).includes(k) && v !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return digest(JSON.stringify([ep.service, rest]))
}

const digest = (text: string): string => createHash('sha256').update(text).digest('base64url').slice(0, 16)

/** The cursor of the page after the row whose sort keys are `keys`. */
export function encodeCursor(ep: ListEndpoint, pairs: ReadonlyMap<string, string>, keys: readonly SqlValue[]): string {
  const body = Buffer.from(JSON.stringify([1, scope(ep, pairs), keys])).toString('base64url')
  return `${body}.${digest(body)}`
}

function decodeCursor(ep: ListEndpoint, pairs: ReadonlyMap<string, string>, cursor: string): SqlValue[] {
  const bad = (why: string) => new BadPageRequest(`cursor is not one this request gave: ${why}`)
  const [body, check, extra] = cursor.split('.')
  if (body === undefined || check === undefined || extra !== undefined || !/^[\w-]+$/.test(body) || digest(body) !== check)
    throw bad('malformed')
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(body, 'base64url').toString())
  } catch {
    throw bad('malformed')
  }
  if (!Array.isArray(value) || value.length !== 3 || value[0] !== 1 || !Array.isArray(value[2])) throw bad('malformed')
  if (value[1] !== scope(ep, pairs)) throw bad('it belongs to another endpoint or other parameters')
  const keys = value[2] as unknown[]
  if (
    keys.length !== listOrder(ep).length ||
    !keys.every((k) => k === null || typeof k === 'string' || (typeof k === 'number' && Number.isFinite(k)))
  )
    throw bad('malformed')
  return keys as SqlValue[]
}
