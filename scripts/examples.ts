// The OpenAPI document's response examples (src/openapi/examples.json): real answers of
// the demo data set, asked of the real server in-process and trimmed to an item or two.
// `npm run examples:generate` writes the file; test/openapi/examples.test.ts regenerates it
// (a second or two) and fails when the committed file is stale.
import { createApp } from '../src/app/create.js'
import { writeDemo } from '../src/cli/demo.js'
import { DEFAULT_TODAY } from '../src/demo/generate.js'
import type { Endpoint } from '../src/endpoints/define.js'
import { ENDPOINTS } from '../src/endpoints/index.js'

import type { Examples, ExampleEntry } from '../src/openapi/examples.js'
import { openWritable } from '../src/app/store.js'

/** Small enough to build in about a second, large enough for every endpoint to answer. */
export const DEMO = { scale: 0.1, seed: 1, today: DEFAULT_TODAY } as const

type Item = Record<string, unknown>
interface Answer {
  readonly data: Item[]
  readonly errors: string[]
}

/** Items of a short example; a full example keeps one (full forms are long). */
const SHORT_ITEMS = 2
/** A full item is the first of the answer that fits; attachments in Base64 can make one very long. */
const FULL_BUDGET = 6_000

/** A tree's first element (a node that is not a group), searched depth-first. */
function firstElement(nodes: readonly Item[]): Item | undefined {
  for (const node of nodes) {
    if (node.ЭтоГруппа !== true) return node
    const found = firstElement((node.Дети as Item[] | undefined) ?? [])
    if (found) return found
  }
  return undefined
}

/** What identifies an item for the `code` filter (documents print Номер, catalogues Код). */
const codeOf = (item: Item): string => String(item.Номер ?? item.Код)

export async function generateExamples(): Promise<Examples> {
  const sql = await openWritable(':memory:')
  try {
    await writeDemo(sql, DEMO.scale, DEMO.seed, true)
    const [y, m, d] = DEMO.today.split('-').map(Number) as [number, number, number]
    const now = () => new Date(y, m - 1, d, 12)
    const app = await createApp({ sql, auth: { authenticate: async () => ({ ok: true, user: 'examples' }) }, logger: false, now })
    try {
      const ask = async (service: string, query: string): Promise<Answer> => {
        const res = await app.inject({ url: `/main/hs/${service}/get${query}` })
        if (res.statusCode !== 200) throw new Error(`${service}${query}: ${res.statusCode} ${res.body.slice(0, 300)}`)
        const answer = JSON.parse(res.body) as Answer
        if (answer.errors.length > 0) throw new Error(`${service}${query}: errors ${JSON.stringify(answer.errors)}`)
        if (answer.data.length === 0) throw new Error(`${service}${query}: no data`)
        return answer
      }
      const entry = (query: string, answer: Answer, items: Item[]): ExampleEntry => ({
        query: decodeURIComponent(query),
        total: answer.data.length,
        value: { data: items, errors: [] },
      })

      const examples: Record<string, { short: ExampleEntry; full?: ExampleEntry }> = {}
      for (const e of ENDPOINTS) examples[e.service] = await examplesOf(e, ask, entry)
      return { demo: DEMO, endpoints: examples }
    } finally {
      await app.close()
    }
  } finally {
    await sql.close()
  }
}

async function examplesOf(
  e: Endpoint,
  ask: (service: string, query: string) => Promise<Answer>,
  entry: (query: string, answer: Answer, items: Item[]) => ExampleEntry,
): Promise<{ short: ExampleEntry; full?: ExampleEntry }> {
  if (e.service === 'materials') {
    // The whole tree is the catalogue: narrowed to one element it is the chain of its groups.
    const leaf = firstElement((await ask('materials', '')).data)
    if (!leaf) throw new Error('materials: no element in the demo tree')
    const query = `?code=${encodeURIComponent(String(leaf.Код))}`
    const answer = await ask('materials', query)
    return { short: entry(query, answer, answer.data.slice(0, SHORT_ITEMS)) }
  }
  const shortAnswer = await ask(e.service, '')
  const short = entry('', shortAnswer, shortAnswer.data.slice(0, SHORT_ITEMS))
  if (!e.response.full) return { short }
  // The full form of the short example's own items, asked by their code (transfers and
  // specifications require one), the first that is not too long.
  for (const item of shortAnswer.data) {
    const query = `?code=${encodeURIComponent(codeOf(item))}&full=true`
    const answer = await ask(e.service, query)
    const fits = answer.data.find((i) => JSON.stringify(i).length <= FULL_BUDGET)
    if (fits) return { short, full: entry(query, answer, [fits]) }
  }
  throw new Error(`${e.service}: no full item within ${FULL_BUDGET} characters`)
}
