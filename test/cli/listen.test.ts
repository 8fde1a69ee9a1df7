// Every listener that cannot bind its port (serve, serve --admin-port, npm start, fake-1c)
// exits 1 at once with one line naming host, port and the flag that chooses another:
// the worker pool, timers and the open store do not keep the process alive.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { openWritable } from '../../src/app/store.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { importFixture, tempDir } from '../support/app.js'
import { ROOT } from '../support/serve-process.js'

/** Runs `node <args>` to its end: exit code, standard error, seconds taken. */
async function exits(args: string[], env: Record<string, string> = {}): Promise<{ code: unknown; err: string; seconds: number }> {
  const started = performance.now()
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DOCGATE_LOG_LEVEL: 'warn', ...env },
  })
  let err = ''
  child.stderr.on('data', (c: Buffer) => (err += c.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  const [code] = await once(child, 'close')
  clearTimeout(timer)
  return { code, err, seconds: (performance.now() - started) / 1000 }
}

describe('a port in use', () => {
  const busy = createServer()
  let port = 0
  let db = ''

  before(async () => {
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    port = (busy.address() as AddressInfo).port
    db = join(tempDir(), 'listen.db')
    const sql = await openWritable(db)
    assert.equal((await importFixture(sql, warehousesFixture)).ok, true)
    await sql.close()
  })
  after(() => busy.close())

  const inUse = (flag: string) => `docgate: cannot listen on 127.0.0.1:${port}: the port is in use (choose another with ${flag})\n`

  it('serve (with its worker pool) exits 1 at once, naming --port', async () => {
    const r = await exits(['bin/docgate.js', 'serve', '--db', db, '--port', String(port), '--workers', '2'])
    assert.deepEqual([r.code, r.err], [1, inUse('--port')])
    assert.ok(r.seconds < 5, `took ${r.seconds} s`)
  })

  it('serve --admin-port exits 1 at once, naming --admin-port, though its public port was bound', async () => {
    const r = await exits(['bin/docgate.js', 'serve', '--db', db, '--port', '0', '--admin-port', String(port), '--workers', '2'])
    assert.deepEqual([r.code, r.err], [1, inUse('--admin-port')])
    assert.ok(r.seconds < 5, `took ${r.seconds} s`)
  })

  it('npm start exits 1 at once, naming PORT', async () => {
    const r = await exits(['bin/start.js'], { DOCGATE_DB: db, PORT: String(port) })
    assert.deepEqual([r.code, r.err], [1, inUse('PORT=N npm start')])
    assert.ok(r.seconds < 5, `took ${r.seconds} s`)
  })

  it('fake-1c exits 1 at once, naming --port', async () => {
    const r = await exits(['bin/docgate.js', 'fake-1c', '--db', db, '--port', String(port)])
    assert.deepEqual([r.code, r.err], [1, inUse('--port')])
    assert.ok(r.seconds < 5, `took ${r.seconds} s`)
  })
})
