// Stopping under keep-alive (reliability battery G1): the listener closes at once, an idle
// keep-alive connection is not cut, and its next request is answered with Connection: close.
import { createApp } from '../../src/app/create.js'
import assert from 'node:assert/strict'
import { Agent, request } from 'node:http'
import type { IncomingHttpHeaders } from 'node:http'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { ConnectionDrainer } from '../../src/http/drain.js'

import { openReadOnly } from '../../src/store/open.js'
import { openWritable } from '../../src/app/store.js'
import { tempDir } from '../support/app.js'

const allow = { authenticate: async () => ({ ok: true as const, user: 't' }) }

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  reused: boolean
}

function get(port: number, agent: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/main/hs/warehouses/get', agent }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, reused: req.reusedSocket }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('draining the server', () => {
  it('refuses new connections, keeps an idle keep-alive one, answers its next request with Connection: close', async () => {
    const db = join(tempDir(), 'd.db')
    await (await openWritable(db)).close()
    const sql = await openReadOnly(db)
    const app = await createApp({ sql, auth: allow, logger: false })
    const drainer = new ConnectionDrainer(app.server)
    await app.listen({ host: '127.0.0.1', port: 0 })
    const port = (app.server.address() as { port: number }).port
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })

    const first = await get(port, agent)
    assert.deepEqual([first.status, first.headers.connection, first.reused], [200, 'keep-alive', false])
    assert.equal(drainer.size, 1)

    app.draining = true
    let drained = false
    const done = drainer.drain().then(() => (drained = true))
    await new Promise((r) => setTimeout(r, 100))
    assert.equal(drained, false, 'the idle keep-alive connection is still open')
    await assert.rejects(get(port, new Agent()), { code: 'ECONNREFUSED' })

    const second = await get(port, agent)
    assert.deepEqual([second.status, second.headers.connection, second.reused], [200, 'close', true])
    await done
    assert.equal(drainer.size, 0)
    await app.close()
    await sql.close()
    agent.destroy()
  })
})
