import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { BACKENDS, READER, basic } from '../support/app.js'
import { listen } from './support.js'
import type { LiveServer } from './support.js'

const REALM = 'Basic realm="docgate", charset="UTF-8"'
const CASHIER = { name: 'кассир', password: 'секрет', methods: ['payments'] }
const HEALTH_ONLY = { name: 'дежурный', password: 'секрет', methods: ['health'] }
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
const MAIN_WAREHOUSE = '{"data":[{"Код":"000000001","Наименование":"Основной склад","ЭтоГруппа":false}],"errors":[]}'

const texts = (result: unknown) => (result as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : c.type))

for (const backend of BACKENDS)
  describe(`${backend}: MCP over streamable HTTP (POST /mcp)`, () => {
    let server: LiveServer
    const clients: Client[] = []
    before(async () => {
      server = await listen(backend, [READER, CASHIER, HEALTH_ONLY])
    })
    after(async () => {
      for (const c of clients) await c.close()
      await server.close()
    })

    async function connect(user: { name: string; password: string }): Promise<Client> {
      const client = new Client({ name: 'test', version: '1' })
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
        requestInit: { headers: basic(user.name, user.password) },
      })
      await client.connect(transport)
      clients.push(client)
      return client
    }
    const api = (path: string, user = READER) => fetch(new URL(path, server.url), { headers: basic(user.name, user.password) })

    it('lists every endpoint as a read-only tool for a user granted all', async () => {
      const client = await connect(READER)
      const { tools } = await client.listTools()
      assert.deepEqual(
        tools.map((t) => t.name),
        ALL_TOOLS,
      )
      assert.ok(tools.every((t) => t.annotations?.readOnlyHint === true && t.annotations.destructiveHint === false))
      const warehouses = tools.find((t) => t.name === 'warehouses')!
      assert.equal(warehouses.title, 'Warehouses catalogue as a flat list')
      assert.deepEqual(warehouses.inputSchema, {
        type: 'object',
        properties: {
          code: { type: 'string', description: 'Код (подстрока) / Code, Код (substring). Database filter: case-insensitive substring.' },
          name: {
            type: 'string',
            description: 'Наименование (подстрока) / Name, Наименование (substring). Database filter: case-insensitive substring.',
          },
          group: {
            type: ['boolean', 'string'],
            description:
              'Истина — только группы; любое другое заданное значение — только элементы (не группы) / True: only groups; any other given value: only elements (non-groups). Database filter; true when one of true, 1, да (any case).',
          },
          limit: {
            type: ['integer', 'string'],
            description:
              'Размер страницы: первые N строк (1…10000) в порядке списка; пока строки остаются, заголовок Link с rel="next" ведёт к следующей странице / Page size: the first N rows (1…10000) in the list\'s order; while rows remain, a Link header with rel="next" leads to the next page. Paging, not a parameter of the contract; a value that cannot be followed is refused with 400.',
          },
          cursor: {
            type: 'string',
            description:
              "Позиция следующей страницы из заголовка Link (непрозрачная строка; только вместе с limit) / The next page's position, from the Link header (an opaque string; only with limit). Paging, not a parameter of the contract; a value that cannot be followed is refused with 400.",
          },
          count: {
            type: ['boolean', 'string'],
            description:
              'С limit: true добавляет заголовок X-Total-Count — число строк всего списка / With limit: true adds an X-Total-Count header, the number of rows of the whole list. Paging, not a parameter of the contract; a value that cannot be followed is refused with 400.',
          },
          changed_since: {
            type: 'string',
            description:
              'Только строки, созданные или изменённые после позиции из заголовка X-Changes-Token прежнего ответа (и «removed» — удалённые с тех пор); позиция старше 30 дней — 410 / Only the rows created or changed since the position in an earlier answer\'s X-Changes-Token header (and "removed", those deleted since); a position older than 30 days is 410. Changes, not a parameter of the contract: the answer adds "removed" (the identities of the rows gone since) before "errors"; a value that is not a token is refused with 400, one the change log no longer reaches (30 days, or the list rebuilt since) or another store\'s with 410.',
          },
          fields: {
            type: 'string',
            description:
              'Только эти поля, через запятую: Номер,Дата,Товары.Номенклатура (точка — вложенное поле или поле строки табличной части) / Only these fields, comma-separated: Номер,Дата,Товары.Номенклатура (a dot leads into a nested object or the rows of a tabular part). Not a parameter of the contract; a value that cannot be followed is refused with 400.',
          },
        },
        additionalProperties: false,
      })
      const payments = tools.find((t) => t.name === 'payments')!
      assert.deepEqual(Object.keys(payments.inputSchema.properties!), [
        'from',
        'to',
        'date',
        'code',
        'summ',
        'approved',
        'responsible',
        'recipient',
        'contractor',
        'cash',
        'comment',
        'status',
        'full',
        'limit',
        'cursor',
        'count',
        'changed_since',
        'fields',
      ])
      const materials = tools.find((t) => t.name === 'materials')!
      assert.equal('limit' in materials.inputSchema.properties!, false, 'a tree takes no limit')
      assert.match(payments.description!, /^Expense requests \(document\): the answer of GET \/main\/hs\/payments\/get/)
    })

    it('a tool call with fields answers the kept fields, as the API does (decision "Fields, CSV and Excel")', async () => {
      const client = await connect(READER)
      assert.deepEqual(texts(await client.callTool({ name: 'warehouses', arguments: { code: '000000001', fields: 'Наименование' } })), [
        '{"data":[{"Наименование":"Основной склад"}],"errors":[]}',
      ])
      const bad = await client.callTool({ name: 'warehouses', arguments: { fields: 'Имя' } })
      assert.equal(bad.isError, true)
      assert.deepEqual(texts(bad), [
        JSON.stringify({ error: 'unknown field "Имя"; the fields of warehouses are Код, Наименование, ЭтоГруппа' }),
      ])
    })

    it('a tool call answers the literal data, exactly as the API does', async () => {
      const client = await connect(READER)
      assert.deepEqual(texts(await client.callTool({ name: 'warehouses', arguments: { code: '000000001' } })), [MAIN_WAREHOUSE])
      assert.equal(await (await api('/main/hs/warehouses/get?code=000000001')).text(), MAIN_WAREHOUSE)
      const payment = JSON.parse(texts(await client.callTool({ name: 'payments', arguments: { code: 'ЗР-0001', approved: true } }))[0]!)
      assert.deepEqual(
        payment.data.map((p: Record<string, unknown>) => [p.Номер, p.ДатаРасхода, p.Получатель, p.СуммаДокумента]),
        [['ЗР-0001', '05.03.2024', 'ООО Ромашка', 1500.5]],
      )
      assert.deepEqual(payment.errors, [])
      // A boolean argument means what the API's `true` means.
      const groups = JSON.parse(texts(await client.callTool({ name: 'warehouses', arguments: { group: true } }))[0]!)
      assert.deepEqual(groups, { data: [{ Код: '000000010', Наименование: 'Региональные склады', ЭтоГруппа: true }], errors: [] })
      // In-band problems stay in `errors`, as over HTTP.
      const badDate = JSON.parse(texts(await client.callTool({ name: 'payments', arguments: { date: '31.02.2024' } }))[0]!)
      assert.deepEqual(badDate, (await (await api('/main/hs/payments/get?date=31.02.2024')).json()) as typeof badDate)
      assert.equal(badDate.errors.length, 1)
    })

    it('a large answer is bounded to 50 rows and says how many it left out and how to narrow', async () => {
      const client = await connect(READER)
      const [envelope, note, ...rest] = texts(await client.callTool({ name: 'warehouses', arguments: {} }))
      assert.deepEqual(rest, [])
      const all = (await (await api('/main/hs/warehouses/get')).json()) as { data: unknown[] }
      assert.equal(all.data.length, 69)
      assert.deepEqual(JSON.parse(envelope!), { data: all.data.slice(0, 50), errors: [] })
      assert.equal(
        note,
        'Showing 50 of 69 rows: 19 rows left out (an answer carries at most 50 rows and 65536 bytes of rows). To narrow the query, add any of: code, name, group.',
      )
      const [, narrowed] = texts(await client.callTool({ name: 'warehouses', arguments: { name: 'массовый' } }))
      assert.equal(
        narrowed,
        'Showing 50 of 60 rows: 10 rows left out (an answer carries at most 50 rows and 65536 bytes of rows). To narrow the query, add any of: code, group.',
      )
    })

    it("an unknown argument is refused with the tool's own argument list", async () => {
      const client = await connect(READER)
      const result = (await client.callTool({ name: 'warehouses', arguments: { offset: 5 } })) as CallToolResult
      assert.equal(result.isError, true)
      assert.deepEqual(texts(result), [
        'unknown argument(s) offset; warehouses takes code, name, group, limit, cursor, count, changed_since, fields',
      ])
    })

    it('a paged call ends with the total and the next cursor; a bad cursor is refused with its message', async () => {
      const client = await connect(READER)
      const [envelope, note, ...rest] = texts(await client.callTool({ name: 'warehouses', arguments: { limit: 2, count: true } }))
      assert.deepEqual(rest, [])
      const all = (await (await api('/main/hs/warehouses/get')).json()) as { data: unknown[] }
      assert.deepEqual(JSON.parse(envelope!), { data: all.data.slice(0, 2), errors: [] })
      const cursor = /^The whole list has 69 rows\. More rows follow: call again with the same arguments and cursor "([\w.-]+)"\.$/.exec(
        note!,
      )?.[1]
      assert.ok(cursor, note)
      const [second] = texts(await client.callTool({ name: 'warehouses', arguments: { limit: 2, count: true, cursor } }))
      assert.deepEqual(JSON.parse(second!), { data: all.data.slice(2, 4), errors: [] })
      const bad = (await client.callTool({ name: 'warehouses', arguments: { limit: 2, cursor: 'x' } })) as CallToolResult
      assert.equal(bad.isError, true)
      assert.deepEqual(texts(bad), ['{"error":"cursor is not one this request gave: malformed"}'])
    })

    it('a changed_since call answers removed and names the next position; a token that cannot be followed is refused (decision "Changes since")', async () => {
      const client = await connect(READER)
      const plain = await api('/main/hs/warehouses/get')
      const token = plain.headers.get('x-changes-token')!
      assert.match(token, /^\d+\.[\w-]{12}$/)
      const [envelope, note, ...rest] = texts(await client.callTool({ name: 'warehouses', arguments: { changed_since: token } }))
      assert.deepEqual(rest, [])
      assert.equal(envelope, '{"data":[],"removed":[],"errors":[]}')
      assert.match(note!, /^For what changes after this answer, call again with changed_since "\d+\.[\w-]{12}"\.$/)
      // A plain call names no position: its answer is what it always was.
      assert.deepEqual(texts(await client.callTool({ name: 'warehouses', arguments: { code: '000000001' } })), [MAIN_WAREHOUSE])
      const forged = (await client.callTool({ name: 'warehouses', arguments: { changed_since: `1.${'x'.repeat(12)}` } })) as CallToolResult
      assert.equal(forged.isError, true)
      assert.match(texts(forged)[0]!, /^\{"error":"changed_since is not a token this store gave: /)
    })

    it('a user sees and calls only the tools of the services granted to them', async () => {
      const client = await connect(CASHIER)
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['payments'],
      )
      const payment = JSON.parse(texts(await client.callTool({ name: 'payments', arguments: { code: 'ЗР-0001' } }))[0]!)
      assert.deepEqual(
        payment.data.map((p: Record<string, unknown>) => p.Номер),
        ['ЗР-0001'],
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
      // An issued user without any data service (health only) connects and finds no tool.
      assert.deepEqual((await (await connect(HEALTH_ONLY)).listTools()).tools, [])
    })

    it("wrong or missing credentials get the API's own 401", async () => {
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }
      for (const headers of [basic(READER.name, 'не тот'), basic('никто', 'пароль'), {}]) {
        const res = await fetch(new URL('/mcp', server.url), {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(init),
        })
        assert.equal(res.status, 401)
        assert.equal(res.headers.get('www-authenticate'), REALM)
        assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8')
        assert.equal(await res.text(), '{"error":"Unauthorized"}')
        const viaApi = await fetch(new URL('/main/hs/warehouses/get', server.url), { headers })
        assert.equal(viaApi.status, 401)
        assert.equal(viaApi.headers.get('www-authenticate'), REALM)
        assert.equal(await viaApi.text(), '{"error":"Unauthorized"}')
      }
      const client = new Client({ name: 'test', version: '1' })
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
        requestInit: { headers: basic(READER.name, 'не тот') },
      })
      await assert.rejects(client.connect(transport), (err: { code?: unknown }) => err.code === 401)
    })

    it('GET and DELETE /mcp are 405: a stateless server offers no stream and no session', async () => {
      for (const method of ['GET', 'DELETE']) {
        const res = await fetch(new URL('/mcp', server.url), { method, headers: basic(READER.name, READER.password) })
        assert.equal(res.status, 405, method)
        assert.equal(res.headers.get('allow'), 'POST')
      }
    })
  })
