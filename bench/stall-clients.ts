// The heavy clients of `bench:stall`, in a process of their own: reading eight large
// answers at hundreds of MB/s keeps an event loop busy, and a health probe sharing that
// loop would time its own client's delays, not the server's (bench/stall.ts).
// Arguments: base URL, seconds, clients, then the paths. Prints one JSON line.
import { BENCH_AUTH } from './harness.js'

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
        const res = await fetch(url + paths[i % paths.length]!, { headers: { authorization: BENCH_AUTH } })
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
