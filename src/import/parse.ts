// Import files → (line number, parsed value) pairs, in the thread that calls. NDJSON is
// streamed; a file whose first non-blank character is `[` is one JSON array; `.gz` is
// gunzipped on the fly. `docgate import` reads through check-thread.ts (read.ts).
import { createReadStream } from 'node:fs'
import { createGunzip } from 'node:zlib'
import type { Readable } from 'node:stream'

export type Parsed = { readonly line: number; readonly value: unknown } | { readonly line: number; readonly error: string }

const NL = 0x0a
const CR = 0x0d

function open(path: string): Readable {
  const raw = createReadStream(path, { highWaterMark: 1 << 20 })
  return path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw
}

/**
 * The file's lines (LF or CRLF), each decoded once. Splitting the bytes, rather than
 * decoding chunks and splitting text as readline does, spares a copy of every line;
 * a line longer than a chunk (an attachment) is joined from its pieces once.
 */
async function* lines(input: Readable): AsyncGenerator<string> {
  let pending: Buffer[] = []
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let start = 0
    for (let nl = chunk.indexOf(NL); nl !== -1; nl = chunk.indexOf(NL, start)) {
      const piece = chunk.subarray(start, nl)
      const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece])
      pending = []
      yield line.toString('utf8', 0, line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length)
      start = nl + 1
    }
    if (start < chunk.length) pending.push(chunk.subarray(start))
  }
  if (pending.length > 0) {
    const line = Buffer.concat(pending)
    yield line.toString('utf8', 0, line[line.length - 1] === CR ? line.length - 1 : line.length)
  }
}

const BOM = 0xfeff
const withoutBom = (line: string): string => (line.charCodeAt(0) === BOM ? line.slice(1) : line)

export async function* parseEntries(path: string): AsyncGenerator<Parsed> {
  let n = 0
  let started = false
  let arrayText: string[] | undefined
  for await (const line of lines(open(path))) {
    n++
    if (arrayText) {
      arrayText.push(line)
      continue
    }
    const text = withoutBom(line)
    if (!started) {
      const trimmed = text.trim()
      if (trimmed === '') continue
      if (trimmed.startsWith('[')) {
        arrayText = [text]
        continue
      }
      started = true
    }
    try {
      yield { line: n, value: JSON.parse(text) }
    } catch (err) {
      // A blank line between objects is allowed; JSON.parse names it "Unexpected end".
      if (text.trim() === '') continue
      yield { line: n, error: `not JSON: ${(err as Error).message}` }
    }
  }
  if (arrayText) yield* arrayEntries(arrayText.join('\n'))
}

function* arrayEntries(text: string): Generator<Parsed> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (err) {
    yield { line: 1, error: `not a JSON array: ${(err as Error).message}` }
    return
  }
  if (!Array.isArray(parsed)) {
    yield { line: 1, error: 'not a JSON array' }
    return
  }
  // In an array file, "line" is the 1-based element number.
  for (let i = 0; i < parsed.length; i++) yield { line: i + 1, value: parsed[i] }
}
