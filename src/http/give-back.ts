// Fastify sends a streamed answer with `pipe`, which writes each chunk without a callback, so
// nothing would learn when the socket is done with it. This `pipe` writes each chunk with one
// and gives a worker's lent chunk back then (serving/lent.ts). It keeps what fastify relies
// on: back-pressure (pause until `drain`), `end` unless told not to; fastify itself destroys
// the body when the response closes and ends the response after the trailers.
import type { Readable, Writable } from 'node:stream'
import { giveBack } from '../serving/lent.js'

export function givingBack(body: Readable): Readable {
  body.pipe = <T extends NodeJS.WritableStream>(dest: T, options?: { end?: boolean }): T => {
    const res = dest as unknown as Writable
    const written = (chunk: Buffer) => (err?: Error | null) => {
      if (!err) giveBack(chunk)
    }
    const resume = () => body.resume()
    const write = (chunk: Buffer) => {
      if (res.write(chunk, written(chunk))) return
      body.pause()
      res.once('drain', resume)
    }
    body.on('data', write)
    res.once('close', () => {
      body.off('data', write)
      res.off('drain', resume)
    })
    if (options?.end !== false) body.once('end', () => res.end())
    return dest
  }
  return body
}
