// Every answer the HTTP suites receive is checked against the declared response shapes
// (src/endpoints/responses.ts), so a field added or renamed in code without the schema
// fails whichever test received it. Ajv in 2020-12 mode, strict.
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { ValidateFunction } from 'ajv'
import { endpointByService } from '../../src/endpoints/index.js'
import { removedSchema } from '../../src/endpoints/changes.js'
import { SCHEMAS } from '../../src/endpoints/responses.js'

export const ajv = new Ajv2020({ strict: true, allErrors: true })
for (const s of SCHEMAS) ajv.addSchema(s)

const envelopes = new Map<string, ValidateFunction>()
function envelope(service: string): ValidateFunction | undefined {
  let v = envelopes.get(service)
  if (v) return v
  const endpoint = endpointByService.get(service)
  if (!endpoint) return undefined
  const { short, full } = endpoint.response
  // Short or full: whether `full` applied depends on the request (aliases, fullWhen, rules).
  const item = full ? { anyOf: [{ $ref: short.$id }, { $ref: full.$id }] } : { $ref: short.$id }
  v = ajv.compile({
    type: 'object',
    additionalProperties: false,
    required: ['data', 'errors'],
    properties: {
      data: { type: 'array', items: item },
      ...(endpoint.kind === 'list' ? { removed: removedSchema(endpoint) } : {}),
      errors: { type: 'array', items: { type: 'string' } },
    },
  })
  envelopes.set(service, v)
  return v
}

const ROUTE = /^\/main\/hs\/([^/?]+)\/get(?:\?|$)/

/** Throws when a 200 from a data endpoint does not match its declared shape. */
export function checkAnswer(method: string, path: string, status: number, body: string): void {
  // An answer kept to chosen fields or in another format is not the declared shape (test/feeds/fields.test.ts).
  if (method !== 'GET' || status !== 200 || /[?&](fields|format|rows)=/.test(path)) return
  const service = ROUTE.exec(path)?.[1]
  const validate = service === undefined ? undefined : envelope(decodeURIComponent(service))
  if (!validate) return
  if (!validate(JSON.parse(body))) {
    throw new Error(
      `${path}: the answer does not match the declared response schema: ${ajv.errorsText(validate.errors, { separator: '\n' }).slice(0, 2000)}`,
    )
  }
}
