// `npm run docs:generate`: rewrites docs/api.md from the OpenAPI document.
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { renderApiDoc } from '../src/openapi/api-doc.js'
import { openApiDocument } from '../src/openapi/document.js'

const target = fileURLToPath(new URL('../../docs/api.md', import.meta.url))
writeFileSync(target, renderApiDoc(openApiDocument()))
console.log(`wrote ${target}`)
