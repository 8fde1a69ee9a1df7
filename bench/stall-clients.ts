// The heavy clients of `bench:stall`, in a process of their own: reading eight large
// answers at hundreds of MB/s keeps an event loop busy, and a health probe sharing that
// loop would time its own client's delays, not the server's (bench/stall.ts).
// Arguments: base URL, seconds, clients, then the paths; a path `mcp:<tool>?<arguments>` is
// an MCP tool call (POST /mcp) instead of an API request. Prints one JSON line.
import { BENCH_AUTH } from './harness.js'

/** The request of one path: a GET of the API, or a tool call over MCP's streamable HTTP. */
function request(path: string): Promise<Response> {
  if (!path.startsWith('mcp:')) return fetch(url + path, { headers: { authorization: BENCH_AUTH } })
  const [name, query = ''] = path.slice(4).split('?')
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: Object.fromEntries(new URLSearchParams(query)) } }
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { authorization: BENCH_AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  })
}

const [url, seconds, clients, ...paths] = process.argv.slice(2)
let running = true
let heavy = 0
let heavyErrors = 0
let heavyBytes = 0
setTimeout(() => (running = false), Number(seconds) * 1000)
await Promise.all(
  Array.from({ length: Number(clients) }, async (_, c) => {
    for (let i = c; running; i++) {
      try {
        const res = await request(paths[i % paths.length]!)
        // Counted as it arrives, as a client writing the answer away would: no whole copy.
        for await (const chunk of res.body!) heavyBytes += (chunk as Uint8Array).byteLength
        if (res.status === 200) heavy++
        else heavyErrors++
      } catch {
        heavyErrors++
      }
    }
  }),
)
console.log(JSON.stringify({ heavy, heavyErrors, heavyBytes }))
