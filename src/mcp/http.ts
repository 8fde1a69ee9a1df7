// POST /mcp: the agent tools over streamable HTTP on the API's own server, stateless (no
// session: every POST carries its credentials and is answered on its own). The same UTF-8
// Basic credentials and per-method grants as the API: a user lists and calls only the
// tools of the services granted to them; a refused request gets the API's very 401.
import type { IncomingMessage } from 'node:http'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Endpoint } from '../endpoints/define.js'
import { ENDPOINTS } from '../endpoints/index.js'
import type { Executor } from '../serving/executor.js'
import { buildMcpServer } from './server.js'
import type { CallOptions } from './tools.js'

type AuthResult = { ok: true; user: string } | { ok: false; retryAfterSeconds?: number }

/** What the route needs of the API server's options (http/server.ts `ServerOptions`). */
export interface McpRouteOptions {
  /** The API's own executor: a tool call is a data request like any other (pool, time limit, cache). */
  readonly executor: Executor
  readonly auth: { authenticate(headerValues: readonly string[], ip: string, service: string | null): Promise<AuthResult> }
  readonly now?: () => Date
  /** The API's 500 text (http/server.ts `errorText`), so a failed tool call reads like a failed request. */
  readonly errorText: (err: unknown) => string
  /** The position of a list's answer, as the API's X-Changes-Token (http/server.ts). */
  readonly changes?: CallOptions['changes']
}

// The API's 401, byte for byte (http/server.ts `deny`); the HTTP test compares the two.
const REALM = 'Basic realm="docgate", charset="UTF-8"'
const UNAUTHORIZED = '{"error":"Unauthorized"}'
// The headers every API answer carries (http/server.ts onSend), which a hijacked reply skips.
const EVERY_ANSWER = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }

function authorizationValues(req: IncomingMessage): string[] {
  const raw = req.rawHeaders
  const values: string[] = []
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') values.push(raw[i + 1]!)
  return values
}

/**
 * The endpoints this request's user may use, or the refusal. The first check verifies the
 * password (and counts a failure once, as one API request would); the per-service checks
 * after it hit the authenticator's verified-credential cache and run no KDF.
 */
async function grantedEndpoints(
  options: McpRouteOptions,
  req: FastifyRequest,
): Promise<{ ok: true; endpoints: Endpoint[] } | { ok: false; retryAfterSeconds?: number }> {
  const headers = authorizationValues(req.raw)
  const issued = await options.auth.authenticate(headers, req.ip, null)
  if (!issued.ok) return issued
  const endpoints: Endpoint[] = []
  for (const e of ENDPOINTS) if ((await options.auth.authenticate(headers, req.ip, e.service)).ok) endpoints.push(e)
  return { ok: true, endpoints }
}

export function registerMcp(app: FastifyInstance & { draining?: boolean }, options: McpRouteOptions): void {
  const run: CallOptions = {
    executor: options.executor,
    now: options.now ?? (() => new Date()),
    errorText: options.errorText,
    ...(options.changes ? { changes: options.changes } : {}),
  }
  const granted = new WeakMap<FastifyRequest, Endpoint[]>()

  app.post('/mcp', {
    // Credentials are checked before the body is read: an unauthenticated client gets its
    // 401 without the server parsing what it sent.
    onRequest: async (req, reply) => {
      const result = await grantedEndpoints(options, req)
      if (!result.ok) {
        reply.code(401).header('www-authenticate', REALM).type('application/json; charset=utf-8')
        if (result.retryAfterSeconds !== undefined) reply.header('retry-after', String(result.retryAfterSeconds))
        return reply.send(UNAUTHORIZED)
      }
      granted.set(req, result.endpoints)
    },
    handler: async (req, reply) => {
      const server = buildMcpServer(granted.get(req) ?? [], {
        ...run,
        onError: (err, service) => req.log.error({ err, service }, 'tool call failed'),
      })
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      reply.hijack()
      const res = reply.raw
      for (const [name, value] of Object.entries(EVERY_ANSWER)) res.setHeader(name, value)
      if (app.draining) res.setHeader('connection', 'close')
      res.on('close', () => {
        void transport.close()
        void server.close()
      })
      try {
        await server.connect(transport)
        await transport.handleRequest(req.raw, res, req.body)
      } catch (err) {
        req.log.error({ err }, 'MCP request failed')
        if (!res.headersSent)
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: options.errorText(err) }))
        else res.end()
      }
    },
  })

  // Stateless: there is no server-initiated stream to GET and no session to DELETE. The MCP
  // transport spec asks for 405 here, which clients read as "no stream offered".
  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .type('application/json; charset=utf-8')
      .send('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}')
  app.get('/mcp', notAllowed)
  app.delete('/mcp', notAllowed)
}
