// Each endpoint as an agent tool: its input schema and description come from the same
// declarations as the route and the OpenAPI document (endpoints/describe.ts), and a call
// runs the route's own pipeline, so a tool answers exactly what the API answers, bounded
// (bound.ts) so that one call cannot flood an agent's context.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Endpoint, ListEndpoint, Param } from '../endpoints/define.js'
import { BadPageRequest } from '../endpoints/pages.js'
import type { PageInfo } from '../endpoints/pages.js'
import { changesParams, describeParam, outputParams, pageParams, periodParams } from '../endpoints/describe.js'
import { isIn } from '../endpoints/parse.js'
import { envelope } from '../pipeline/envelope.js'
import type { Executor } from '../serving/executor.js'
import { BYTE_LIMIT, ERROR_LIMIT, ROW_LIMIT } from '../pipeline/bound.js'
import type { BoundedText } from '../pipeline/bound.js'

interface Argument {
  readonly name: string
  readonly schema: Record<string, unknown>
  /** Narrows the selection (a filter), as opposed to an option that shapes the answer. */
  readonly filter: boolean
}

function paramSchema(e: Endpoint, p: Param): Record<string, unknown> {
  const description = describeParam(e, p)
  if (p.stage === 'option' || (p.stage === 'database' && p.match === 'flag')) return { type: ['boolean', 'string'], description }
  if (p.stage === 'database' && p.match === 'amount') return { type: ['number', 'string'], description }
  return { type: 'string', description }
}

/** The arguments a tool takes: the period, then the declared parameters by their spec names (aliases stay the URL's business). */
function argumentsOf(e: Endpoint): Argument[] {
  return [
    ...periodParams(e).map(({ name, description }) => ({ name, schema: { type: 'string', description }, filter: true })),
    ...e.params.map((p) => ({ name: p.name, schema: paramSchema(e, p), filter: p.stage !== 'option' })),
    ...pageParams(e).map(({ name, description }) => ({
      name,
      schema: { type: name === 'limit' ? ['integer', 'string'] : name === 'count' ? ['boolean', 'string'] : 'string', description },
      filter: false,
    })),
    ...changesParams(e).map(({ name, description }) => ({ name, schema: { type: 'string', description }, filter: false })),
    // An agent reads JSON: of the shaping parameters, only the choice of fields.
    ...outputParams(e)
      .filter((p) => p.name === 'fields')
      .map(({ name, description }) => ({ name, schema: { type: 'string', description }, filter: false })),
  ]
}

/** The printed fields of a short `data` item, from the response shape. */
function fieldsOf(e: Endpoint): string[] {
  return Object.keys((e.response.short as { properties?: Record<string, unknown> }).properties ?? {})
}

export function toolOf(e: Endpoint): Tool {
  const args = argumentsOf(e)
  const full = e.response.full ? ' With `full` each row is the full form (larger; attachments in Base64).' : ''
  const tree = treeOf(e)
  const rows = tree
    ? ` Rows are the top nodes of the tree; a group holds its children in ${tree.children}. When the top nodes do not fit, children are cut at the deepest level that lets them fit: a group of that level shows ${tree.children}: [] (never empty otherwise) and the answer names the level; ask with ${tree.open}=<a group's name> to open one.`
    : ''
  return {
    name: e.service,
    title: e.returns,
    description:
      `${e.returns}: the answer of GET /main/hs/${e.service}/get, as {"data": [...], "errors": [...]}. ` +
      `Rows print the fields ${fieldsOf(e).join(', ')}.${full} ` +
      `Every argument is optional; problems with a value are reported in "errors", not refused. ` +
      `At most ${ROW_LIMIT} rows and ${BYTE_LIMIT} bytes of rows per answer: when more match, the answer says how many were left out; narrow the query with the filters.${rows}`,
    inputSchema: { type: 'object', properties: Object.fromEntries(args.map((a) => [a.name, a.schema])), additionalProperties: false },
    annotations: { title: e.returns, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }
}

const treeOf = (e: Endpoint) => (e.kind === 'computed' ? e.tree : undefined)

const textOf = (value: unknown): string | undefined => {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

export interface CallOptions {
  /** The API's executor: a call runs as a data request (worker pool, time limit, answer cache). */
  readonly executor: Executor
  readonly now: () => Date
  /** The text of an unexpected failure, as the API's 500 prints it. */
  readonly errorText: (err: unknown) => string
  readonly onError?: (err: unknown, service: string) => void
  /**
   * The change position of a list's answer (its X-Changes-Token), read before the answer;
   * throws BadChangesToken for a `changed_since` that cannot be followed. Without it a tool
   * call names no position.
   */
  readonly changes?: (e: ListEndpoint, pairs: ReadonlyMap<string, string>) => Promise<string>
  /** The bound of an answer (default ROW_LIMIT rows, BYTE_LIMIT bytes); tests lower it. */
  readonly limits?: { readonly rows: number; readonly bytes: number }
}

const refuse = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] })

/** A tool call; `signal` stops it when the client goes away or cancels. */
export async function callTool(
  e: Endpoint,
  input: Record<string, unknown> | undefined,
  options: CallOptions,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const args = argumentsOf(e)
  const names = new Set(args.map((a) => a.name))
  const limits = options.limits ?? { rows: ROW_LIMIT, bytes: BYTE_LIMIT }
  const pairs = new Map<string, string>()
  const unknown: string[] = []
  for (const [name, value] of Object.entries(input ?? {})) {
    if (!names.has(name)) unknown.push(name)
    // An agent's null is an argument not given, as an empty value is in the URL (decision D5).
    else if (value !== null) {
      const text = textOf(value)
      if (text === undefined) return refuse(`${name}: expected a string, number or boolean`)
      pairs.set(name, text)
    }
  }
  if (unknown.length > 0) return refuse(`unknown argument(s) ${unknown.join(', ')}; ${e.service} takes ${[...names].join(', ')}`)

  let result: BoundedText
  let page: PageInfo | undefined
  let token: string | undefined
  try {
    if (e.kind === 'list' && options.changes) token = await options.changes(e, pairs)
  } catch (err) {
    if (!(err instanceof BadPageRequest)) throw err
    return refuse(JSON.stringify({ error: err.message }))
  }
  try {
    const query = new URLSearchParams([...pairs]).toString()
    const bound = { ...limits, tree: treeOf(e) !== undefined }
    const body = await options.executor.execute(
      { service: e.service, query, now: options.now(), bound },
      { signal, gone: () => signal.aborted, page: (p) => (page = p) },
    )
    result = JSON.parse((Buffer.isBuffer(body) ? body : Buffer.concat(await body.toArray())).toString('utf8')) as BoundedText
  } catch (err) {
    options.onError?.(err, e.service)
    return refuse(JSON.stringify({ error: options.errorText(err) }))
  }
  const errors = result.errors.slice(0, ERROR_LIMIT)
  const content: CallToolResult['content'] = [{ type: 'text', text: envelope(result.rows, errors, result.removed) }]
  const notes: string[] = []
  const left = result.total - result.rows.length
  if (left > 0) {
    const full = e.params.find((p) => p.name === 'full' && p.stage === 'option')
    const fullOn = full !== undefined && 'truthy' in full && isIn(full.truthy, pairs.get('full') ?? '')
    notes.push(leftOutNote(result.rows.length, result.total, result.firstLeftOutBytes, args, pairs, fullOn, limits))
  }
  const tree = treeOf(e)
  if (tree && result.cutLevel !== undefined)
    notes.push(
      cutNote(
        e.service,
        tree,
        result.cutLevel,
        args.filter((a) => a.filter && a.name !== tree.open && !pairs.has(a.name)).map((a) => a.name),
      ),
    )
  if (result.errors.length > errors.length) notes.push(`${result.errors.length - errors.length} more "errors" entries left out.`)
  const paged = page as PageInfo | undefined
  if (paged?.total !== undefined) notes.push(`The whole list has ${paged.total} rows.`)
  if (paged?.next !== undefined) notes.push(`More rows follow: call again with the same arguments and cursor "${paged.next}".`)
  // A replicating agent's next position; a plain call's answer stays as it was.
  if (token !== undefined && result.removed !== undefined)
    notes.push(`For what changes after this answer, call again with changed_since "${token}".`)
  if (notes.length > 0) content.push({ type: 'text', text: notes.join(' ') })
  return { content }
}

/** What a tree answer with cut children shows, and how to open a cut group. */
function cutNote(service: string, tree: { children: string; open: string }, level: number, narrowers: readonly string[]): string {
  const which = level === 1 ? 'The top groups are' : `Groups at level ${level} (the top is level 1) are`
  const narrow = narrowers.length > 0 ? ` Or narrow the query with any of: ${narrowers.join(', ')}.` : ''
  return (
    `${which} shown without their children (${tree.children}: []) to fit the bound; ` +
    `ask ${service} with ${tree.open}=<name> to open one (the elements directly in the groups of that name, with the groups above them).${narrow}`
  )
}

/** How many rows the answer left out and which arguments, not yet given, would narrow it. */
function leftOutNote(
  kept: number,
  total: number,
  firstLeftOutBytes: number | undefined,
  args: readonly Argument[],
  given: ReadonlyMap<string, string>,
  fullOn: boolean,
  limits: { rows: number; bytes: number },
): string {
  const parts = [
    `Showing ${kept} of ${total} rows: ${total - kept} rows left out (an answer carries at most ${limits.rows} rows and ${limits.bytes} bytes of rows).`,
  ]
  if (kept === 0 && firstLeftOutBytes !== undefined) parts.push(`The first row alone is ${firstLeftOutBytes} bytes.`)
  const narrowers = args.filter((a) => a.filter && !given.has(a.name)).map((a) => a.name)
  if (narrowers.length > 0) parts.push(`To narrow the query, add any of: ${narrowers.join(', ')}.`)
  if (fullOn) parts.push('Or leave out full: the short form is much smaller.')
  return parts.join(' ')
}
