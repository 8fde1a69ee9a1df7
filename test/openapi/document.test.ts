// GET /openapi.json: served without credentials on every engine, a valid OpenAPI 3.1
// document (checked by an independent validator), every components.schemas entry compiled
// by Ajv 2020-12 in strict mode, and every declared parameter, alias and shape present.
import { createApp } from '../../src/app/create.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { compileErrors, validate } from '@readme/openapi-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'

import { ENDPOINTS } from '../../src/endpoints/index.js'
import { openApiDocument } from '../../src/openapi/document.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp } from '../support/app.js'

type Json = Record<string, any>

for (const backend of BACKENDS)
  describe(`${backend}: GET /openapi.json`, () => {
    let app: TestApp
    before(async () => {
      app = await startApp(warehousesFixture, { backend })
    })
    after(() => app.close())

    it('answers 200 JSON without credentials, and is the generated document', async () => {
      const res = await app.get('/openapi.json')
      assert.equal(res.status, 200)
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(res.json.openapi, '3.1.0')
      assert.deepEqual(res.json, JSON.parse(JSON.stringify(openApiDocument())))
    })
  })

describe('the OpenAPI document', () => {
  const doc = openApiDocument() as Json

  it('is valid OpenAPI 3.1 for @readme/openapi-parser', async () => {
    const result = await validate(structuredClone(doc) as never)
    assert.equal(result.valid, true, result.valid ? '' : compileErrors(result))
    assert.equal(result.specification, 'OpenAPI')
  })

  it('every components.schemas entry compiles with Ajv 2020-12 in strict mode', () => {
    const ajv = new Ajv2020({ strict: true })
    const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'))
    const names = Object.keys(defs)
    assert.ok(names.length >= 30)
    for (const name of names) assert.doesNotThrow(() => ajv.compile({ $defs: defs, $ref: `#/$defs/${name}` }), name)
  })

  it('has twelve operations: health and every endpoint, with their ids', () => {
    const ids = Object.values(doc.paths as Json).map((p: Json) => p.get.operationId)
    assert.equal(ids.length, 12)
    assert.deepEqual(ids.slice(1).sort(), ENDPOINTS.map((e) => e.operationId).sort())
    assert.equal(ids[0], 'GetHealth')
  })

  it('every declared parameter and alias is documented on its operation', () => {
    for (const e of ENDPOINTS) {
      const op = doc.paths[`/main/hs/${e.service}/get`].get
      const names = new Set(op.parameters.map((p: Json) => p.name))
      for (const p of e.params) for (const n of [p.name, ...(p.aliases ?? [])]) assert.ok(names.has(n), `${e.service}: ${n}`)
      if (e.kind === 'list' && e.period) for (const n of ['from', 'to']) assert.ok(names.has(n), `${e.service}: ${n}`)
    }
  })

  it('every short and full shape is a component the 200 answer refers to', () => {
    for (const e of ENDPOINTS) {
      const text = JSON.stringify(doc.paths[`/main/hs/${e.service}/get`].get.responses[200])
      for (const s of [e.response.short, e.response.full]) {
        if (!s) continue
        assert.ok(doc.components.schemas[s.$id!], s.$id)
        assert.ok(text.includes(`#/components/schemas/${s.$id}`), `${e.service}: ${s.$id}`)
      }
    }
  })

  it('401 carries WWW-Authenticate, 500 {"error"}, health 500 text/plain, and Basic is declared with UTF-8', () => {
    const payments = doc.paths['/main/hs/payments/get'].get.responses
    assert.equal(payments[401].headers['WWW-Authenticate'].schema.const, 'Basic realm="docgate", charset="UTF-8"')
    assert.deepEqual(payments[500].content['application/json'].schema, { $ref: '#/components/schemas/Error' })
    assert.ok(doc.paths['/main/hs/health'].get.responses[500].content['text/plain'])
    assert.equal(doc.components.securitySchemes.basic.scheme, 'basic')
    assert.match(doc.components.securitySchemes.basic.description, /UTF-8/)
  })

  it('documents the literals, the _slash_ rule and the boolean spellings', () => {
    const text = JSON.stringify(doc)
    assert.ok(text.includes('Не указан'))
    const full = doc.paths['/main/hs/payments/get'].get.parameters.find((p: Json) => p.name === 'full')
    assert.deepEqual(full['x-docgate-true'], ['1', 'true', 'yes', 'да'])
    const contract = doc.paths['/main/hs/morders/get'].get.parameters.find((p: Json) => p.name === 'contract')
    assert.equal(contract['x-docgate-slash'], true)
    assert.match(contract.description, /_slash_/)
  })

  it('is not served when docs are off', async () => {
    const app = await createApp({ sql: {} as never, auth: { authenticate: async () => ({ ok: false }) }, docs: false })
    assert.equal((await app.inject({ url: '/openapi.json' })).statusCode, 404)
    await app.close()
  })
})
