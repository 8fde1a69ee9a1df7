// A yardstick between docgate and the bare server: docgate's own store, credential check and
// event-loop executor (serving/in-process.ts) behind a plain node:http handler, with no
// framework, hooks, observer or request logger. What docgate costs beyond it is the HTTP
// layer's share of a request (bench/floor.ts). Not a server to run: it answers only
// `/main/hs/health` and `/main/hs/<service>/get`, and every failure as a bare 500.
// argv: db
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import { Readable } from 'node:stream'
import { Authenticator } from '../../src/auth/authenticator.js'
import { inProcessExecutor } from '../../src/serving/in-process.js'
import { openReadOnly } from '../../src/store/open.js'
import { UserSnapshot } from '../../src/users/directory.js'

const store = await openReadOnly(process.argv[2]!)
const users = new UserSnapshot(store, () => {})
await users.start()
const auth = new Authenticator({ users })
const executor = inProcessExecutor(store, 30_000)
const HEALTH = Buffer.from(JSON.stringify({ Статус: 'API доступен' }))
const DATA = /^\/main\/hs\/([^/?]+)\/get$/
const never = { gone: () => false, signal: new AbortController().signal }

const server = createServer(async (req, res) => {
  try {
    const url = req.url ?? ''
    const q = url.indexOf('?')
    const path = q < 0 ? url : url.slice(0, q)
    const service = DATA.exec(path)?.[1]
    const granted = await auth.authenticate([req.headers.authorization ?? ''], req.socket.remoteAddress ?? '', service ?? null)
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': randomUUID(),
    }
    if (!granted.ok) return void res.writeHead(401, headers).end()
    if (service === undefined) {
      await store.all('SELECT 1 AS ok')
      return void res.writeHead(200, headers).end(HEALTH)
    }
    const request = { service, query: q < 0 ? '' : url.slice(q + 1), now: new Date() }
    const body = (await executor.attempt(request, never)) ?? (await executor.execute(request, never))
    res.writeHead(200, { ...headers, 'access-control-allow-origin': '*' })
    if (body instanceof Readable) body.pipe(res)
    else res.end(body)
  } catch {
    res.writeHead(500).end()
  }
})
server.keepAliveTimeout = 5000
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`)
})
// An ordinary exit on a signal, so that `node --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0))
