// The part of OData v3 query syntax the fake answers, as 1C does: `$filter` expressions
// (or/and/not, comparisons, guid/datetime/string/number literals), `$orderby`, `$select`.

export class QueryError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

type Token =
  | { t: 'id'; v: string }
  | { t: 'lit'; v: string | number | boolean; kind: 'guid' | 'datetime' | 'string' | 'number' | 'bool' }
  | { t: 'op'; v: string }

function tokenize(text: string): Token[] {
  const out: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c === ' ') {
      i++
      continue
    }
    if (c === '(' || c === ')' || c === ',') {
      out.push({ t: 'op', v: c })
      i++
      continue
    }
    const quoted = /^(guid|datetime)?'/.exec(text.slice(i))
    if (quoted) {
      let j = i + quoted[0].length
      let v = ''
      for (;;) {
        if (j >= text.length) throw new QueryError(400, '14', `unterminated literal at ${i}`)
        if (text[j] === "'") {
          if (text[j + 1] === "'") {
            v += "'"
            j += 2
            continue
          }
          break
        }
        v += text[j++]
      }
      out.push({ t: 'lit', v, kind: (quoted[1] as 'guid' | 'datetime' | undefined) ?? 'string' })
      i = j + 1
      continue
    }
    const word = /^[-\d.]+|^[\p{L}\p{N}_]+/u.exec(text.slice(i))
    if (!word) throw new QueryError(400, '14', `unexpected character "${c}" at ${i}`)
    const w = word[0]
    if (/^-?\d+(\.\d+)?$/.test(w)) out.push({ t: 'lit', v: Number(w), kind: 'number' })
    else if (w === 'true' || w === 'false') out.push({ t: 'lit', v: w === 'true', kind: 'bool' })
    else if (['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'and', 'or', 'not'].includes(w)) out.push({ t: 'op', v: w })
    else out.push({ t: 'id', v: w })
    i += w.length
  }
  return out
}

const GUID = /^[0-9a-fA-F-]{36}$/

type Predicate = (e: Record<string, unknown>) => boolean

export interface Compiled {
  readonly test: Predicate
  /** Property names the expression reads. */
  readonly names: readonly string[]
}

/** Parses `$filter`; `known` decides whether a property exists (400 code 6 otherwise). */
export function compileFilter(text: string, known: (name: string) => boolean): Compiled {
  const tokens = tokenize(text)
  const names: string[] = []
  let pos = 0
  const peek = () => tokens[pos]
  const expectOp = (v: string) => {
    const t = tokens[pos++]
    if (!t || t.t !== 'op' || t.v !== v) throw new QueryError(400, '14', `expected "${v}"`)
  }
  const operand = (): ((e: Record<string, unknown>) => unknown) & { kind?: string; prop?: string } => {
    const t = tokens[pos++]
    if (!t) throw new QueryError(400, '14', 'unexpected end of $filter')
    if (t.t === 'id') {
      if (!known(t.v)) throw new QueryError(400, '6', `Неизвестное свойство: ${t.v}`)
      names.push(t.v)
      return Object.assign((e: Record<string, unknown>) => e[t.v], { prop: t.v })
    }
    if (t.t === 'lit') {
      const v = t.kind === 'guid' ? String(t.v).toLowerCase() : t.v
      return Object.assign(() => v, { kind: t.kind })
    }
    throw new QueryError(400, '14', `unexpected "${t.v}"`)
  }
  const comparison = (): Predicate => {
    const t = peek()
    if (t?.t === 'op' && t.v === '(') {
      pos++
      const inner = disjunction()
      expectOp(')')
      return inner
    }
    if (t?.t === 'op' && t.v === 'not') {
      pos++
      const inner = comparison()
      return (e) => !inner(e)
    }
    const left = operand()
    const op = tokens[pos++]
    if (!op || op.t !== 'op' || !['eq', 'ne', 'gt', 'ge', 'lt', 'le'].includes(op.v))
      throw new QueryError(400, '14', 'expected a comparison')
    const right = operand()
    // 1C cannot compare references by order: it answers 500 (sync.md §3).
    if (op.v !== 'eq' && op.v !== 'ne' && (left.prop === 'Ref_Key' || right.kind === 'guid')) {
      throw new QueryError(500, '-1', 'Ошибка при выполнении запроса: сравнение ссылок на больше/меньше не поддерживается')
    }
    const norm = (v: unknown) => (typeof v === 'string' && v.length === 36 && GUID.test(v) ? v.toLowerCase() : v)
    const cmp = (a: unknown, b: unknown): number => {
      const x = norm(a)
      const y = norm(b)
      if (typeof x === 'number' || typeof y === 'number') return Number(x) - Number(y)
      return String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0
    }
    switch (op.v) {
      case 'eq':
        return (e) => cmp(left(e), right(e)) === 0
      case 'ne':
        return (e) => cmp(left(e), right(e)) !== 0
      case 'gt':
        return (e) => cmp(left(e), right(e)) > 0
      case 'ge':
        return (e) => cmp(left(e), right(e)) >= 0
      case 'lt':
        return (e) => cmp(left(e), right(e)) < 0
      default:
        return (e) => cmp(left(e), right(e)) <= 0
    }
  }
  const conjunction = (): Predicate => {
    let p = comparison()
    while (peek()?.t === 'op' && peek()!.v === 'and') {
      pos++
      const a = p
      const b = comparison()
      p = (e) => a(e) && b(e)
    }
    return p
  }
  const disjunction = (): Predicate => {
    let p = conjunction()
    while (peek()?.t === 'op' && peek()!.v === 'or') {
      pos++
      const a = p
      const b = conjunction()
      p = (e) => a(e) || b(e)
    }
    return p
  }
  const test = disjunction()
  if (pos !== tokens.length) throw new QueryError(400, '14', 'unexpected text after the expression')
  return { test, names }
}

/** `$orderby=A,B desc`: property names (checked) and directions. */
export function parseOrderBy(text: string, known: (name: string) => boolean): { name: string; desc: boolean }[] {
  return text.split(',').map((part) => {
    const [name = '', dir = 'asc', extra] = part.trim().split(/\s+/)
    if (extra !== undefined || (dir !== 'asc' && dir !== 'desc')) throw new QueryError(400, '14', `bad $orderby: ${part}`)
    if (!known(name)) throw new QueryError(400, '6', `Неизвестное свойство: ${name}`)
    return { name, desc: dir === 'desc' }
  })
}
