// The main side of a streamed answer: chunks from a worker, credit returned as the socket
// takes them, so a slow client holds at most the stream's buffer plus the worker's window.
import { Readable } from 'node:stream'

export class AnswerStream extends Readable {
  #owed = 0

  constructor(
    /** Lets the worker send `n` more chunks. */
    private readonly credit: (n: number) => void,
    /** The consumer destroyed the stream (client gone): the work should stop. */
    private readonly gone: () => void,
  ) {
    super()
  }

  add(chunk: Buffer): void {
    if (this.push(chunk)) this.credit(1)
    else this.#owed++
  }

  override _read(): void {
    if (this.#owed === 0) return
    const n = this.#owed
    this.#owed = 0
    this.credit(n)
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.gone()
    callback(err)
  }
}
