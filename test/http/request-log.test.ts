// A request's logger is made only when a line is written (src/http/request-log.ts): an answer
// that logs nothing makes no pino child, and a line that is written still carries the
// request's id, as Fastify's own child would.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { describe, it } from 'node:test'
import { pino } from 'pino'
import { openWritable } from '../../src/app/store.js'
import { buildServer } from '../../src/http/server.js'
import type { Executor } from '../../src/serving/executor.js'
import { openReadOnly } from '../../src/store/open.js'
import { tempDir } from '../support/app.js'

const allow = { authenticate: async () => ({ ok: true as const, user: 't' }) }

/** An executor that answers warehouses and fails every other service. */
const executor: Executor = {
  async execute(request) {
    if (request.service === 'warehouses') return Buffer.from('{"data":[],"errors":[]}')
    throw new Error('the store went away')
  },
  async close() {},
}

describe("a request's logger", () => {
  it('makes no child for a quiet answer, and a failed answer logs one line with its request id', async () => {
    const db = join(tempDir(), 'l.db')
    await (await openWritable(db)).close()
    const sql = await openReadOnly(db)
    const lines: Record<string, unknown>[] = []
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const text of String(chunk).split('\n')) if (text) lines.push(JSON.parse(text))
        done()
      },
    })
    const logger = pino({ level: 'info' }, sink)
    let children = 0
    const child = logger.child.bind(logger)
    logger.child = ((...args: Parameters<typeof logger.child>) => {
      children++
      return child(...args)
    }) as typeof logger.child
    const app = buildServer({ sql, auth: allow, logger, executor })
    await app.ready()
    const made = children
    const quiet = await app.inject({ method: 'GET', url: '/main/hs/warehouses/get', headers: { 'x-request-id': 'quiet-1' } })
    assert.equal(quiet.statusCode, 200)
    assert.equal(children, made)
    const failed = await app.inject({ method: 'GET', url: '/main/hs/payments/get', headers: { 'x-request-id': 'failed-1' } })
    assert.equal(failed.statusCode, 500)
    assert.equal(failed.json().error, 'the store went away; request id failed-1')
    await app.close()
    await sql.close()
    assert.equal(children, made + 1)
    const failures = lines.filter((l) => l.msg === 'request failed')
    assert.equal(failures.length, 1)
    assert.equal(failures[0]!.reqId, 'failed-1')
    assert.equal(failures[0]!.service, 'payments')
    assert.equal(failures[0]!.level, 50)
    assert.equal((failures[0]!.err as { message: string }).message, 'the store went away')
    assert.equal(lines.filter((l) => l.reqId === 'quiet-1').length, 0)
  })
})
