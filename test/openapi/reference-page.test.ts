// GET /docs: the reference page is served from the package, renders /openapi.json, and its
// "try it" works with a Cyrillic user (UTF-8 Basic), in a real headless Chromium against a
// listening server on every engine; `serve --no-docs` turns it off; the CLI prints its URL.
import { createApp } from '../../src/app/create.js'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { chromium } from 'playwright-core'
import type { Browser, Page, Request } from 'playwright-core'
import { startHints } from '../../src/cli/start.js'

import { openWritable } from '../../src/app/store.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { BACKENDS, tempDir } from '../support/app.js'
import type { Backend } from '../support/app.js'
import { filledStore, listenLive } from '../support/live.js'
import type { LiveServer } from '../support/live.js'
import { LISTENING, ROOT, startServe } from '../support/serve-process.js'

const ARTIFACTS = join(ROOT, 'artifacts')
const CHROMIUM = '/usr/bin/chromium'
const INSTALL = 'apt-get update && apt-get install -y --no-install-recommends chromium'
const USER = 'оператор'
const PASSWORD = 'пароль'
// base64 of the UTF-8 bytes of "оператор:пароль"; btoa() would throw on these characters.
const UTF8_BASIC = 'Basic 0L7Qv9C10YDQsNGC0L7RgDrQv9Cw0YDQvtC70Yw='
const CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
const OPERATIONS = [
  'GET /main/hs/health',
  'GET /main/hs/payments/get',
  'GET /main/hs/receipts/get',
  'GET /main/hs/orders/get',
  'GET /main/hs/sorders/get',
  'GET /main/hs/specifications/get',
  'GET /main/hs/transfers/get',
  'GET /main/hs/morders/get',
  'GET /main/hs/demands/get',
  'GET /main/hs/cashflows/get',
  'GET /main/hs/materials/get',
  'GET /main/hs/warehouses/get',
]

const denyAll = { authenticate: async () => ({ ok: false as const }) }

const app = await createApp({ sql: {} as never, auth: denyAll })

describe('GET /docs, as served', () => {
  after(() => app.close())

  it('redirects /docs to /docs/, which is an HTML page loading only our own script and /openapi.json, without credentials', async () => {
    const redirect = await app.inject({ url: '/docs' })
    assert.equal(redirect.statusCode, 301)
    assert.equal(redirect.headers.location, '/docs/')
    const res = await app.inject({ url: '/docs/' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8')
    assert.equal(res.headers['content-security-policy'], CSP)
    assert.equal(res.headers['cache-control'], 'no-store')
    assert.match(res.body, /<script src="js\/scalar.js"><\/script>/)
    assert.match(res.body, /"url": "\/openapi.json"/)
    assert.match(res.body, /"withDefaultFonts": false/)
    assert.match(res.body, /<link rel="icon" href="data:," \/>\n {2}<\/head>/)
    assert.doesNotMatch(res.body, /https?:\/\//)
  })

  it('serves the bundled Scalar script from the package', async () => {
    const res = await app.inject({ url: '/docs/js/scalar.js' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['content-type'], 'application/javascript; charset=utf-8')
    assert.ok(res.body.length > 1_000_000, `script is ${res.body.length} characters`)
    assert.ok(res.body.includes('@scalar/api-reference'))
  })

  it('has no second copy of the document under /docs', async () => {
    for (const url of ['/docs/openapi.json', '/docs/openapi.yaml']) {
      const res = await app.inject({ url })
      assert.equal(res.statusCode, 404, url)
      assert.equal(res.body, '{"error":"Not Found"}')
    }
  })

  it('is not served when docs are off', async () => {
    const off = await createApp({ sql: {} as never, auth: denyAll, docs: false })
    for (const url of ['/docs', '/docs/', '/docs/js/scalar.js', '/openapi.json']) {
      const res = await off.inject({ url })
      assert.equal(res.statusCode, 404, url)
      assert.equal(res.body, '{"error":"Not Found"}')
    }
    await off.close()
  })
})

describe('the page URL on the command line', () => {
  it('npm start prints the curl line and the reference page with the demo credentials', () => {
    assert.deepEqual(startHints('8080'), [
      'demo credentials: demo / demo',
      "try: curl -u demo:demo 'http://127.0.0.1:8080/main/hs/warehouses/get'",
      'or in a browser: http://127.0.0.1:8080/docs (API reference with "try it"; sign in there as demo / demo)',
    ])
  })

  const serve = async (db: string, flags: string[]) => {
    const server = startServe(['--db', db, '--port', '0', ...flags])
    const [, base] = await server.until(LISTENING)
    // The lines after "listening on" are printed in the same tick.
    await new Promise((r) => setTimeout(r, 100))
    return {
      base: base!,
      out: server.output,
      async stop() {
        server.child.kill('SIGTERM')
        assert.equal((await server.exited)[0], 0)
      },
    }
  }

  it('docgate serve prints the page URL and serves it; --no-docs prints neither URL and serves neither route', async () => {
    const db = join(tempDir(), 'docs.db')
    await (await openWritable(db)).close()

    const on = await serve(db, [])
    try {
      const port = new URL(on.base).port
      assert.match(
        on.out(),
        new RegExp(
          `^OpenAPI document: http://127\\.0\\.0\\.1:${port}/openapi\\.json\nAPI reference: http://127\\.0\\.0\\.1:${port}/docs\n`,
          'm',
        ),
      )
      assert.equal((await fetch(`${on.base}/docs/`)).status, 200)
    } finally {
      await on.stop()
    }

    const off = await serve(db, ['--no-docs'])
    try {
      assert.doesNotMatch(off.out(), /\/docs|openapi/)
      for (const path of ['/docs', '/docs/', '/docs/js/scalar.js', '/openapi.json'])
        assert.equal((await fetch(`${off.base}${path}`, { redirect: 'manual' })).status, 404, path)
    } finally {
      await off.stop()
    }
  })
})

/** A real docgate listening on 127.0.0.1 (port 0) over the fixture, with the Cyrillic user. */
async function listen(backend: Backend): Promise<LiveServer & { base: string }> {
  const live = await listenLive(await filledStore(backend, warehousesFixture, [{ name: USER, password: PASSWORD }]))
  return { ...live, base: live.url }
}

/** Types into the field Scalar labels `label` (a CodeMirror line or a plain input). */
async function typeInto(page: Page, label: string, text: string): Promise<void> {
  const labelled = page.locator('label', { hasText: label }).first()
  await labelled.waitFor()
  const id = await labelled.getAttribute('for')
  assert.ok(id, `no field for ${label}`)
  const field = page.locator(`[id="${id}"]`)
  const editable =
    (await field.evaluate((el) => (el as { tagName: string }).tagName)) === 'INPUT' ? field : field.locator('[contenteditable="true"]')
  await editable.click()
  await page.keyboard.type(text)
}

const missing = !existsSync(CHROMIUM)
const skip = missing && !process.env.CI ? `${CHROMIUM} is missing; install it with: ${INSTALL}` : false

describe('the reference page in headless Chromium', { skip }, () => {
  let browser: Browser
  before(async () => {
    if (missing) throw new Error(`${CHROMIUM} is missing and CI is set; install it with: ${INSTALL}`)
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    })
    mkdirSync(ARTIFACTS, { recursive: true })
  })
  after(() => browser?.close())

  for (const [i, backend] of BACKENDS.entries()) {
    it(`${backend}: loads offline, lists the twelve operations, and "try it" as ${USER} answers 200`, { timeout: 600_000 }, async () => {
      const live = await listen(backend)
      const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } })
      try {
        const page = await context.newPage()
        // The machine running the suite may be busy: Scalar takes seconds to lay out the document.
        page.setDefaultTimeout(120_000)
        const requests: Request[] = []
        const failed: string[] = []
        const consoleErrors: string[] = []
        page.on('request', (r) => requests.push(r))
        page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`))
        page.on('response', (r) => {
          if (r.status() >= 400) failed.push(`${r.url()}: ${r.status()}`)
        })
        page.on('console', (m) => {
          if (m.type() === 'error') consoleErrors.push(`${m.text()} (${m.location().url})`)
        })
        page.on('pageerror', (e) => consoleErrors.push(e.message))

        await page.goto(`${live.base}/docs`, { waitUntil: 'networkidle' })
        const nav = page.getByRole('navigation')
        const operations = nav.getByRole('button').filter({ hasText: 'HTTP METHOD' })
        await operations.nth(OPERATIONS.length - 1).waitFor()
        const names = (await operations.allInnerTexts()).map((t) => t.split('\n')[0]!.trim())
        assert.deepEqual(names, OPERATIONS)
        await page.getByRole('heading', { name: 'Business-Document Read API (docgate)' }).waitFor()
        await page.locator('label', { hasText: 'Username' }).first().waitFor()
        if (i === 0) await page.screenshot({ path: join(ARTIFACTS, 'docs-page.png') })

        await typeInto(page, 'Username', USER)
        await typeInto(page, 'Password', PASSWORD)
        await page.getByRole('button', { name: 'Test Request (get /main/hs/warehouses/get)' }).click()
        const [response] = await Promise.all([
          page.waitForResponse((r) => new URL(r.url()).pathname === '/main/hs/warehouses/get'),
          page.getByRole('button', { name: /^Send get request to / }).click(),
        ])
        assert.equal(response.status(), 200)
        assert.equal(await response.request().headerValue('authorization'), UTF8_BASIC)
        assert.equal(response.url(), `${live.base}/main/hs/warehouses/get`)
        const body = (await response.json()) as { data: { Наименование: string }[]; errors: string[] }
        assert.equal(body.data.length, 7)
        assert.deepEqual(body.errors, [])
        await page.getByText('200 OK').waitFor()
        await page.getByText('"Основной склад"').first().waitFor()
        if (i === 0) await page.screenshot({ path: join(ARTIFACTS, 'docs-try-it.png') })

        const origin = new URL(live.base).origin
        const elsewhere = requests.map((r) => r.url()).filter((u) => !u.startsWith('data:') && new URL(u).origin !== origin)
        assert.deepEqual(elsewhere, [])
        assert.deepEqual(failed, [])
        assert.deepEqual(consoleErrors, [])
        const paths = new Set(requests.map((r) => new URL(r.url()).pathname))
        assert.deepEqual([...paths].sort(), ['/docs', '/docs/', '/docs/js/scalar.js', '/main/hs/warehouses/get', '/openapi.json'])
        if (i === 0) assert.ok(statSync(join(ARTIFACTS, 'docs-page.png')).size > 10_000)
      } finally {
        await context.close()
        await live.close()
      }
    })
  }
})
