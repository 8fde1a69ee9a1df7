// Import files → (line number, parsed value) pairs. NDJSON is streamed; a file whose
// first non-blank character is `[` is one JSON array; `.gz` is gunzipped on the fly.
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { createGunzip } from 'node:zlib'
import type { Readable } from 'node:stream'

export type Entry = { readonly line: number; readonly value: unknown } | { readonly line: number; readonly error: string }

function open(path: string): Readable {
  const raw = createReadStream(path)
  return path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw
}

export async function* readEntries(path: string): AsyncGenerator<Entry> {
  const lines = createInterface({ input: open(path), crlfDelay: Infinity })
  let n = 0
  let started = false
  let arrayText: string[] | undefined
  for await (const line of lines) {
    n++
    if (arrayText) {
      arrayText.push(line)
      continue
    }
    const trimmed = line.replace(/^\uFEFF/, '').trim()
    if (trimmed === '') continue
    if (!started && trimmed.startsWith('[')) {
      arrayText = [line.replace(/^\uFEFF/, '')]
      continue
    }
    started = true
    try {
      yield { line: n, value: JSON.parse(line.charCodeAt(0) === 0xfeff ? line.slice(1) : line) }
    } catch (err) {
      yield { line: n, error: `not JSON: ${(err as Error).message}` }
    }
  }
  if (arrayText) yield* arrayEntries(arrayText.join('\n'))
}

function* arrayEntries(text: string): Generator<Entry> {
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
