import assert from 'node:assert/strict'
import { inProcessExecutor } from '../../src/serving/in-process.js'
import { after, before, describe, it } from 'node:test'
import { ENDPOINTS, endpointByService } from '../../src/endpoints/index.js'
import { errorText } from '../../src/http/server.js'
import { callTool, toolOf } from '../../src/mcp/tools.js'
import { openApiDocument } from '../../src/openapi/document.js'
import type { SqlPort } from '../../src/store/sql.js'
import { failingReads } from '../support/failing-sql.js'
import type { TestStore } from '../support/stores.js'
import { fixtureStore } from './support.js'
import { element, group } from '../fixtures/materials.js'
import { filledStore } from '../support/live.js'

type Operation = { parameters: { name: string; description: string; 'x-docgate-stage': string }[] }

/** A call nobody stops. */
const NO_STOP = new AbortController().signal

describe('MCP tools: derived from the declarations', () => {
  it('every tool argument is an OpenAPI parameter with the very same description (aliases aside)', () => {
    const doc = openApiDocument() as { paths: Record<string, { get: Operation }> }
    for (const e of ENDPOINTS) {
      const { parameters } = doc.paths[`/main/hs/${e.service}/get`]!.get
      // An agent reads JSON: the output parameters other than `fields` are not its arguments.
      const main = parameters.filter(
        (p) => !p.description.includes(' Alias of `') && !(p['x-docgate-stage'] === 'output' && p.name !== 'fields'),
      )
      const properties = toolOf(e).inputSchema.properties as Record<string, { description: string }>
      assert.deepEqual(
        Object.keys(properties),
        main.map((p) => p.name),
        e.service,
      )
      for (const p of main) assert.equal(properties[p.name]!.description, p.description, `${e.service}.${p.name}`)
    }
  })

  it('every tool has a title from the spec and names the fields its rows print', () => {
    for (const e of ENDPOINTS) assert.ok(toolOf(e).title, e.service)
    assert.equal(
      toolOf(endpointByService.get('cashflows')!).title,
      'Cash balances and turnovers per account/cash desk (actual, not planned)',
    )
    assert.match(toolOf(endpointByService.get('warehouses')!).description!, / Rows print the fields Код, Наименование, ЭтоГруппа\. /)
  })
})

describe('sqlite: MCP tools: a failing store', () => {
  let store: TestStore
  let sql: SqlPort
  before(async () => {
    store = await fixtureStore('sqlite', [])
    sql = await store.openReader()
  })
  after(async () => {
    await sql.close()
    await store.cleanup()
  })

  it("a tool call whose reads fail is an error result with the API's 500 body", async () => {
    const failing = failingReads(() => true, 'database disk image is malformed')(sql)
    const logged: string[] = []
    const result = await callTool(
      endpointByService.get('warehouses')!,
      {},
      { executor: inProcessExecutor(failing, 0), now: () => new Date(), errorText, onError: (_err, service) => logged.push(service) },
      NO_STOP,
    )
    assert.deepEqual(result, { isError: true, content: [{ type: 'text', text: '{"error":"database disk image is malformed"}' }] })
    assert.deepEqual(logged, ['warehouses'])
  })

  it("a tool call that fails for the store's connection says the store is unavailable; the log gets the driver's text", async () => {
    const failing = failingReads(() => true, 'connect ECONNREFUSED 10.1.2.3:5432')(sql)
    const logged: string[] = []
    const options = {
      executor: inProcessExecutor(failing, 0),
      now: () => new Date(),
      errorText,
      onError: (err: unknown) => logged.push((err as Error).message),
    }
    const result = await callTool(endpointByService.get('warehouses')!, {}, options, NO_STOP)
    assert.deepEqual(result, { isError: true, content: [{ type: 'text', text: '{"error":"the store is unavailable"}' }] })
    assert.deepEqual(logged, ['connect ECONNREFUSED 10.1.2.3:5432'])
  })

  it("a value of the wrong kind is refused; a boolean false is the API's false", async () => {
    const options = { executor: inProcessExecutor(sql, 0), now: () => new Date(), errorText }
    const warehouses = endpointByService.get('warehouses')!
    assert.deepEqual(await callTool(warehouses, { code: { x: 1 } }, options, NO_STOP), {
      isError: true,
      content: [{ type: 'text', text: 'code: expected a string, number or boolean' }],
    })
    const elements = JSON.parse(
      ((await callTool(warehouses, { group: false, code: '00000001' }, options, NO_STOP)).content[0] as { text: string }).text,
    )
    assert.deepEqual(
      elements.data.map((w: { Код: string }) => w.Код),
      ['000000001', '000000011', '000000012'],
    )
  })
})

// A top group (Металлы) over the lowered bound: two subgroups of 10 elements each (some 2.8 KB apiece); a second,
// small top group (Крепёж) and a root element.
const TREE_FIXTURE = [
  group('g-metal', 'G01', 'Металлы'),
  group('g-steel', 'G02', 'Сталь', 'g-metal'),
  group('g-copper', 'G03', 'Медь', 'g-metal'),
  group('g-fast', 'G04', 'Крепёж'),
  ...Array.from({ length: 10 }, (_, i) => element(`steel-${i}`, `S${String(i).padStart(2, '0')}`, `Лист стальной ${i}`, 'g-steel')),
  ...Array.from({ length: 10 }, (_, i) => element(`copper-${i}`, `C${String(i).padStart(2, '0')}`, `Лист медный ${i}`, 'g-copper')),
  element('bolt', 'B01', 'Болт М8', 'g-fast'),
  element('nut', 'N01', 'Гайка', undefined),
]

describe('sqlite: MCP tools: a tree over the bound', () => {
  let store: TestStore
  let sql: SqlPort
  before(async () => {
    store = await filledStore('sqlite', TREE_FIXTURE, [])
    sql = await store.openReader()
  })
  after(async () => {
    await sql.close()
    await store.cleanup()
  })
  const text = (result: unknown) => (result as { content: { text: string }[] }).content.map((c) => c.text)
  const node = (code: string, name: string, children?: unknown[]) =>
    children === undefined
      ? {
          Код: code,
          Наименование: name,
          Артикул: '',
          ЭтоГруппа: false,
          Услуга: false,
          ЕдиницаИзмерения: '',
          ВидНоменклатуры: '',
          НоменклатурнаяГруппа: '',
          ОсновнойПоставщик: '',
        }
      : { Код: code, Наименование: name, ЭтоГруппа: true, Дети: children }

  it('answers the top of the tree with the children cut at the level that fits, and says how to open a group', async () => {
    const materials = endpointByService.get('materials')!
    const options = { executor: inProcessExecutor(sql, 0), now: () => new Date(), errorText, limits: { rows: 50, bytes: 4096 } }
    const [envelope, note, ...rest] = text(await callTool(materials, {}, options, NO_STOP))
    assert.deepEqual(rest, [])
    assert.deepEqual(JSON.parse(envelope!), {
      data: [
        node('G04', 'Крепёж', [node('B01', 'Болт М8')]),
        node('G01', 'Металлы', [node('G03', 'Медь', []), node('G02', 'Сталь', [])]),
        node('N01', 'Гайка'),
      ],
      errors: [],
    })
    assert.equal(
      note,
      'Groups at level 2 (the top is level 1) are shown without their children (Дети: []) to fit the bound; ask materials with group=<name> to open one (the elements directly in the groups of that name, with the groups above them). Or narrow the query with any of: code, name, type, ngroup, article, supplier, service.',
    )
    // Opening one: its elements, under the groups above it, within the bound.
    const [opened, ...more] = text(await callTool(materials, { group: 'Сталь' }, options, NO_STOP))
    assert.deepEqual(more, [])
    const steel = Array.from({ length: 10 }, (_, i) => node(`S${String(i).padStart(2, '0')}`, `Лист стальной ${i}`))
    steel.sort((a, b) => a.Наименование.localeCompare(b.Наименование, 'ru'))
    assert.deepEqual(JSON.parse(opened!).data, [node('G01', 'Металлы', [node('G02', 'Сталь', steel)])])
  })

  it("the tool's description says how cut children are shown", () => {
    assert.match(
      toolOf(endpointByService.get('materials')!).description!,
      /a group of that level shows Дети: \[\] \(never empty otherwise\) and the answer names the level; ask with group=<a group's name> to open one\.$/,
    )
  })
})
