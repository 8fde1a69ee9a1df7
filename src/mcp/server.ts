// The MCP server over a set of granted endpoints, for any transport (stdio in cli/mcp.ts,
// streamable HTTP in mcp/http.ts). The SDK's low-level Server, so that each tool's input
// schema is the plain JSON Schema tools.ts derives from the declarations.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { Endpoint } from '../endpoints/define.js'
import { endpointByService } from '../endpoints/index.js'
import { version } from '../version.js'
import { callTool, toolOf } from './tools.js'
import type { CallOptions } from './tools.js'

const INSTRUCTIONS =
  'Read-only access to accounting documents, catalogues and cash statements. Every tool answers ' +
  '{"data": [...], "errors": [...]} as the HTTP API does; texts and field names are in Russian. ' +
  'Filters are case-insensitive substrings unless described otherwise; dates as ДД.ММ.ГГГГ.'

/**
 * A JSON-RPC "invalid params" error whose message is the text alone: the SDK's McpError puts
 * `MCP error -32602:` into the message it sends, and the client adds it again.
 */
const invalidParams = (text: string): Error => Object.assign(new Error(text), { code: ErrorCode.InvalidParams })

/** `endpoints` are the ones granted to the caller: the only tools listed and the only ones callable. */
export function buildMcpServer(endpoints: readonly Endpoint[], options: CallOptions): Server {
  const server = new Server({ name: 'docgate', version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS })
  const byName = new Map(endpoints.map((e) => [e.service, e]))
  const tools = endpoints.map(toolOf)
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const endpoint = byName.get(request.params.name)
    // A tool of the API that this user may not call says so (the tool names are the API's
    // documented services, no secret); only a name the API does not have is unknown.
    if (!endpoint) {
      const name = request.params.name
      throw invalidParams(endpointByService.has(name) ? `Tool ${name} is not granted to this user` : `Unknown tool: ${name}`)
    }
    return callTool(endpoint, request.params.arguments, options, extra.signal)
  })
  return server
}
