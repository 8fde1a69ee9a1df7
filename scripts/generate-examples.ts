// `npm run examples:generate`: rewrites src/openapi/examples.json from the demo data set.
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { generateExamples } from './examples.js'

const target = fileURLToPath(new URL('../../src/openapi/examples.json', import.meta.url))
writeFileSync(target, JSON.stringify(await generateExamples(), null, 2) + '\n')
console.log(`wrote ${target}`)
