// The OpenAPI 3.1 document, generated from the endpoint declarations and their response
// shapes so that it cannot drift from the code (issue 13). Served at GET /openapi.json.
import type { Endpoint, Param } from '../endpoints/define.js'
import { changesParams, describeParam, outputParams, pageParams, periodParams, tabularParts } from '../endpoints/describe.js'
import { CSV_TYPE, XLSX_TYPE } from '../endpoints/fields.js'
import { removedSchema } from '../endpoints/changes.js'
import { ACCEPT_DAYS } from '../views/changes.js'
import { ENDPOINTS } from '../endpoints/index.js'
import { SCHEMAS } from '../endpoints/responses.js'
import { EXAMPLES } from './examples.js'
import type { ExampleEntry } from './examples.js'
import { version } from '../version.js'

type Json = Record<string, unknown>

/** TypeBox's `$id`/bare `$ref` names → `#/components/schemas/…` (symbols dropped by JSON). */
function component(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema), (key, value) => {
    if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) return `#/components/schemas/${value}`
    return value
  }) as Json
}
const withoutId = ({ $id: _id, ...rest }: Json): Json => rest

function parameter(p: Param, e: Endpoint, name = p.name): Json {
  return {
    name,
    in: 'query',
    required: false,
    schema: { type: 'string' },
    description: describeParam(e, p) + (name !== p.name ? ` Alias of \`${p.name}\`.` : ''),
    'x-docgate-stage': p.stage,
    ...(p.aliases?.length ? { 'x-docgate-aliases': p.aliases } : {}),
    ...(p.slash ? { 'x-docgate-slash': true } : {}),
    ...('truthy' in p ? { 'x-docgate-true': p.truthy } : {}),
  }
}

function periodParameters(e: Endpoint): Json[] {
  return periodParams(e).map(({ name, description }) => ({
    name,
    in: 'query',
    required: false,
    schema: { type: 'string' },
    description,
    'x-docgate-stage': 'database',
  }))
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const errorBody = { type: 'object', additionalProperties: false, required: ['error'], properties: { error: { type: 'string' } } }
const unauthorized = {
  description: 'Missing or invalid credentials, or the method is not granted',
  headers: { 'WWW-Authenticate': { schema: { type: 'string', const: 'Basic realm="docgate", charset="UTF-8"' } } },
  content: { 'application/json': { schema: ref('Error'), example: { error: 'Unauthorized' } } },
}

/** Real answers of the demo data set (examples.json), named `short` and `full`. */
function examplesOf(e: Endpoint): Json {
  const stored = EXAMPLES.endpoints[e.service]
  if (!stored) return {}
  const example = (form: string, x: ExampleEntry) => ({
    summary: `${form}: GET /main/hs/${e.service}/get${x.query}`,
    description:
      `A real answer of the demo data set (\`docgate demo --scale ${EXAMPLES.demo.scale} --seed ${EXAMPLES.demo.seed}\`), ` +
      (x.value.data.length < x.total ? `\`data\` cut to ${x.value.data.length} of its ${x.total} items.` : `as answered.`),
    value: x.value,
  })
  return { examples: { short: example('Short form', stored.short), ...(stored.full ? { full: example('Full form', stored.full) } : {}) } }
}

function operation(e: Endpoint): Json {
  const { short, full } = e.response
  const item = full ? { anyOf: [ref(short.$id!), ref(full.$id!)] } : ref(short.$id!)
  return {
    operationId: e.operationId,
    summary: `GET /main/hs/${e.service}/get`,
    description:
      `${e.returns}. ` + (full ? `Short form (${short.$id}); with \`full\` the full form (${full.$id}).` : `Items: ${short.$id}.`),
    tags: ['data'],
    parameters: [
      ...periodParameters(e),
      ...e.params.flatMap((p) => [parameter(p, e), ...(p.aliases ?? []).map((a) => parameter(p, e, a))]),
      ...pageParams(e).map(({ name, description }) => ({
        name,
        in: 'query',
        required: false,
        schema: name === 'limit' ? { type: 'integer', minimum: 1, maximum: 10_000 } : { type: 'string' },
        description,
        'x-docgate-stage': 'page',
      })),
      ...changesParams(e).map(({ name, description }) => ({
        name,
        in: 'query',
        required: false,
        schema: { type: 'string' },
        description,
        'x-docgate-stage': 'changes',
      })),
      ...outputParams(e).map(({ name, description }) => ({
        name,
        in: 'query',
        required: false,
        schema:
          name === 'format'
            ? { type: 'string', enum: ['json', 'csv', 'xlsx'] }
            : name === 'rows'
              ? { type: 'string', enum: tabularParts(e) }
              : { type: 'string' },
        description,
        'x-docgate-stage': 'output',
      })),
    ],
    responses: {
      200: {
        description:
          'The envelope: `data` and the in-band problems in `errors` (status stays 200). With `fields`, items hold only the chosen fields; ' +
          'as CSV (`format=csv` or `Accept: text/csv`) the `errors` follow the body in the `X-Errors` trailer, as Excel on the sheet `errors`',
        headers: {
          'Access-Control-Allow-Origin': { schema: { type: 'string', const: '*' } },
          ETag: {
            description: 'Strong tag of the answer (store generation, request, day); send it back in If-None-Match',
            schema: { type: 'string' },
          },
          'X-Errors': {
            description: "As CSV, a trailer after the body: the answer's `errors` as percent-encoded JSON",
            schema: { type: 'string' },
          },
          ...(e.kind === 'list'
            ? {
                Link: {
                  description: 'With `limit`, while more rows remain: `<URL of the next page>; rel="next"`',
                  schema: { type: 'string' },
                },
                'X-Total-Count': {
                  description: 'With `limit` and `count=true`: the number of rows of the whole list',
                  schema: { type: 'integer' },
                },
                'X-Changes-Token': {
                  description: `The store's change position, read before the answer: send it back as \`changed_since\` for the changes since (kept ${ACCEPT_DAYS} days)`,
                  schema: { type: 'string' },
                },
              }
            : {}),
        },
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              required: ['data', 'errors'],
              properties: {
                data: { type: 'array', items: item },
                ...(e.kind === 'list' ? { removed: removedSchema(e) } : {}),
                errors: ref('Errors'),
              },
            },
            ...examplesOf(e),
          },
          [CSV_TYPE.split(';')[0]!]: {
            schema: { type: 'string', description: 'RFC 4180, UTF-8 with BOM, a header line of dotted field names' },
          },
          [XLSX_TYPE]: {
            schema: {
              type: 'string',
              format: 'binary',
              description: 'A workbook: sheet `data` (typed cells, frozen header), sheet `errors`',
            },
          },
        },
      },
      304: {
        description: "If-None-Match names the answer's tag: the store has not changed since",
        headers: { ETag: { schema: { type: 'string' } } },
      },
      400: {
        description:
          e.kind === 'list'
            ? 'A paging parameter (`limit`, `cursor`, `count`), a `changed_since` that is not a token, or a `fields`, `format` or `rows` value that cannot be followed'
            : 'A `fields`, `format` or `rows` value that cannot be followed',
        content: { 'application/json': { schema: ref('Error') } },
      },
      ...(e.kind === 'list'
        ? {
            410: {
              description: `A \`changed_since\` the change log no longer reaches (older than ${ACCEPT_DAYS} days, or the list rebuilt since) or another store's: reload the list without it`,
              content: { 'application/json': { schema: ref('Error') } },
            },
          }
        : {}),
      401: unauthorized,
      500: { description: 'Unexpected error', content: { 'application/json': { schema: ref('Error') } } },
    },
  }
}

export function openApiDocument(): Json {
  const schemas: Json = {}
  for (const s of SCHEMAS) schemas[s.$id!] = withoutId(component(s))
  schemas.Error = errorBody
  schemas.Errors = { type: 'array', items: { type: 'string' }, description: 'Problems that did not stop the request, in Russian' }
  schemas.Health = {
    type: 'object',
    additionalProperties: false,
    required: ['Статус'],
    properties: { Статус: { type: 'string', const: 'API доступен' } },
  }
  const paths: Json = {
    '/main/hs/health': {
      get: {
        operationId: 'GetHealth',
        summary: 'GET /main/hs/health',
        description: 'Any issued user, whatever their granted methods; runs a query on the store.',
        tags: ['health'],
        responses: {
          200: {
            description: 'The store answers',
            content: { 'application/json': { schema: ref('Health'), example: { Статус: 'API доступен' } } },
          },
          401: unauthorized,
          500: {
            description: 'The store does not answer: the error text, not JSON',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
  }
  for (const e of ENDPOINTS) paths[`/main/hs/${e.service}/get`] = { get: operation(e) }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Business-Document Read API (docgate)',
      version,
      description: 'Read-only access to accounting documents, catalogues and cash statements.',
    },
    servers: [{ url: '/' }],
    security: [{ basic: [] }],
    components: {
      securitySchemes: {
        basic: {
          type: 'http',
          scheme: 'basic',
          description:
            'HTTP Basic; the user name and password are encoded as UTF-8 before Base64 (RFC 7617 charset="UTF-8"). Browsers\' btoa() cannot encode Cyrillic names: encode the bytes first.',
        },
      },
      schemas,
    },
    paths,
  }
}
