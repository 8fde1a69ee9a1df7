// docs/api.md is what the generator writes from today's OpenAPI document: a change to a
// declaration, a meaning, a response shape or an example must come with the regenerated file.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { ENDPOINTS } from '../../src/endpoints/index.js'
import { renderApiDoc } from '../../src/openapi/api-doc.js'
import { openApiDocument } from '../../src/openapi/document.js'

const committed = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8')
const rendered = renderApiDoc(openApiDocument())

describe('docs/api.md', () => {
  it('is what the generator produces now', () => {
    if (committed === rendered) return
    const a = committed.split('\n')
    const b = rendered.split('\n')
    let line = 0
    while (line < a.length && a[line] === b[line]) line++
    assert.fail(
      `docs/api.md is stale: run \`npm run docs:generate\` and commit it.\n` +
        `first difference at line ${line + 1}:\n  committed: ${JSON.stringify(a[line] ?? '(end of file)')}\n  generated: ${JSON.stringify(b[line] ?? '(end of file)')}`,
    )
  })

  it('has a section for every endpoint and health, with every parameter and alias', () => {
    for (const e of ENDPOINTS) {
      const start = rendered.indexOf(`\n## ${e.service}\n`)
      assert.ok(start >= 0, `no section for ${e.service}`)
      const end = rendered.indexOf('\n## ', start + 1)
      const section = rendered.slice(start, end)
      assert.ok(section.includes(`GET /main/hs/${e.service}/get`), e.service)
      for (const p of e.params) {
        assert.ok(section.includes(`| \`${p.name}\` |`), `${e.service}: parameter ${p.name}`)
        for (const alias of p.aliases ?? []) assert.ok(section.includes(`\`${alias}\``), `${e.service}: alias ${alias}`)
      }
      for (const field of Object.keys(e.response.short.properties ?? {}))
        assert.ok(section.includes(`| ${field} |`), `${e.service}: field ${field}`)
      for (const field of Object.keys(e.response.full?.properties ?? {}))
        assert.ok(section.includes(`| ${field} |`), `${e.service}: full field ${field}`)
      assert.ok(section.includes(`curl -u demo:demo`), `${e.service}: example request`)
    }
    assert.ok(rendered.includes('\n## health\n'))
  })

  it('is a pure function of the document', () => {
    assert.equal(renderApiDoc(openApiDocument()), rendered)
  })
})
