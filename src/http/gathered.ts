// A whole answer of known length (serving/answer-stream.ts `WholeAnswer`) goes out as its
// pieces, under one cork, which the socket sends as one gathered write. The route writes it
// on the raw response (a hijacked reply): through fastify's stream path every such request
// kept objects alive past a scavenge, so the main thread's young generation promoted
// megabytes a second (decision "An answer of ready pages is sent as its pieces"). The pieces
// are at most the loop's answer bound (pipeline/run.ts LOOP_BYTES): no wait for `drain`.
import type { OutgoingHttpHeader, ServerResponse } from 'node:http'
import type { WholeAnswer } from '../serving/answer-stream.js'

export function writeGathered(
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, OutgoingHttpHeader | undefined>>,
  body: WholeAnswer,
): void {
  res.writeHead(status, { ...headers, 'content-length': body.length })
  res.cork()
  for (const part of body.parts) res.write(part)
  res.end()
  res.uncork()
}
