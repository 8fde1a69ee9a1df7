import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { READER } from '../support/app.js'
import type { TestStore } from '../support/stores.js'
import { fixtureStore } from './support.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const CASHIER = { name: 'кассир', password: 'секрет', methods: ['payments'] }
const ALL_TOOLS = [
  'payments',
  'receipts',
  'orders',
  'sorders',
  'specifications',
  'transfers',
  'morders',
  'demands',
  'cashflows',
  'materials',
  'warehouses',
]
const texts = (result: unknown) => (result as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : c.type))
const env = { ...(process.env as Record<string, string>), DOCGATE_DB: '' }

// `docgate mcp` opens an SQLite file or a postgres:// URL: PGlite lives inside one process,
// so the PGlite engine is covered by the HTTP suite.
describe('sqlite: MCP over stdio (docgate mcp)', () => {
  let store: TestStore
  const clients: Client[] = []
  before(async () => {
    store = await fixtureStore('sqlite', [READER, CASHIER])
  })
  after(async () => {
    for (const c of clients) await c.close()
    await store.cleanup()
  })

  async function spawn(...extra: string[]): Promise<Client> {
    const client = new Client({ name: 'test', version: '1' })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/docgate.js', 'mcp', '--db', store.location, ...extra],
      cwd: ROOT,
      env,
      stderr: 'pipe',
    })
    await client.connect(transport)
    clients.push(client)
    return client
  }

  it('without --user, every endpoint is a tool and calls answer the literal data', async () => {
    const client = await spawn()
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ALL_TOOLS,
    )
    assert.deepEqual(texts(await client.callTool({ name: 'warehouses', arguments: { code: '000000001' } })), [
      '{"data":[{"Код":"000000001","Наименование":"Основной склад","ЭтоГруппа":false}],"errors":[]}',
    ])
    const payment = JSON.parse(texts(await client.callTool({ name: 'payments', arguments: { code: 'ЗР-0001' } }))[0]!)
    assert.deepEqual(
      payment.data.map((p: Record<string, unknown>) => [p.Номер, p.Организация, p.СуммаДокумента]),
      [['ЗР-0001', 'ООО Альфа', 1500.5]],
    )
  })

  it('a large answer is bounded and says how many rows it left out', async () => {
    const client = await spawn()
    const [envelope, note] = texts(await client.callTool({ name: 'warehouses', arguments: {} }))
    assert.equal(JSON.parse(envelope!).data.length, 50)
    assert.equal(
      note,
      'Showing 50 of 69 rows: 19 rows left out (an answer carries at most 50 rows and 65536 bytes of rows). To narrow the query, add any of: code, name, group.',
    )
  })

  it("with --user, that user's grants apply", async () => {
    const client = await spawn('--user', 'кассир')
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['payments'],
    )
    // A tool of the API outside the user's grants says so; a name the API lacks is unknown.
    await assert.rejects(
      client.callTool({ name: 'warehouses', arguments: {} }),
      (err: Error) => err.message === 'MCP error -32602: Tool warehouses is not granted to this user',
    )
    await assert.rejects(
      client.callTool({ name: 'health', arguments: {} }),
      (err: Error) => err.message === 'MCP error -32602: Unknown tool: health',
    )
  })

  it('an unknown --user is refused before the protocol starts', () => {
    const run = spawnSync(process.execPath, ['bin/docgate.js', 'mcp', '--db', store.location, '--user', 'никто'], {
      cwd: ROOT,
      env,
      input: '',
      encoding: 'utf8',
    })
    assert.equal(run.status, 1)
    assert.equal(run.stdout, '')
    assert.equal(run.stderr, 'docgate: no user named никто\n')
  })
})
