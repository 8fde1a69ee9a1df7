// Every operation's 200 answer carries examples that are real answers of the demo data
// set: one per form the endpoint prints, each valid against the operation's schema (Ajv
// 2020-12, strict), and the committed file is what the generator writes today.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { ENDPOINTS } from '../../src/endpoints/index.js'
import { openApiDocument } from '../../src/openapi/document.js'
import { EXAMPLES } from '../../src/openapi/examples.js'
import { generateExamples } from '../../scripts/examples.js'

type Json = Record<string, any>

const doc = openApiDocument() as Json
const toDefs = (value: unknown): Json => JSON.parse(JSON.stringify(value).replaceAll('#/components/schemas/', '#/$defs/'))
const defs = toDefs(doc.components.schemas)
const ajv = new Ajv2020({ strict: true, allErrors: true })
const compile = (schema: unknown) => ajv.compile({ $defs: defs, ...toDefs(schema) })
const content = (service: string): Json => doc.paths[`/main/hs/${service}/get`].get.responses[200].content['application/json']

describe('response examples', () => {
  it('every endpoint has a short example, and a full one exactly where it prints a full form', () => {
    for (const e of ENDPOINTS) {
      const names = Object.keys(content(e.service).examples ?? {})
      assert.deepEqual(names, e.response.full ? ['short', 'full'] : ['short'], e.service)
    }
    assert.deepEqual(Object.keys(EXAMPLES.endpoints).sort(), ENDPOINTS.map((e) => e.service).sort())
  })

  it("every example validates against its operation's 200 schema, and each item against its own form", () => {
    for (const e of ENDPOINTS) {
      const { schema, examples } = content(e.service)
      const envelope = compile(schema)
      for (const [name, example] of Object.entries(examples as Record<string, Json>)) {
        const data = example.value.data as unknown[]
        assert.ok(envelope(example.value), `${e.service} ${name}: ${ajv.errorsText(envelope.errors)}`)
        const form = name === 'full' ? e.response.full! : e.response.short
        const item = compile({ $ref: `#/components/schemas/${form.$id}` })
        for (const value of data) assert.ok(item(value), `${e.service} ${name} as ${form.$id}: ${ajv.errorsText(item.errors)}`)
      }
    }
  })

  it('are small: one or two items, no errors, and the query that was asked', () => {
    for (const e of ENDPOINTS) {
      for (const [name, example] of Object.entries(content(e.service).examples as Record<string, Json>)) {
        assert.ok(example.value.data.length >= 1 && example.value.data.length <= 2, `${e.service} ${name}`)
        assert.deepEqual(example.value.errors, [], `${e.service} ${name}`)
        assert.ok(JSON.stringify(example.value).length < 8_000, `${e.service} ${name}`)
        assert.match(example.summary, new RegExp(`GET /main/hs/${e.service}/get`))
      }
    }
    assert.equal(content('morders').examples.full.summary, 'Full form: GET /main/hs/morders/get?code=ЗН-000001&full=true')
    assert.equal(content('morders').examples.short.value.data[0].Номер, 'ЗН-000001')
  })

  it('the committed examples are what `npm run examples:generate` writes from the demo data today', async () => {
    const fresh = await generateExamples()
    assert.deepEqual(fresh, EXAMPLES, 'src/openapi/examples.json is stale: run `npm run examples:generate` and commit it')
  })
})
