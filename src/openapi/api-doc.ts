// docs/api.md, the API reference in the repository: rendered from the OpenAPI document
// (document.ts), which is generated from the endpoint declarations, so that an endpoint,
// a parameter or a field is written down in one place only. The common rules are a
// hand-written preamble kept here (PREAMBLE). `npm run docs:generate` writes the file;
// test/docs/api-doc.test.ts fails when the committed file differs from renderApiDoc().

import { ACCEPT_DAYS } from '../views/changes.js'

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked as plain JSON
type Json = Record<string, any>

const BASE = 'http://127.0.0.1:8080'

/** The rules every endpoint shares, in front of the generated part. */
const PREAMBLE = `# API reference

<!-- Generated from the endpoint declarations (src/endpoints/) through the OpenAPI document
     (src/openapi/document.ts) by \`npm run docs:generate\`. Edit those, or the preamble in
     src/openapi/api-doc.ts, then regenerate; test/docs/api-doc.test.ts fails while this file is stale. -->

The Business-Document Read API is read-only: every operation is a \`GET\` without a body, and
nothing is ever created, changed or deleted through it. A running server also serves this
reference as an OpenAPI 3.1 document (\`GET /openapi.json\`) and as an interactive page
(\`GET /docs\`); both need no credentials. Where the contract leaves behaviour open, what
docgate does is written down in [decisions.md](decisions.md).

## Common rules

**Addresses.** A data endpoint is \`{base_url}/main/hs/<service>/get\`; the availability check
is \`{base_url}/main/hs/health\`. \`{base_url}\` is the server's scheme, host and port, e.g.
\`${BASE}\` for \`docgate serve\` with its defaults (\`npm start\` serves the demo data there).

**Authentication.** Every request, the health check included, needs HTTP Basic credentials
issued with \`docgate users add\` ([CLI reference](cli.md)): the header
\`Authorization: Basic <Base64 of user:password>\`. The \`user:password\` text is turned into
**UTF-8** bytes before Base64, so Cyrillic user names and passwords work; a client that
encodes them in a single-byte code page (or a browser's \`btoa()\` on the raw text) is
refused. A wrong or missing password, an unknown or revoked user, and a service the user
was not granted all answer the same 401, with
\`WWW-Authenticate: Basic realm="docgate", charset="UTF-8"\` and the body
\`{"error":"Unauthorized"}\`. Any issued user may call health, whatever their grants.

**Parameters.** Every parameter is optional and comes in the query string; without any,
an endpoint answers every record it publishes. Values are UTF-8, percent-encoded
(\`name=%D1%81%D0%BA%D0%BB%D0%B0%D0%B4\` for \`склад\`; \`curl -G --data-urlencode\` does it);
raw non-ASCII bytes in a URL are not valid HTTP and answer 400. \`+\` means a space, so a
plus sign is sent as \`%2B\`. An empty value is the same as an absent parameter; an unknown
parameter is ignored; when a key is repeated, the first value counts. Parameter names are
case-sensitive unless the table below says otherwise.

- **Dates** (\`from\`, \`to\`, \`date\`) are written \`ДД.ММ.ГГГГ\` (\`05.03.2026\`),
  \`ГГГГ-ММ-ДД\` (\`2026-03-05\`) or \`ДД-ММ-ГГГГ\` (\`05-03-2026\`). \`to\` and \`date\` take in the
  whole day. \`from\` and \`to\` filter only when both are given (cashflows excepted); \`date\`
  is one whole day. A date in none of the three forms does not fail the request: it is
  ignored and an \`errors\` entry says so.
- **Booleans** are true for \`1\`, \`true\`, \`yes\` or \`да\`, in any letter case; another value
  is false, except where a parameter also lists its false spellings.
- **Substring filters** match case-insensitively anywhere in the text (\`%\` and \`_\` are
  ordinary characters). "Database filters" narrow the selection in the store,
  "post-filters" then narrow what is printed; both combine with AND.
- **Amounts** (\`summ\`) match the exact amount to the kopeck: \`100.5\`, \`100,50\` and
  \`100.50\` are the same.
- Where a parameter says so, a \`/\` inside the value is sent as \`_slash_\`.

**Answers.** A data endpoint answers 200 with \`Content-Type: application/json; charset=utf-8\`,
\`Access-Control-Allow-Origin: *\` and the envelope

\`\`\`json
{ "data": [ … ], "errors": [ … ] }
\`\`\`

\`data\` holds the records, each in its short form, or in its full form when \`full\` is true.
\`errors\` holds, as Russian text, the problems that did not stop the request (an invalid
date, \`full\` without a key it requires, one document that could not be printed): the
status stays 200, and \`data\` holds what could be selected. A non-empty \`errors\` is
therefore not a failure of the whole request. Dates in answers are \`ДД.ММ.ГГГГ\` strings
(or \`""\` where a field says so), amounts and quantities are JSON numbers, and empty
values print as \`""\` or a fixed text such as \`Не указан\`. Only materials is a tree; every
other list is flat. Nothing is paged: an answer holds every matching record.

**Statuses.**

| Status | When | Body |
|---|---|---|
| 200 | The request was processed, partial problems included | \`{"data": […], "errors": […]}\`; health: \`{"Статус": "API доступен"}\` |
| 400 | The request is not valid HTTP (e.g. raw non-ASCII bytes in the URL) | \`{"error": …}\` |
| 401 | Missing or invalid credentials, or the service is not granted to the user | \`{"error": "Unauthorized"}\` |
| 404 | Any other path or method | \`{"error": "Not Found"}\` |
| 500 | Unexpected error (e.g. the store does not answer) | \`{"error": "<text>; request id <id>"}\`; health: the error as \`text/plain\` |

Every answer carries an \`X-Request-Id\` header (yours, if you sent one of 1–128 visible
ASCII characters); quote it when you report a problem.

**Changes since.** Every 200 of a list (every endpoint but materials and cashflows) carries
\`X-Changes-Token\`, the store's change position read before the answer. Send it back as
\`changed_since=<token>\` (beside any other parameters) and the answer holds only the rows of
that list created or changed since — a row whose printed form changed counts, a renamed
counterparty included — and, before \`errors\`, \`"removed"\`: the identities of the rows gone
since (\`Номер\` and \`Дата\`, payments' \`ДатаДокумента\`; catalogues' \`Код\`), deleted or
renumbered; apply \`removed\` before \`data\`. The change log keeps ${ACCEPT_DAYS} days: an
older token, one from before the list was rebuilt whole, or another store's is 410
\`{"error": …}\` (reload the list without \`changed_since\`); a value that is not a token is 400.
Without \`changed_since\` nothing of the answer changes.
`

/** A table cell: one line, pipes escaped. */
const cell = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|')

const refName = (ref: string): string => ref.replace('#/components/schemas/', '')

/** The anchor of a shape's heading (GitHub's rule for a heading that is one ASCII word). */
const anchor = (name: string): string => name.toLowerCase()

/** The type of a schema as the tables print it, shapes linked to their section. */
function typeOf(schema: Json): string {
  if (schema.$ref) return `[${refName(schema.$ref)}](#${anchor(refName(schema.$ref))})`
  if (schema.anyOf) return (schema.anyOf as Json[]).map(typeOf).join(' or ')
  if (schema.type === 'array') return `array of ${typeOf(schema.items as Json)}`
  if (schema.const !== undefined) return `${schema.type} \`${JSON.stringify(schema.const)}\``
  if (schema.contentEncoding === 'base64') return 'string (Base64)'
  if (schema.pattern === '^(\\d{2}\\.\\d{2}\\.\\d{4})?$') return 'string (date)'
  if (schema.type === 'integer' && schema.minimum === 0) return 'integer ≥ 0'
  return String(schema.type ?? 'any')
}

interface FieldRow {
  readonly name: string
  readonly schema: Json
}

/** An object's fields; an inline object's own fields follow it as `Parent.Child`. */
function fieldsOf(schema: Json, prefix = ''): FieldRow[] {
  const rows: FieldRow[] = []
  for (const [name, value] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const path = prefix + name
    if (value.type === 'object' && value.properties) {
      rows.push({ name: path, schema: { type: 'object' } })
      rows.push(...fieldsOf(value, `${path}.`))
    } else rows.push({ name: path, schema: value })
  }
  return rows
}

/** One table of fields: a column per form when an endpoint prints two. */
function fieldTable(forms: readonly { readonly title: string; readonly schema: Json }[]): string[] {
  const names: string[] = []
  const byForm = forms.map(({ schema }) => new Map(fieldsOf(schema).map((r) => [r.name, r.schema])))
  for (const form of byForm) for (const name of form.keys()) if (!names.includes(name)) names.push(name)
  const header = forms.length === 1 ? ['Field', 'Type', 'Notes'] : ['Field', ...forms.map((f) => f.title), 'Notes']
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`]
  for (const name of names) {
    const schemas = byForm.map((f) => f.get(name))
    const types = schemas.map((s) => (s ? typeOf(s) : '—'))
    const note = schemas.map((s) => s?.description as string | undefined).find((d) => d !== undefined) ?? ''
    lines.push(`| ${cell(name)} | ${types.map(cell).join(' | ')} | ${cell(note)} |`)
  }
  return lines
}

/** The kind of a query parameter, from what the document says about it. */
function parameterType(p: Json): string {
  const description = String(p.description ?? '')
  if (p['x-docgate-true']) return 'boolean'
  if (description.includes('a date as')) return 'date'
  if (description.includes('exact amount')) return 'amount'
  return String(p.schema?.type ?? 'string')
}

function parameterTable(parameters: readonly Json[]): string[] {
  // An alias is its own entry in the document; here it is a column of its parameter.
  const aliases = new Set(parameters.flatMap((p) => (p['x-docgate-aliases'] as string[] | undefined) ?? []))
  const own = parameters.filter((p) => !aliases.has(p.name) || !String(p.description).includes('Alias of'))
  const lines = ['| Parameter | Type | Aliases | Meaning (русский / English) and how it is read |', '|---|---|---|---|']
  for (const p of own) {
    const also = ((p['x-docgate-aliases'] as string[] | undefined) ?? []).map((a) => `\`${a}\``).join(', ')
    lines.push(`| \`${p.name}\` | ${parameterType(p)} | ${also || '—'} | ${cell(String(p.description ?? ''))} |`)
  }
  return lines
}

/** `?a=1&b=2` (decoded) → a curl command that encodes the values itself. */
function curlOf(path: string, query: string): string {
  const pairs = query
    .replace(/^\?/, '')
    .split('&')
    .filter((p) => p !== '')
  if (pairs.length === 0) return `curl -u demo:demo '${BASE}${path}'`
  const data = pairs.map((pair) => ` --data-urlencode '${pair.replace(/'/g, `'\\''`)}'`).join('')
  return `curl -u demo:demo -G '${BASE}${path}'${data}`
}

const json = (value: unknown): string[] => ['```json', JSON.stringify(value, null, 2), '```']

function exampleLines(path: string, content: Json): string[] {
  const lines: string[] = []
  const examples = (content.examples ?? {}) as Record<string, Json>
  if (content.example !== undefined) {
    lines.push('```sh', curlOf(path, ''), '```', '', ...json(content.example), '')
    return lines
  }
  for (const [name, example] of Object.entries(examples)) {
    const query = String(example.summary ?? '').replace(/^[^?]*/, '')
    const label = name === 'full' ? 'Full form' : 'full' in examples ? 'Short form' : 'Request'
    lines.push(`${label}${query ? ` (\`${query}\`)` : ''}:`, '', '```sh', curlOf(path, query), '```', '')
    const answer = [
      `<details><summary>Answer: ${cell(String(example.description ?? ''))}</summary>`,
      '',
      ...json(example.value),
      '',
      '</details>',
      '',
    ]
    lines.push(...answer)
  }
  return lines
}

function statusLines(responses: Json): string[] {
  const lines = ['| Status | Meaning |', '|---|---|']
  for (const [status, response] of Object.entries(responses as Record<string, Json>))
    lines.push(`| ${status} | ${cell(String(response.description ?? ''))} |`)
  return lines
}

/** The shapes one endpoint's items are made of: each form, or each alternative of a tree node. */
function formsOf(item: Json, schemas: Json): { readonly title: string; readonly schema: Json; readonly name: string }[] {
  const refs = item.anyOf ? (item.anyOf as Json[]) : [item]
  return refs.map((r, i) => {
    const name = refName(String(r.$ref))
    return { title: refs.length > 1 ? (i === 0 ? `Short (${name})` : `Full (${name})`) : name, schema: schemas[name] as Json, name }
  })
}

function endpointSection(path: string, operation: Json, schemas: Json): string[] {
  const service = path.replace(/^\/main\/hs\//, '').replace(/\/get$/, '')
  const lines = [
    `## ${service}`,
    '',
    `\`GET ${path}\` (operation \`${operation.operationId}\`)`,
    '',
    String(operation.description ?? ''),
    '',
  ]
  const parameters = (operation.parameters ?? []) as Json[]
  lines.push('### Parameters', '')
  if (parameters.length === 0) lines.push('None.', '')
  else lines.push(...parameterTable(parameters), '')
  const content = operation.responses?.[200]?.content?.['application/json'] as Json
  const schema = content.schema as Json
  lines.push('### Response', '')
  if (schema.properties?.data) {
    const forms = formsOf(schema.properties.data.items as Json, schemas)
    const node = forms.length === 1 ? (schemas[forms[0]!.name] as Json) : undefined
    if (node?.anyOf) {
      // A tree: each node is one of the alternatives, a group holding its children in `Дети`.
      const kinds = (node.anyOf as Json[]).map((r) => refName(String(r.$ref)))
      lines.push(`\`data\` is a tree; each node is one of ${kinds.map((k) => `[${k}](#${anchor(k)})`).join(', ')}:`, '')
      lines.push(...fieldTable(kinds.map((k) => ({ title: k, schema: schemas[k] as Json }))), '')
    } else {
      lines.push(forms.length > 1 ? '`data` items, without and with `full`:' : '`data` items:', '', ...fieldTable(forms), '')
    }
  } else lines.push(...fieldTable([{ title: 'Body', schema: schema.$ref ? (schemas[refName(schema.$ref)] as Json) : schema }]), '')
  lines.push(...statusLines(operation.responses as Json), '')
  lines.push('### Example', '', ...exampleLines(path, content))
  return lines
}

/** Shapes that appear inside others (rows, summaries, linked documents, tree nodes). */
function sharedShapes(schemas: Json): string[] {
  const used = new Set<string>()
  JSON.stringify(schemas, (key, value) => {
    if (key === '$ref' && typeof value === 'string') used.add(refName(value))
    return value
  })
  const lines = ['## Shapes used inside answers', '']
  for (const name of Object.keys(schemas)) {
    const schema = schemas[name] as Json
    if (!used.has(name) || name === 'Error' || name === 'Errors' || !schema.properties) continue
    lines.push(`### ${name}`, '', ...fieldTable([{ title: name, schema }]), '')
  }
  return lines
}

/** docs/api.md from the OpenAPI document (openApiDocument()). Pure: same document, same text. */
export function renderApiDoc(document: Json): string {
  const schemas = document.components.schemas as Json
  const paths = Object.entries(document.paths as Record<string, Json>)
  const data = paths.filter(([path]) => path.endsWith('/get'))
  const rest = paths.filter(([path]) => !path.endsWith('/get'))
  const lines = [PREAMBLE, '## Endpoints', '', '| Service | Returns |', '|---|---|']
  for (const [path, item] of [...data, ...rest]) {
    const service = path.replace(/^\/main\/hs\//, '').replace(/\/get$/, '')
    const description = String(item.get.description ?? '')
    const returns = path.endsWith('/get') ? description.replace(/\. .*$/, '') : `Availability check. ${description}`
    lines.push(`| [${service}](#${anchor(service)}) | ${cell(returns)} |`)
  }
  lines.push('')
  for (const [path, item] of [...data, ...rest]) lines.push(...endpointSection(path, item.get as Json, schemas))
  lines.push(...sharedShapes(schemas))
  return (
    lines
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trimEnd() + '\n'
  )
}
