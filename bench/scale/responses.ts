// Reads HTTP/1.1 responses off a keep-alive connection without keeping their bodies: the open
// loop (bench/scale/open-loop.ts) times answers, it never reads them. node:http's client did
// read them, and on one core it saturated below the rates it had to hold (113 KB answers:
// its p99 went from 6 ms at 1,000 a second to 926 ms at 3,000 against the bare server).
// Only what a GET's answer can carry is understood: a body of `content-length` bytes or in
// chunks (`transfer-encoding: chunked`, trailers skipped).

type State = 'head' | 'length' | 'size' | 'data' | 'trailer'

const END_OF_HEAD = Buffer.from('\r\n\r\n')
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i
const CHUNKED = /\r\ntransfer-encoding:[^\r]*chunked/i

export class ResponseReader {
  #state: State = 'head'
  /** The head read so far, when it came in more than one piece. */
  #head: Buffer | null = null
  /** A chunk-size or trailer line read so far. */
  #line = ''
  /** Body bytes still to come: of the body (`length`) or of the chunk and its CRLF (`data`). */
  #left = 0
  #status = 0
  readonly #answered: (status: number) => void

  /** `answered` is told each response's status once its last byte is read. */
  constructor(answered: (status: number) => void) {
    this.#answered = answered
  }

  push(bytes: Buffer): void {
    let i = 0
    while (i < bytes.length) {
      switch (this.#state) {
        case 'head':
          i = this.#readHead(bytes, i)
          break
        case 'length':
        case 'data': {
          const take = Math.min(this.#left, bytes.length - i)
          this.#left -= take
          i += take
          if (this.#left === 0) {
            if (this.#state === 'length') this.#end()
            else this.#state = 'size'
          }
          break
        }
        case 'size':
        case 'trailer': {
          const nl = bytes.indexOf(10, i)
          this.#line += bytes.toString('latin1', i, nl === -1 ? bytes.length : nl)
          if (nl === -1) return
          i = nl + 1
          const line = this.#line.replace(/\r$/, '')
          this.#line = ''
          if (this.#state === 'trailer') {
            if (line === '') this.#end()
          } else {
            const size = Number.parseInt(line, 16)
            if (!(size >= 0)) throw new Error(`a chunk size that is not one: "${line}"`)
            if (size === 0) this.#state = 'trailer'
            else {
              this.#left = size + 2
              this.#state = 'data'
            }
          }
          break
        }
      }
    }
  }

  /** Reads the head from `bytes[i…]`; returns where the body starts (or `bytes.length`). */
  #readHead(bytes: Buffer, i: number): number {
    const before = this.#head?.length ?? 0
    const head = this.#head ? Buffer.concat([this.#head, bytes.subarray(i)]) : bytes.subarray(i)
    // The end may straddle the pieces: look again from three bytes before this one.
    const at = head.indexOf(END_OF_HEAD, Math.max(0, before - 3))
    if (at === -1) {
      this.#head = Buffer.from(head)
      return bytes.length
    }
    this.#head = null
    const text = head.toString('latin1', 0, at + 2)
    this.#status = Number(text.slice(9, 12))
    const length = CONTENT_LENGTH.exec(text)
    if (CHUNKED.test(text)) this.#state = 'size'
    else if (length) {
      this.#left = Number(length[1])
      this.#state = 'length'
      if (this.#left === 0) this.#end()
    } else throw new Error(`an answer with neither content-length nor chunks: ${text.split('\r\n')[0]}`)
    return i + at + END_OF_HEAD.length - before
  }

  #end(): void {
    this.#state = 'head'
    this.#answered(this.#status)
  }
}
