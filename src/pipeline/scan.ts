// The pipeline's envelope `{"data":[…],…}` read back as its bytes stream, in one pass: where
// each `data` row begins and ends, and, for a tree, where the arrays inside a row open and
// close. Brackets are counted outside strings; nothing is parsed, so a row of many megabytes
// (an attachment in Base64) costs one scan of its bytes. The CSV and Excel writers
// (output.ts) and an agent's bounded answer (bound.ts) read the envelope through this.

const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09

export interface RowEvents {
  /** A row begins. */
  start(): void
  /**
   * Bytes `from`…`to` of `chunk` belong to the row, `level` arrays deep inside it (0 unless
   * the scanner splits at arrays). A row's parts arrive in order; an array's brackets belong
   * to the level around it.
   */
  part(chunk: Buffer, from: number, to: number, level: number): void
  /** The row has ended. */
  end(): void
}

export class EnvelopeScanner {
  // The envelope's own nesting: 1 inside the object, 2 inside `data`, deeper inside a row.
  #depth = 0
  #inString = false
  #escaped = false
  #phase: 'head' | 'data' | 'tail' = 'head'
  #inRow = false
  /** Arrays open around the current byte, within the row (counted only with `levels`). */
  #level = 0
  readonly #tail: Buffer[] = []

  /** `levels`: a row's parts are split where an array inside it opens or closes. */
  constructor(
    private readonly rows: RowEvents,
    private readonly levels = false,
  ) {}

  scan(chunk: Buffer): void {
    if (this.#phase === 'tail') {
      this.#tail.push(chunk)
      return
    }
    const rows = this.rows
    let start = 0
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false
        else if (b === BACKSLASH) this.#escaped = true
        else if (b === QUOTE) this.#inString = false
        continue
      }
      if (this.#phase === 'data' && this.#depth === 2) {
        if (this.#inRow && (b === COMMA || b === CLOSE_ARRAY)) {
          rows.part(chunk, start, i, 0)
          rows.end()
          this.#inRow = false
        } else if (!this.#inRow && b !== COMMA && b !== CLOSE_ARRAY && !isSpace(b)) {
          this.#inRow = true
          this.#level = 0
          rows.start()
          start = i
        }
      }
      if (b === QUOTE) this.#inString = true
      else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
        if (this.levels && this.#inRow && b === OPEN_ARRAY) {
          rows.part(chunk, start, i + 1, this.#level++)
          start = i + 1
        }
        this.#depth += 1
        if (this.#phase === 'head' && this.#depth === 2 && b === OPEN_ARRAY) this.#phase = 'data'
      } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        if (this.levels && this.#inRow && b === CLOSE_ARRAY) {
          rows.part(chunk, start, i, this.#level--)
          start = i
        }
        this.#depth -= 1
        if (this.#phase === 'data' && this.#depth === 1) {
          this.#phase = 'tail'
          this.#tail.push(chunk.subarray(i + 1))
          return
        }
      }
    }
    if (this.#inRow) rows.part(chunk, start, chunk.length, this.#level)
  }

  /** The members after `data` (`removed`, `errors`, …), in their order, once the envelope has ended. */
  rest(): Record<string, unknown> {
    const text = Buffer.concat(this.#tail).toString('utf8').trim()
    if (text === '' || text === '}') return {}
    return JSON.parse(`{${text.slice(1)}`) as Record<string, unknown>
  }
}
