// Changes since (decision "Changes since"): every answer of a list carries the store's change
// position as `X-Changes-Token`; `changed_since=<token>` gives only the rows of the list
// re-printed since, and `removed`, the identities of rows gone since. Like the paging
// parameters it is not the contract's: without it nothing of an answer changes, and a token
// that cannot be followed is refused before any read — 400 when it is not a token at all,
// 410 when the log no longer reaches back to it (older than ACCEPT_DAYS, or from before the
// list was rebuilt whole) or it is not one this store gave: the client reloads the list.
import type { ListEndpoint } from './define.js'
import { m } from './meanings.js'
import type { Meaning } from './meanings.js'
import { BadPageRequest } from './pages.js'
import { ACCEPT_DAYS, changedAfter, changesState, removedAfter } from '../views/changes.js'
import type { ChangesState } from '../views/changes.js'
import type { Condition } from '../store/plan.js'
import type { SqlPort } from '../store/sql.js'

export const CHANGED_SINCE = 'changed_since'

export const CHANGES_MEANING: Meaning = m(
  `Только строки, созданные или изменённые после позиции из заголовка X-Changes-Token прежнего ответа (и «removed» — удалённые с тех пор); позиция старше ${ACCEPT_DAYS} дней — 410`,
  `Only the rows created or changed since the position in an earlier answer's X-Changes-Token header (and "removed", those deleted since); a position older than ${ACCEPT_DAYS} days is 410`,
)

/** A changes token that cannot be followed: 400 (not a token) or 410 (reload the list). */
export class BadChangesToken extends BadPageRequest {
  constructor(
    message: string,
    readonly status: 400 | 410,
  ) {
    super(message)
  }
}

/** What a `changed_since` request asks for. */
export interface ChangesRequest {
  readonly since: number
  readonly store: string
}

// The position, then the store's id: a store made anew never takes another's tokens.
const TOKEN = /^(\d{1,15})\.([\w-]{12})$/

const changesToken = (position: number, store: string): string => `${position}.${store}`

/** The request's `changed_since`: undefined without it; throws BadChangesToken (400) when it is not a token. */
export function changesRequest(pairs: ReadonlyMap<string, string>): ChangesRequest | undefined {
  const token = pairs.get(CHANGED_SINCE)
  // An empty value is the same as an absent parameter (decision D5), as for the contract's.
  if (token === undefined || token === '') return undefined
  const match = TOKEN.exec(token)
  if (!match) throw new BadChangesToken(`changed_since must be the X-Changes-Token of an earlier answer, got "${token}"`, 400)
  return { since: Number(match[1]), store: match[2]! }
}

/**
 * The token an answer of `ep` carries, read before the answer so it never names a change the
 * answer lacks: `known`, the position the serving process knows, or for a `changed_since`
 * request the one read to check it; throws BadChangesToken when that cannot be followed.
 */
export async function changesHeader(
  sql: SqlPort,
  ep: ListEndpoint,
  pairs: ReadonlyMap<string, string>,
  known: () => Promise<{ readonly store: string; readonly position: number }>,
): Promise<string> {
  const asked = changesRequest(pairs)
  const state = asked === undefined ? await known() : await changesState(sql, ep.readModel.table)
  if (asked !== undefined) followable(asked, state as ChangesState)
  return changesToken(state.position, state.store)
}

/** `changesHeader` over this store for every list a surface answers (HTTP, MCP), the serving position read by `known`. */
export const changesFor =
  (sql: SqlPort, known: () => Promise<{ readonly store: string; readonly position: number }>) =>
  (ep: ListEndpoint, pairs: ReadonlyMap<string, string>): Promise<string> =>
    changesHeader(sql, ep, pairs, known)

function followable(asked: ChangesRequest, state: ChangesState): void {
  const reload = 'reload the list without changed_since and go on from its X-Changes-Token'
  if (asked.store !== state.store || asked.since > state.position)
    throw new BadChangesToken(`changed_since is not a token this store gave: ${reload}`, 410)
  if (asked.since < state.oldest)
    throw new BadChangesToken(
      `changed_since is older than the change log keeps (${ACCEPT_DAYS} days) or than the list's last rebuild: ${reload}`,
      410,
    )
}

/** The condition keeping the rows re-printed since the token. */
export const changedRows = (ep: ListEndpoint, asked: ChangesRequest): Condition => changedAfter(ep.readModel.table, asked.since)

/** The identities removed since the token, as JSON texts; throws BadChangesToken when it cannot be followed. */
export async function removedSince(sql: SqlPort, ep: ListEndpoint, asked: ChangesRequest): Promise<string[]> {
  followable(asked, await changesState(sql, ep.readModel.table))
  return removedAfter(sql, ep.readModel.table, asked.since)
}

/** The printed fields a client knows a row by: `Код` for a catalogue; for a document `Номер` and its date (`Дата`, or payments' `ДатаДокумента`). */
export function identityOf(ep: ListEndpoint): readonly string[] {
  const printed = Object.keys((ep.response.short as { properties?: Record<string, unknown> }).properties ?? {})
  if (printed.includes('Код')) return ['Код']
  return ['Номер', printed.includes('Дата') ? 'Дата' : 'ДатаДокумента']
}

/** The JSON schema of a list's `removed` (answers with changed_since only): one object of identity fields per row gone. */
export function removedSchema(ep: ListEndpoint): Record<string, unknown> {
  const fields = identityOf(ep)
  return {
    type: 'array',
    description:
      'With `changed_since` only: the identities of the rows gone since the token (deleted, or their identity changed); apply it before `data`',
    items: {
      type: 'object',
      additionalProperties: false,
      required: fields,
      properties: Object.fromEntries(fields.map((f) => [f, { type: 'string' }])),
    },
  }
}
