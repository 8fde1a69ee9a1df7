// What the fake's HTTP side asks of the infobase it publishes: the entity sets, and pages of
// their entities as 1C answers them. Two infobases answer it: objects held in memory
// (memory.ts: tests put and remove objects as 1C users would) and a docgate store read page
// by page (store.ts: `docgate fake-1c`, at the size of a real base).
import type { EntityDecl } from './edmx.js'
import { parseOrderBy } from './query.js'
import type { Obj } from './upp.js'

export type SetKind = 'catalog' | 'document' | 'records' | 'rows'

/** One entity of an answer: its JSON, whole or limited to `select` (`key` names that choice). */
export interface Item {
  json(select: readonly string[] | undefined, key: string): string
}

export interface PageQuery {
  readonly filter?: string
  readonly orderby?: string
  readonly select?: readonly string[]
  readonly skip: number
  readonly top?: number
}

export interface SetView {
  readonly name: string
  readonly kind: SetKind
  readonly props: ReadonlySet<string>
  /** The entity keyed `key` (a lower-case GUID: Ref_Key or Recorder). */
  byKey(key: string, select: readonly string[] | undefined): Promise<Item | undefined>
  /** The entities `$filter` keeps, in `$orderby` order, `$skip`/`$top` applied. */
  page(q: PageQuery): Promise<Item[]>
}

export interface Backend {
  decls(hidden: ReadonlySet<string>): Promise<EntityDecl[]>
  metadata(hidden: ReadonlySet<string>): Promise<string>
  entitySet(name: string): Promise<SetView | undefined>
  put(object: Obj): void
  remove(ref: string): void
  close(): Promise<void>
}

export function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  const x = String(a ?? '')
  const y = String(b ?? '')
  return x < y ? -1 : x > y ? 1 : 0
}

/** 1C's own order for `$orderby=Ref_Key`: name then code, or date then number. */
export function orderKey(kind: SetKind, entity: Obj): string {
  if (kind === 'catalog') return `${String(entity.Description ?? '')}\u0000${String(entity.Code ?? '')}`
  if (kind === 'document') return `${String(entity.Date)}\u0000${String(entity.Number)}`
  return String(entity.Recorder ?? entity.Ref_Key ?? '')
}

/** Sorts `list` by `$orderby` (stable: equal entries keep their order). */
export function sortBy<T>(
  kind: SetKind,
  props: ReadonlySet<string>,
  list: T[],
  orderby: string | undefined,
  entity: (t: T) => Obj,
  order: (t: T) => string,
): T[] {
  if (!orderby) return list
  const keys = parseOrderBy(orderby, (n) => props.has(n))
  return list.sort((a, b) => {
    for (const k of keys) {
      const ea = entity(a)
      const eb = entity(b)
      const c =
        k.name === 'Ref_Key' && (kind === 'catalog' || kind === 'document')
          ? compare(order(a), order(b))
          : k.name === 'LineNumber'
            ? Number(ea.LineNumber) - Number(eb.LineNumber)
            : compare(ea[k.name], eb[k.name])
      if (c !== 0) return k.desc ? -c : c
    }
    return 0
  })
}

/** A date window over the property the list is ordered by: a slice of it, found by bisection. */
export const DATE_RANGE = /^(Date|Period) ge datetime'([0-9T:-]{19})'(?: and \1 lt datetime'([0-9T:-]{19})')?$/

// A filter that is a disjunction of keys (`Ref_Key eq guid'…' or …`, or the recorder groups
// `(Recorder eq '…' and Recorder_Type eq '…') or …` that sync reads) is answered from the key
// index, as 1C answers it from its own: a scan per group would make the fake, not the
// connector, the bottleneck of a large base. The whole filter still runs on what the index gives.
const KEY_TERM = /^\s*(\()?\s*(Ref_Key|Recorder) eq (?:guid)?'([0-9a-fA-F-]{36})'(?:\s+and\s+Recorder_Type eq '[^']*')?\s*(\))?\s*/
export function keysOnly(filter: string): { prop: string; keys: string[] } | undefined {
  const keys: string[] = []
  let prop: string | undefined
  let rest = filter
  for (;;) {
    const m = KEY_TERM.exec(rest)
    if (!m || Boolean(m[1]) !== Boolean(m[4]) || (prop !== undefined && m[2] !== prop)) return undefined
    prop = m[2]!
    keys.push(m[3]!.toLowerCase())
    rest = rest.slice(m[0].length)
    if (rest === '') return { prop, keys }
    if (!rest.startsWith('or ')) return undefined
    rest = rest.slice(3)
  }
}

/** The property that keys a set's entities in a `$filter` (`Ref_Key eq …`, `Recorder eq …`). */
export const keyProp = (kind: SetKind): string => (kind === 'catalog' || kind === 'document' ? 'Ref_Key' : 'Recorder')
