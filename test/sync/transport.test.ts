// A sync run's thread stops its event loop while a batch commits. Its requests to the source
// leave from the main thread (sync/source/transport.ts), so those it asked ahead go out, one
// at a time, while it is stopped; sent from its own thread, none would.
import * as assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, test } from 'node:test'
import { MessageChannel, Worker } from 'node:worker_threads'
import { serveTransport } from '../../src/sync/source/transport.js'

const arrived: number[] = []
let inFlight = 0
let maxInFlight = 0
const server = createServer((_req, res) => {
  arrived.push(Date.now())
  maxInFlight = Math.max(maxInFlight, ++inFlight)
  setTimeout(() => {
    inFlight--
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"value":[]}')
  }, 10)
})
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`
after(() => server.close())

const TRANSPORT = new URL('../../src/sync/source/transport.js', import.meta.url).href

/**
 * In a worker: five requests asked at once, then the thread blocked for 1 s, then the answers
 * awaited. Its requests go through the port given (`viaPort`), or from the worker itself.
 */
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads')
import(workerData.transport).then(async ({ DirectTransport, PortTransport }) => {
  const t = workerData.port ? new PortTransport(workerData.port, 1) : new DirectTransport(1)
  const asked = Array.from({ length: 5 }, () => t.get({ url: workerData.url, headers: {}, timeoutMs: 5000 }))
  const from = Date.now()
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000)
  const to = Date.now()
  const answers = await Promise.all(asked)
  await t.close()
  parentPort.postMessage({ from, to, statuses: answers.map((a) => a.status), bodies: answers.map((a) => a.body.toString()) })
})
`

async function blockedWorker(viaPort: boolean): Promise<{ from: number; to: number; statuses: number[]; bodies: string[] }> {
  const lane = new MessageChannel()
  if (viaPort) serveTransport(lane.port1)
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { url, transport: TRANSPORT, port: viaPort ? lane.port2 : undefined },
    transferList: viaPort ? [lane.port2] : [],
  })
  try {
    return await new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
  } finally {
    await worker.terminate()
    lane.port1.close()
  }
}

test('requests asked ahead go out, one at a time, while the asking thread is blocked', async () => {
  arrived.length = 0
  maxInFlight = 0
  const run = await blockedWorker(true)
  assert.deepEqual(run.statuses, [200, 200, 200, 200, 200])
  assert.deepEqual(run.bodies, Array(5).fill('{"value":[]}'))
  assert.equal(arrived.filter((t) => t < run.to).length, 5)
  assert.equal(maxInFlight, 1)
})

test('sent from the blocked thread itself, at most the first goes out before it runs again', async () => {
  arrived.length = 0
  maxInFlight = 0
  const run = await blockedWorker(false)
  assert.deepEqual(run.statuses, [200, 200, 200, 200, 200])
  assert.ok(arrived.filter((t) => t < run.to).length <= 1)
  assert.equal(maxInFlight, 1)
})
