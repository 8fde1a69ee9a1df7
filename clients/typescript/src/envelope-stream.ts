// Reads docgate's envelope `{"data":[…],"errors":[…]}` as it arrives: each `data` item is
// parsed and handed over on its own, so a `full` answer of many megabytes (Base64
// attachments) is never held whole. docgate prints `errors` after `data`, so the errors are
// known once the items have been read.

type Mode = 'before' | 'data' | 'after'
const DATA_KEY = /"data"\s*:\s*$/

/**
 * Splits envelope text, fed in pieces of any size, into `data` items. What lies outside the
 * items (the keys, `errors`) is kept and parsed at the end.
 */
export class EnvelopeScanner {
  private mode: Mode = 'before'
  private depth = 0
  private inString = false
  private escaped = false
  /** The envelope without its items: `{"data":[],"errors":[…]}` once complete. */
  private outside = ''
  /** The start of the current item, from earlier pieces. */
  private pending: string[] = []
  private items = 0

  /** The items completed by this piece of text. */
  push(text: string): unknown[] {
    const out: unknown[] = []
    let segment = 0
    let backslash = -2
    for (let i = 0; i < text.length; i++) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false
          continue
        }
        // Jump to the next quote or backslash: a Base64 attachment is one long string.
        if (backslash !== -1 && backslash < i) backslash = text.indexOf('\\', i)
        const quote = text.indexOf('"', i)
        if (backslash !== -1 && (quote === -1 || backslash < quote)) {
          i = backslash
          this.escaped = true
        } else if (quote !== -1) {
          i = quote
          this.inString = false
        } else {
          i = text.length
        }
        continue
      }
      const c = text[i]
      if (c === '"') this.inString = true
      else if (c === '{' || c === '[') {
        if (this.mode === 'before' && this.depth === 1 && c === '[' && DATA_KEY.test(this.outside + text.slice(segment, i))) {
          this.outside += text.slice(segment, i + 1)
          this.mode = 'data'
          segment = i + 1
        }
        this.depth++
      } else if (c === '}' || c === ']') {
        this.depth--
        if (this.mode === 'data' && this.depth === 1) {
          if (c !== ']') throw new SyntaxError('The data array of the answer is not closed by "]"')
          this.item(text.slice(segment, i), out, true)
          this.mode = 'after'
          segment = i
        }
      } else if (c === ',' && this.mode === 'data' && this.depth === 2) {
        this.item(text.slice(segment, i), out, false)
        segment = i + 1
      }
    }
    if (this.mode === 'data') this.pending.push(text.slice(segment))
    else this.outside += text.slice(segment)
    return out
  }

  private item(tail: string, out: unknown[], last: boolean): void {
    const text = this.pending.length ? this.pending.join('') + tail : tail
    this.pending = []
    if (text.trim() === '') {
      if (last && this.items === 0) return // `[]`
      throw new SyntaxError('The data array of the answer has an empty item')
    }
    out.push(JSON.parse(text))
    this.items++
  }

  /** The `errors` of a complete envelope; throws if the text ended early or is no envelope. */
  end(): string[] {
    if (this.mode === 'data' || this.depth !== 0 || this.inString)
      throw new SyntaxError('The answer ended before its envelope was complete')
    if (this.mode === 'before') throw new SyntaxError('The answer has no data array')
    const envelope = JSON.parse(this.outside) as { data?: unknown; errors?: unknown }
    const errors = envelope.errors
    if (!Array.isArray(errors) || !errors.every((e) => typeof e === 'string'))
      throw new SyntaxError('The answer has no errors array of strings')
    return errors
  }
}

/**
 * The items of one answer, read from the body as they arrive (`for await`). An answer is read
 * once; leaving the loop early cancels the rest of the body. Call `cancel()` to drop an answer
 * without reading it, or the connection stays busy.
 */
export class EnvelopeStream<T> implements AsyncIterable<T> {
  private used = false
  private problems: string[] | undefined

  constructor(private readonly body: ReadableStream<Uint8Array>) {}

  /** The answer's `errors`, known once every item has been read; undefined until then. */
  get errors(): readonly string[] | undefined {
    return this.problems
  }

  async cancel(): Promise<void> {
    if (this.used) return
    this.used = true
    await this.body.cancel()
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    if (this.used) throw new Error('This answer has already been read')
    this.used = true
    const reader = this.body.getReader()
    const decoder = new TextDecoder('utf-8', { fatal: true })
    const scanner = new EnvelopeScanner()
    let complete = false
    try {
      for (;;) {
        const { done, value } = await reader.read()
        const text = done ? decoder.decode() : decoder.decode(value, { stream: true })
        for (const item of scanner.push(text)) yield item as T
        if (done) break
      }
      this.problems = scanner.end()
      complete = true
    } finally {
      if (!complete) await reader.cancel().catch(() => {})
      reader.releaseLock()
    }
  }
}
