// The admin listener (`serve --admin-port`): liveness, readiness and metrics on a port of
// their own, without credentials, so a balancer and Prometheus reach them while the public
// port stays the contract's. A plain node:http server: it shares nothing with the public
// app's hooks, so scrapes never show up in the request metrics or the access log.
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { CONTENT_TYPE } from './metrics.js'
import type { Metrics } from './metrics.js'
import type { Readiness } from './readiness.js'

export interface AdminOptions {
  readonly metrics: Metrics
  readonly readiness: () => Promise<Readiness>
}

const JSON_TYPE = 'application/json; charset=utf-8'

function answer(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' })
  res.end(body)
}

async function handleAdmin(options: AdminOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]
  if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, 405, JSON_TYPE, '{"error":"Method Not Allowed"}')
  switch (path) {
    case '/live':
      // Answering at all is the proof: the event loop turns.
      return answer(res, 200, JSON_TYPE, '{"live":true}')
    case '/ready': {
      const r = await options.readiness()
      return answer(res, r.ready ? 200 : 503, JSON_TYPE, JSON.stringify(r))
    }
    case '/metrics':
      return answer(res, 200, CONTENT_TYPE, await options.metrics.text())
    default:
      return answer(res, 404, JSON_TYPE, '{"error":"Not Found"}')
  }
}

export function adminServer(options: AdminOptions): Server {
  const server = createServer((req, res) => {
    handleAdmin(options, req, res).catch((err: unknown) => {
      if (!res.headersSent) answer(res, 500, JSON_TYPE, JSON.stringify({ error: err instanceof Error ? err.message : String(err) }))
      else res.destroy()
    })
  })
  server.keepAliveTimeout = 5_000
  server.headersTimeout = 10_000
  server.requestTimeout = 30_000
  return server
}
