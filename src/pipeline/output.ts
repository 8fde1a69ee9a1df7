// An answer in the shape a request asked for (endpoints/fields.ts): the envelope the
// pipeline prints is read back item by item as it streams, each `data` item kept to the
// chosen fields, and written again as JSON, CSV or an Excel workbook. Memory holds one item
// (and the writer's buffers), whatever the answer's size.
import { PassThrough } from 'node:stream'
import { setImmediate } from 'node:timers/promises'
import { stringify } from 'csv-stringify/sync'
import ExcelJS from 'exceljs'
import type { Column, Field, OutputRequest } from '../endpoints/fields.js'
import { PARENT, columnsOf } from '../endpoints/fields.js'
import { OPEN_DATA } from './envelope.js'
import { EnvelopeScanner } from './scan.js'

type Body = Buffer | AsyncIterable<Buffer>

type Item = Record<string, unknown>

export interface Reshaping {
  /** The fields of the answer's items (endpoints/fields.ts `itemFields`). */
  readonly fields: readonly Field[]
  /** A tree's children member: the tree's nodes are lines of their own in CSV and Excel. */
  readonly children?: string
  /** Told the answer's `errors`, and a changes answer's `removed`, once it has ended (CSV sends them after its body). */
  readonly errors?: (errors: readonly string[], removed?: readonly unknown[]) => void
}

/** The top-level members of an envelope other than `data` (`errors`, …), in their order. */
type Rest = Map<string, unknown>

/**
 * The `data` items of an envelope (pipeline/envelope.ts: it opens with `{"data":`), one at a
 * time as its bytes arrive; the members after `data` into `rest`. Each item's bytes are found
 * by the envelope scanner and parsed by JSON.parse: no token per value, so the heap holds
 * one item and the chunk.
 */
async function* dataItems(body: Body, rest: Rest): AsyncGenerator<unknown> {
  let opened = 0
  /** The open item's bytes so far. */
  const held: Buffer[] = []
  /** The items a chunk completed, as text. */
  const done: string[] = []
  const scanner = new EnvelopeScanner({
    start: () => {
      held.length = 0
    },
    part: (chunk, from, to) => {
      held.push(chunk.subarray(from, to))
    },
    end: () => {
      done.push(held.length === 1 ? held[0]!.toString() : Buffer.concat(held).toString())
      held.length = 0
    },
  })
  for await (const chunk of Buffer.isBuffer(body) ? [body] : body) {
    if (opened < OPEN_DATA.length) {
      const n = Math.min(OPEN_DATA.length - opened, chunk.length)
      if (!chunk.subarray(0, n).equals(OPEN_DATA.subarray(opened, opened + n)))
        throw new Error('an answer that does not open with its data')
      opened += n
    }
    scanner.scan(chunk)
    for (const text of done) yield JSON.parse(text)
    done.length = 0
  }
  // What follows `data`: `,"removed":[…],"errors":[…]}`, or only the closing brace.
  for (const [k, v] of Object.entries(scanner.rest())) rest.set(k, v)
}

/** The selection `fields` makes: for each kept key, all of it (true) or a selection within it. */
type Selection = Map<string, Selection | true>

function selectionOf(paths: readonly (readonly string[])[]): Selection {
  const root: Selection = new Map()
  for (const path of paths) {
    let at = root
    for (const [i, name] of path.entries()) {
      const known = at.get(name)
      if (known === true) break
      if (i === path.length - 1) {
        at.set(name, true)
        break
      }
      const inner: Selection = known ?? new Map()
      at.set(name, inner)
      at = inner
    }
  }
  return root
}

/** A value kept to a selection: an object's kept keys in its own order; an array's rows each kept. */
function kept(value: unknown, sel: Selection, children?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => kept(v, sel, children))
  if (value === null || typeof value !== 'object') return value
  const out: Item = {}
  for (const [k, v] of Object.entries(value)) {
    const s = sel.get(k)
    if (s === true) out[k] = v
    else if (s !== undefined) out[k] = kept(v, s)
    // A tree stays a tree: a group's children are kept to the same selection.
    else if (k === children) out[k] = kept(v, sel, children)
  }
  return out
}

/** The lines of CSV and Excel an item gives: a tree's nodes depth first, each with its parent's code; under `rows`, one per row of the part. */
function* linesOf(item: Item, out: OutputRequest, children: string | undefined, parent = ''): Generator<{ item: Item; row?: Item }> {
  if (children !== undefined) {
    const { [children]: kids, ...node } = item
    yield { item: { ...node, [PARENT]: parent } }
    if (Array.isArray(kids)) for (const kid of kids) yield* linesOf(kid as Item, out, children, String(node.Код ?? ''))
    return
  }
  const part = out.rows === undefined ? undefined : item[out.rows]
  if (!Array.isArray(part) || part.length === 0) {
    yield { item }
    return
  }
  for (const row of part) yield { item, row: row as Item }
}

/** A column's value on a line: a scalar as it is; an object or array (not spread into columns) as its JSON text. */
function cell(line: { item: Item; row?: Item }, column: Column, rows: string | undefined): unknown {
  const [first, ...path] = column.path
  let value: unknown = rows !== undefined && first === rows ? line.row : line.item[first!]
  for (const [i, name] of path.entries()) {
    if (Array.isArray(value)) {
      const inner = path.slice(i)
      value = value.map((v) => inner.reduce<unknown>((o, n) => (o !== null && typeof o === 'object' ? (o as Item)[n] : undefined), v))
      break
    }
    value = value !== null && typeof value === 'object' ? (value as Item)[name] : undefined
  }
  if (value === undefined || value === null) return null
  return typeof value === 'object' ? JSON.stringify(value) : value
}

const BOM = '\ufeff'
const CSV_OPTIONS = { record_delimiter: '\r\n', cast: { boolean: (v: boolean) => (v ? 'true' : 'false') } } as const
/** Items or CSV lines written at a time (one call to stringify each; a call per line costs more than the line). */
const BATCH = 500

/** The answer in the asked shape: JSON kept to `fields`, CSV or an Excel workbook. */
export function reshaped(body: Body, out: OutputRequest, how: Reshaping): AsyncGenerator<Buffer> {
  const rest: Rest = new Map()
  const items = dataItems(body, rest)
  const sel = out.fields ? selectionOf(out.fields) : undefined
  const shaped = async function* (): AsyncGenerator<Item> {
    for await (const item of items) yield (sel ? kept(item, sel, how.children) : item) as Item
  }
  const errorsOf = () => (Array.isArray(rest.get('errors')) ? (rest.get('errors') as string[]) : [])
  if (out.format === 'json') return asJson(shaped(), rest)
  const columns = columnsOf(how.fields, out)
  const lines = async function* () {
    for await (const item of shaped()) yield* linesOf(item, out, how.children)
  }
  const removedOf = () => (Array.isArray(rest.get('removed')) ? (rest.get('removed') as Item[]) : undefined)
  if (out.format === 'csv') return asCsv(lines(), columns, out, () => how.errors?.(errorsOf(), removedOf()))
  return asXlsx(lines(), columns, out, errorsOf, removedOf)
}

async function* asJson(items: AsyncIterable<Item>, rest: Rest): AsyncGenerator<Buffer> {
  let parts: string[] = ['{"data":[']
  let n = 0
  for await (const item of items) {
    parts.push(n++ > 0 ? `,${JSON.stringify(item)}` : JSON.stringify(item))
    if (parts.length >= BATCH) {
      yield Buffer.from(parts.join(''))
      parts = []
    }
  }
  parts.push(']')
  for (const [k, v] of rest) parts.push(`,${JSON.stringify(k)}:${JSON.stringify(v)}`)
  parts.push('}')
  yield Buffer.from(parts.join(''))
}

async function* asCsv(
  lines: AsyncIterable<{ item: Item; row?: Item }>,
  columns: readonly Column[],
  out: OutputRequest,
  ended: () => void,
): AsyncGenerator<Buffer> {
  yield Buffer.from(BOM + stringify([columns.map((c) => c.title)], CSV_OPTIONS))
  let batch: unknown[][] = []
  for await (const line of lines) {
    batch.push(columns.map((c) => cell(line, c, out.rows)))
    if (batch.length >= BATCH) {
      yield Buffer.from(stringify(batch, CSV_OPTIONS))
      batch = []
    }
  }
  if (batch.length > 0) yield Buffer.from(stringify(batch, CSV_OPTIONS))
  ended()
}

/** `ДД.ММ.ГГГГ` as the date it names (an Excel date cell), or null when empty. */
function day(value: unknown): Date | null {
  const m = typeof value === 'string' ? /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(value) : null
  return m ? new Date(Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1]))) : null
}

/** Lines whose widths fit the columns: the widest of the header and these first lines. */
const FIT_LINES = 1000
/** Lines written between two turns of the event loop. */
const YIELD_LINES = 20
const WIDTH = { min: 6, max: 60 }

async function* asXlsx(
  lines: AsyncIterable<{ item: Item; row?: Item }>,
  columns: readonly Column[],
  out: OutputRequest,
  errors: () => readonly string[],
  removed: () => readonly Item[] | undefined,
): AsyncGenerator<Buffer> {
  const sink = new PassThrough()
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useStyles: true, useSharedStrings: false })
  const write = async () => {
    const sheet = book.addWorksheet('data', { views: [{ state: 'frozen', ySplit: 1 }] })
    const iterator = lines[Symbol.asyncIterator]()
    // Widths are fitted to the first lines: a streamed sheet fixes its columns before its rows.
    const first: unknown[][] = []
    for (let next = await iterator.next(); ; next = await iterator.next()) {
      if (next.done) break
      first.push(values(next.value))
      if (first.length >= FIT_LINES) break
    }
    sheet.columns = columns.map((c, i) => ({
      header: c.title,
      key: String(i),
      width: Math.min(WIDTH.max, Math.max(WIDTH.min, c.title.length + 2, ...first.map((v) => text(v[i]).length + 2))),
      ...(c.kind === 'day' ? { style: { numFmt: 'dd.mm.yyyy' } } : {}),
    }))
    sheet.getRow(1).font = { bold: true }
    sheet.getRow(1).commit()
    for (const v of first) await added(sheet, v)
    if (first.length >= FIT_LINES)
      for (let next = await iterator.next(); !next.done && !sink.destroyed; next = await iterator.next())
        await added(sheet, values(next.value))
    if (sink.destroyed) {
      await iterator.return?.()
      return
    }
    sheet.commit()
    // The answer's `errors`, which JSON carries beside `data`, on a sheet of their own.
    const issues = book.addWorksheet('errors')
    issues.columns = [{ header: 'error', key: 'error', width: 100 }]
    for (const e of errors()) issues.addRow({ error: e }).commit()
    issues.commit()
    // A changes answer's `removed`: the identities of the rows gone since its token.
    const gone = removed()
    if (gone !== undefined) {
      const keys = [...new Set(gone.flatMap((r) => Object.keys(r)))]
      const sheet = book.addWorksheet('removed')
      sheet.columns = keys.map((k) => ({ header: k, key: k, width: 20 }))
      for (const r of gone) sheet.addRow(r).commit()
      sheet.commit()
    }
    await book.commit()
  }
  const values = (line: { item: Item; row?: Item }): unknown[] =>
    columns.map((c) => {
      const v = cell(line, c, out.rows)
      return c.kind === 'day' ? day(v) : v
    })
  const text = (v: unknown): string => (v === null || v === undefined ? '' : v instanceof Date ? '00.00.0000' : String(v))
  // The workbook is written as the consumer reads it: a row waits while the sink is full.
  let count = 0
  const added = async (sheet: ExcelJS.Worksheet, v: unknown[]) => {
    sheet.addRow(v).commit()
    // The zip is deflated on libuv's threads: its output arrives only when the event loop
    // turns, which reads from the store (synchronous on SQLite) would otherwise never let it.
    if (++count % YIELD_LINES === 0) await setImmediate()
    if (sink.writableNeedDrain && !sink.destroyed)
      await new Promise<void>((resolve) => {
        const go = () => {
          sink.off('drain', go).off('close', go)
          resolve()
        }
        sink.once('drain', go).once('close', go)
      })
  }
  const done = write().then(
    () => undefined,
    (err: unknown) => sink.destroy(err instanceof Error ? err : new Error(String(err))),
  )
  try {
    for await (const chunk of sink) yield chunk as Buffer
    await done
  } finally {
    // A reader that stopped early (a client gone) stops the writing too.
    sink.destroy()
  }
}
