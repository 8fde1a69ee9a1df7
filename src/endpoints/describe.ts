// The human text of the declarations: what each service returns and what each parameter
// does. One source for the OpenAPI document (openapi/document.ts) and the agent tools
// (mcp/tools.ts), so the two can never describe an endpoint differently.
import type { Endpoint, Param } from './define.js'
import { PAGE_MEANINGS } from './pages.js'
import { OUTPUT_MEANINGS, itemFields } from './fields.js'
import { ACCEPT_DAYS } from '../views/changes.js'
import { CHANGED_SINCE, CHANGES_MEANING } from './changes.js'

const DATE_FORMATS = 'ДД.ММ.ГГГГ, ГГГГ-ММ-ДД or ДД-ММ-ГГГГ'

/** The meaning (meanings.ts) first, then what the declaration says about how the value is read. */
const withMeaning = (e: Endpoint, name: string, mechanics: string): string => {
  const meaning = e.meanings[name]
  return meaning ? `${meaning.ru} / ${meaning.en}. ${mechanics}` : mechanics
}

export function describeParam(e: Endpoint, p: Param): string {
  return withMeaning(e, p.name, mechanicsOf(p))
}

function mechanicsOf(p: Param): string {
  const parts: string[] = []
  if (p.stage === 'option') parts.push(`Option; true when the value is one of ${p.truthy.join(', ')} (any case)`)
  else if (p.stage === 'database' && p.match === 'flag') parts.push(`Database filter; true when one of ${p.truthy.join(', ')} (any case)`)
  else if (p.stage === 'database' && p.match === 'amount') parts.push('Database filter: the exact amount in kopecks (`100.5`, `100,50`)')
  else if (p.stage === 'database') parts.push(p.match === 'contains' ? 'Database filter: case-insensitive substring' : 'Database filter')
  else if (p.stage === 'post-filter') parts.push('Post-filter on the printed value: case-insensitive substring')
  else parts.push('Read by the endpoint itself')
  if ('falsy' in p && p.falsy) parts.push(`false when one of ${p.falsy.join(', ')}; any other value adds an errors entry`)
  if (['from', 'to', 'date'].includes(p.name)) parts.push(`a date as ${DATE_FORMATS}`)
  if (p.aliases?.length) parts.push(`also accepted as ${p.aliases.join(', ')}`)
  if (p.keyCaseInsensitive) parts.push('the key is case-insensitive')
  if (p.slash) parts.push('send `/` as `_slash_`')
  return parts.join('; ') + '.'
}

/** The period parameters of a list endpoint (`from`/`to`, and `date` where declared). */
export function periodParams(e: Endpoint): readonly { readonly name: string; readonly description: string }[] {
  if (e.kind !== 'list' || !e.period) return []
  const day = (name: string, text: string) => ({
    name,
    description: withMeaning(e, name, `${text}; a date as ${DATE_FORMATS}; an invalid date adds an errors entry.`),
  })
  return [
    day('from', 'Database filter, inclusive; works only together with `to`, alone it is no filter'),
    day('to', 'Database filter, the whole day inclusive; works only together with `from`, alone it is no filter'),
    ...(e.period.date ? [day('date', 'Database filter, one whole day; overrides from/to')] : []),
  ]
}

/** The paging parameters of a list endpoint (pages.ts): not the contract's, described beside its own. */
export function pageParams(e: Endpoint): readonly { readonly name: string; readonly description: string }[] {
  if (e.kind !== 'list') return []
  return Object.entries(PAGE_MEANINGS).map(([name, meaning]) => ({
    name,
    description: `${meaning.ru} / ${meaning.en}. Paging, not a parameter of the contract; a value that cannot be followed is refused with 400.`,
  }))
}

/** The parts a request may name in `rows`: the tabular parts (arrays of rows) of either form. */
export function tabularParts(e: Endpoint): string[] {
  const forms = [itemFields(e, false), ...(e.response.full ? [itemFields(e, true)] : [])]
  return [...new Set(forms.flatMap((fields) => fields.filter((f) => f.kind === 'array' && f.fields).map((f) => f.name)))]
}

/** The parameters that shape an answer (fields.ts): not the contract's, described beside its own; `rows` where there are parts. */
export function outputParams(e: Endpoint): readonly { readonly name: 'fields' | 'format' | 'rows'; readonly description: string }[] {
  const names = tabularParts(e).length > 0 ? (['fields', 'format', 'rows'] as const) : (['fields', 'format'] as const)
  return names.map((name) => ({
    name,
    description: `${OUTPUT_MEANINGS[name].ru} / ${OUTPUT_MEANINGS[name].en}. Not a parameter of the contract; a value that cannot be followed is refused with 400.`,
  }))
}

/** The changes parameter of a list endpoint (changes.ts): not the contract's either. */
export function changesParams(e: Endpoint): readonly { readonly name: string; readonly description: string }[] {
  if (e.kind !== 'list') return []
  return [
    {
      name: CHANGED_SINCE,
      description:
        `${CHANGES_MEANING.ru} / ${CHANGES_MEANING.en}. Changes, not a parameter of the contract: the answer adds "removed" ` +
        `(the identities of the rows gone since) before "errors"; a value that is not a token is refused with 400, ` +
        `one the change log no longer reaches (${ACCEPT_DAYS} days, or the list rebuilt since) or another store's with 410.`,
    },
  ]
}
