// What a data request hands the executor (serving/executor.ts Execution): its AbortSignal is
// made on first use, through a getter on the class, never an accessor of the object itself
// (decision "A request's Execution is a class"): a per-request accessor pair lives in V8's
// old generation and held each request's objects past every scavenge.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { openWritable } from '../../src/app/store.js'
import { buildServer } from '../../src/http/server.js'
import { answerCache } from '../../src/serving/answer-cache.js'
import type { DataRequest, Execution, Executor } from '../../src/serving/executor.js'
import { openReadOnly } from '../../src/store/open.js'
import { tempDir } from '../support/app.js'

const allow = { authenticate: async () => ({ ok: true as const, user: 't' }) }
const ANSWER = Buffer.from('{"data":[{"Код":"000000001"}],"errors":[]}')

/** What an Execution shows while its request runs. */
interface Seen {
  readonly ownSignal: PropertyDescriptor | undefined
  readonly signal: unknown
  readonly aborted: boolean
  readonly sameSignal: boolean
  readonly gone: boolean | undefined
}

/** An executor that looks at what it was handed while the request runs, and answers ANSWER. */
function capturing(): Executor & { readonly seen: Seen[] } {
  const seen: Seen[] = []
  return {
    seen,
    async execute(_request: DataRequest, how: Execution) {
      const ownSignal = Object.getOwnPropertyDescriptor(how, 'signal')
      const signal = how.signal
      seen.push({ ownSignal, signal, aborted: signal.aborted, sameSignal: how.signal === signal, gone: how.gone?.() })
      how.rows?.(1)
      return ANSWER
    },
    async close() {},
  }
}

describe('the Execution of a data request', () => {
  it('has no accessor of its own, from the route and through the answer cache, and its signal is made once', async () => {
    const db = join(tempDir(), 'e.db')
    await (await openWritable(db)).close()
    const sql = await openReadOnly(db)
    const inner = capturing()
    for (const executor of [inner, answerCache(inner, sql, { bytes: 1024 * 1024 })]) {
      const app = buildServer({ sql, auth: allow, logger: false, executor })
      const res = await app.inject({ method: 'GET', url: '/main/hs/warehouses/get' })
      assert.equal(res.statusCode, 200)
      assert.equal(res.body, ANSWER.toString())
      await app.close()
    }
    // The route's own, then the answer cache's, which passes the route's signal on.
    assert.equal(inner.seen.length, 2)
    for (const seen of inner.seen) {
      assert.equal(seen.ownSignal, undefined)
      assert.ok(seen.signal instanceof AbortSignal)
      assert.deepEqual([seen.aborted, seen.sameSignal, seen.gone], [false, true, false])
    }
    await sql.close()
  })
})
