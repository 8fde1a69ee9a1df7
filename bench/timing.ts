// Sequential request timings (one request at a time: the time a client waits for a whole
// answer, not a throughput figure).
export interface Timing {
  readonly bytes: number
  readonly medianMs: number
  readonly minMs: number
  readonly body: string
}

export async function timeRequest(url: string, headers: Record<string, string>, runs: number): Promise<Timing> {
  const times: number[] = []
  let body = ''
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint()
    const res = await fetch(url, { headers })
    const text = await res.text()
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
    if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${text.slice(0, 200)}`)
    body = text
  }
  times.sort((a, b) => a - b)
  return { bytes: Buffer.byteLength(body), medianMs: times[Math.floor(times.length / 2)]!, minMs: times[0]!, body }
}

export const seconds = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e9
