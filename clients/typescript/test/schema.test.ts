import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { openApiDocument } from '../../../src/openapi/document.js'
import { REGENERATE, committedSchema, renderSchema } from '../scripts/generate.js'
import { SERVICES } from '../src/client.js'
import type { DocgateClient, Item, Params, Service } from '../src/client.js'

describe('the generated schema', () => {
  it('is what openapi-typescript makes of the current document', async () => {
    const fresh = await renderSchema(openApiDocument())
    // A field, parameter or endpoint changed in docgate without regenerating the client's types.
    assert.ok(fresh === committedSchema(), `clients/typescript/src/schema.ts is stale: run \`${REGENERATE}\` and commit it`)
  })

  it('has a call for every endpoint the document lists, and no other', () => {
    const paths = Object.keys(openApiDocument().paths as object)
    const services = paths.flatMap((p) => /^\/main\/hs\/([^/]+)\/get$/.exec(p)?.slice(1) ?? [])
    assert.deepEqual([...SERVICES].sort(), services.sort())
    assert.deepEqual(
      paths.filter((p) => !/\/get$/.test(p)),
      ['/main/hs/health'],
    )
  })
})

// Compile-time checks: the build fails if the generated types stop holding what they must.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
const checks: [
  Equal<Service, (typeof SERVICES)[number]>,
  Equal<Params<'receipts'>['supplier'], string | undefined>,
  Equal<Params<'payments'>['full'], string | boolean | undefined>,
  Equal<Item<'warehouses'>, { Код: string; Наименование: string; ЭтоГруппа: boolean }>,
] = [true, true, true, true]
void checks
export function typeOnly(client: DocgateClient): void {
  // @ts-expect-error: payments has no `name` parameter
  void client.payments({ name: 'x' })
  // @ts-expect-error: filter values are strings
  void client.payments({ code: 1 })
  // @ts-expect-error: no such endpoint
  void client.invoices()
}
