// A whole answer joined from bytes already made (ready pages and the envelope's ends), kept as
// those pieces. The HTTP route writes them in one gathered write (http/gathered.ts), so a
// period's answer is never copied into a Buffer of its own: at thousands of answers a
// second those copies were the main thread's garbage, and keeping joined answers to skip
// them made mark-compacts of their own (decision "An answer of ready pages is sent as its pieces").
export class Parts implements AsyncIterable<Buffer> {
  readonly length: number

  constructor(readonly parts: readonly Buffer[]) {
    let n = 0
    for (const p of parts) n += p.length
    this.length = n
  }

  /** The pieces as one Buffer, for a consumer that needs the bytes whole. */
  joined(): Buffer {
    return Buffer.concat(this.parts, this.length)
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    yield* this.parts
  }
}
