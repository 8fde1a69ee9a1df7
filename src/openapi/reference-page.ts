// GET /docs: Scalar's interactive reference for the document at /openapi.json, served
// entirely from the package (its bundled script at /docs/js/scalar.js, system fonts), so the
// page works on a machine with no way out. The Content-Security-Policy makes the browser
// itself refuse a request to any other origin, should a later Scalar version try one.
// Scalar encodes Basic credentials as UTF-8 (js-base64 over TextEncoder), so "try it" works
// with a Cyrillic user name as it is; test/openapi/reference-page.test.ts holds it to that.
import scalar from '@scalar/fastify-api-reference'
import type { FastifyInstance } from 'fastify'

const DOCS_PATH = '/docs'

const CSP = [
  "default-src 'self'",
  // Scalar starts itself from an inline script and injects its styles at run time.
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ')

// With `url` as its source Scalar still adds /docs/openapi.json and /docs/openapi.yaml, whose
// handlers would echo the URL string: the document has one address, /openapi.json.
const SCALAR_COPIES = new Set([`${DOCS_PATH}/openapi.json`, `${DOCS_PATH}/openapi.yaml`])
// Without an icon in the page the browser asks for /favicon.ico, which is a 404 here.
const NO_ICON = '<link rel="icon" href="data:," />'

async function page(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async (req, reply) => {
    if (SCALAR_COPIES.has(req.routeOptions.url ?? ''))
      return reply.code(404).type('application/json; charset=utf-8').send('{"error":"Not Found"}')
    reply.header('content-security-policy', CSP)
  })
  app.addHook('onSend', async (req, _reply, payload) => {
    if (req.routeOptions.url !== `${DOCS_PATH}/` || typeof payload !== 'string') return payload
    return payload.replace('</head>', `  ${NO_ICON}\n  </head>`)
  })
  await app.register(scalar, {
    routePrefix: DOCS_PATH,
    logLevel: 'warn',
    configuration: {
      url: '/openapi.json',
      pageTitle: 'docgate API reference',
      // The default loads Inter from fonts.scalar.com.
      withDefaultFonts: false,
      // "Open API Client" links to Scalar's hosted client; the page's own client stays.
      hideClientButton: true,
      telemetry: false,
      // The developer toolbar offers share links uploaded to Scalar's servers.
      showDeveloperTools: 'never',
      agent: { disabled: true },
      authentication: { preferredSecurityScheme: 'basic' },
      // Every operation in the sidebar at once: there are twelve.
      defaultOpenAllTags: true,
    },
  })
}

/** Registers GET /docs (redirecting to /docs/) and its script; the page reads /openapi.json. */
export function referencePage(app: FastifyInstance): void {
  app.register(page)
}
