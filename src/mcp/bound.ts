// Cuts the pipeline's envelope `{"data":[…],"errors":[…]}` down to what an agent's context
// can take: the first rows that fit the bound, a count of the rest, and the `errors`.
// It scans the bytes as they stream, so a `full` answer of many megabytes (attachments in
// Base64) is counted without ever being held: only the kept rows are.
import type { Body } from '../pipeline/run.js'
import type { Readable } from 'node:stream'

/** An answer carries at most this many `data` rows and this many bytes of them (decision "MCP tools"). */
export const ROW_LIMIT = 50
export const BYTE_LIMIT = 64 * 1024
/** `errors` entries beyond this are counted, not listed. */
export const ERROR_LIMIT = 20

export interface Bounded {
  /** The JSON text of the kept rows, exactly as the API prints them. */
  readonly rows: readonly Buffer[]
  /** All rows of `data`, kept or not. */
  readonly total: number
  /** Size in bytes of the first row left out (to tell an agent when one row alone is over the bound). */
  readonly firstLeftOutBytes?: number
  readonly errors: readonly string[]
}

const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09

export async function bound(body: Body | Readable, limits = { rows: ROW_LIMIT, bytes: BYTE_LIMIT }): Promise<Bounded> {
  const rows: Buffer[] = []
  let keptBytes = 0
  let total = 0
  let firstLeftOutBytes: number | undefined
  // The envelope's own nesting: 1 inside the object, 2 inside `data`, deeper inside a row.
  let depth = 0
  let inString = false
  let escaped = false
  let phase: 'head' | 'data' | 'tail' = 'head'
  const tail: Buffer[] = []
  // The row being read: its parts so far (while it may still be kept) and its size.
  let inRow = false
  let parts: Buffer[] | undefined
  let size = 0
  let leftOut = false

  const endRow = () => {
    inRow = false
    total += 1
    if (parts !== undefined && !leftOut && rows.length < limits.rows && keptBytes + size <= limits.bytes) {
      rows.push(Buffer.concat(parts))
      keptBytes += size
    } else {
      // Rows stay contiguous: once one is left out, so is every row after it.
      leftOut = true
      firstLeftOutBytes ??= size
    }
    parts = undefined
    size = 0
  }

  for await (const chunk of Buffer.isBuffer(body) ? [body] : body) {
    if (phase === 'tail') {
      tail.push(chunk)
      continue
    }
    let rowStart = inRow ? 0 : -1
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!
      if (phase === 'data' && depth === 2 && !inString) {
        if (inRow && (b === COMMA || b === CLOSE_ARRAY)) {
          take(chunk, rowStart, i)
          endRow()
          rowStart = -1
        } else if (!inRow && b !== COMMA && b !== CLOSE_ARRAY && !isSpace(b)) {
          inRow = true
          parts = leftOut ? undefined : []
          rowStart = i
        }
      }
      if (inString) {
        if (escaped) escaped = false
        else if (b === BACKSLASH) escaped = true
        else if (b === QUOTE) inString = false
        continue
      }
      if (b === QUOTE) inString = true
      else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
        depth += 1
        if (phase === 'head' && depth === 2 && b === OPEN_ARRAY) phase = 'data'
      } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        depth -= 1
        if (phase === 'data' && depth === 1) {
          phase = 'tail'
          tail.push(chunk.subarray(i + 1))
          break
        }
      }
    }
    if (inRow) take(chunk, rowStart, chunk.length)
  }

  function take(chunk: Buffer, from: number, to: number) {
    size += to - from
    if (parts !== undefined) {
      // Past the bound the row can no longer be kept: stop holding its bytes, keep counting them.
      if (leftOut || rows.length >= limits.rows || keptBytes + size > limits.bytes) parts = undefined
      else parts.push(chunk.subarray(from, to))
    }
  }

  return { rows, total, ...(firstLeftOutBytes !== undefined ? { firstLeftOutBytes } : {}), errors: tailErrors(tail) }
}

/** `,"errors":[…]}` (possibly over several chunks, the last of which the loop saw whole). */
function tailErrors(tail: readonly Buffer[]): string[] {
  const text = Buffer.concat(tail).toString('utf8')
  if (text.trim() === '') return []
  const parsed = JSON.parse(`{"data":[]${text}`) as { errors?: unknown }
  return Array.isArray(parsed.errors) ? parsed.errors.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))) : []
}
