// The yardstick: a bare node:http server that sends fixed bytes with the same headers
// docgate sends. argv: bodyFile contentType [cors|none] [contentEncoding]
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

const [bodyFile, contentType, cors, contentEncoding] = process.argv.slice(2)
const body = readFileSync(bodyFile!)
const headers: Record<string, string> = {
  'content-type': contentType!,
  'content-length': String(body.length),
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
}
if (cors === 'cors') headers['access-control-allow-origin'] = '*'
if (contentEncoding) {
  headers['content-encoding'] = contentEncoding
  headers.vary = 'accept-encoding'
}
const server = createServer((_req, res) => {
  res.writeHead(200, headers)
  res.end(body)
})
server.keepAliveTimeout = 5000
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`)
})
