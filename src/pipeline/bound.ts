// Cuts the pipeline's envelope `{"data":[…],"errors":[…]}` down to what an agent's context
// can take: the first rows that fit the bound, a count of the rest, and the `errors`.
// It scans the bytes as they stream, so a `full` answer of many megabytes (attachments in
// Base64) is counted without ever being held: only the kept rows are.
import type { Body } from './run.js'
import type { Readable } from 'node:stream'
import { EnvelopeScanner } from './scan.js'

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
  /** A changes answer's `removed` (changed_since), whole: identities are small. */
  readonly removed?: readonly unknown[]
}

export async function bound(body: Body | Readable, limits = { rows: ROW_LIMIT, bytes: BYTE_LIMIT }): Promise<Bounded> {
  const rows: Buffer[] = []
  let keptBytes = 0
  let total = 0
  let firstLeftOutBytes: number | undefined
  // The row being read: its parts so far (while it may still be kept) and its size.
  let parts: Buffer[] | undefined
  let size = 0
  let leftOut = false

  const scanner = new EnvelopeScanner({
    start() {
      parts = leftOut ? undefined : []
    },
    part(chunk, from, to) {
      size += to - from
      if (parts === undefined) return
      // Past the bound the row can no longer be kept: stop holding its bytes, keep counting them.
      if (leftOut || rows.length >= limits.rows || keptBytes + size > limits.bytes) parts = undefined
      else parts.push(chunk.subarray(from, to))
    },
    end() {
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
    },
  })
  for await (const chunk of Buffer.isBuffer(body) ? [body] : body) scanner.scan(chunk)
  return { rows, total, ...(firstLeftOutBytes !== undefined ? { firstLeftOutBytes } : {}), ...tailOf(scanner) }
}

/** The envelope's `errors` (each as text) and a changes answer's `removed`. */
function tailOf(scanner: EnvelopeScanner): { errors: string[]; removed?: unknown[] } {
  const parsed = scanner.rest()
  const errors = Array.isArray(parsed.errors) ? parsed.errors.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))) : []
  return { errors, ...(Array.isArray(parsed.removed) ? { removed: parsed.removed } : {}) }
}

export interface BoundedTree extends Bounded {
  /**
   * When children were cut: the tree level (1 = the top nodes) whose groups are printed
   * with `"Дети":[]`; their descendants are left out.
   */
  readonly cutLevel?: number
}

interface TreeRow {
  /** Bytes of the row by nesting: `sizes[c]` counts the bytes inside `c` children arrays. */
  readonly sizes: number[]
  /** The row's bytes in order, each part with its nesting, while a cut that keeps them can fit. */
  parts: { level: number; bytes: Buffer }[]
  /** Parts at this nesting and deeper are no longer held (no cut that keeps them fits). */
  dropFrom: number
}

const sizeAt = (row: TreeRow, cut: number): number => {
  let n = 0
  for (let c = 0; c < cut && c < row.sizes.length; c++) n += row.sizes[c] ?? 0
  return n
}

/**
 * `bound` for a tree (materials): the rows are the top nodes, and a node's children are the
 * arrays inside it (`Дети`, the only array a node holds). When the whole top nodes do not fit,
 * the children are cut at the deepest level at which as many top nodes fit as fit at all: the
 * groups of that level print `"Дети":[]` (never otherwise empty, since a tree holds only the
 * groups on the way to its elements). One pass over the bytes as they stream; only the
 * parts of the first rows that some cut could keep are held.
 */
export async function boundTree(body: Body | Readable, limits = { rows: ROW_LIMIT, bytes: BYTE_LIMIT }): Promise<BoundedTree> {
  const tracked: TreeRow[] = []
  let total = 0
  let row: TreeRow | undefined

  const scanner = new EnvelopeScanner(
    {
      start() {
        row = tracked.length < limits.rows ? { sizes: [], parts: [], dropFrom: Number.POSITIVE_INFINITY } : undefined
        if (row) tracked.push(row)
      },
      part(chunk, from, to, level) {
        if (row === undefined || to <= from) return
        row.sizes[level] = (row.sizes[level] ?? 0) + (to - from)
        if (level >= row.dropFrom) return
        // A part at nesting `level` shows only under a cut deeper than it; once that cut is over
        // the bound for this row alone, neither it nor anything deeper can be shown.
        if (sizeAt(row, level + 1) > limits.bytes) {
          row.dropFrom = level
          row.parts = row.parts.filter((p) => p.level < level)
          return
        }
        row.parts.push({ level, bytes: Buffer.from(chunk.subarray(from, to)) })
      },
      end() {
        row = undefined
        total += 1
      },
    },
    true,
  )
  for await (const chunk of Buffer.isBuffer(body) ? [body] : body) scanner.scan(chunk)

  // How many rows a cut keeps: the first ones, contiguous, within both limits.
  const keptAt = (cut: number): number => {
    let bytes = 0
    let n = 0
    for (const r of tracked) {
      const size = sizeAt(r, cut)
      if (bytes + size > limits.bytes) break
      bytes += size
      n += 1
    }
    return n
  }
  const whole = Math.max(1, ...tracked.map((r) => r.sizes.length))
  let cut = whole
  for (let c = whole - 1; c >= 1; c--) if (keptAt(c) > keptAt(cut)) cut = c
  const kept = keptAt(cut)
  const rows = tracked.slice(0, kept).map((r) => Buffer.concat(r.parts.filter((p) => p.level < cut).map((p) => p.bytes)))
  const wasCut = tracked.slice(0, kept).some((r) => r.sizes.length > cut)
  const leftOut = kept < total ? tracked[kept] : undefined
  return {
    rows,
    total,
    ...(leftOut !== undefined ? { firstLeftOutBytes: sizeAt(leftOut, cut) } : {}),
    ...tailOf(scanner),
    ...(wasCut ? { cutLevel: cut } : {}),
  }
}

/** How an answer is cut for an agent (MCP): at most `rows` rows and `bytes` bytes of them; a tree by levels. */
export interface BoundSpec {
  readonly rows: number
  readonly bytes: number
  readonly tree: boolean
}

/** A bounded answer as it travels (from a worker, through the answer cache): the rows as text. */
export interface BoundedText {
  readonly rows: readonly string[]
  readonly total: number
  readonly firstLeftOutBytes?: number
  readonly errors: readonly string[]
  readonly removed?: readonly unknown[]
  readonly cutLevel?: number
}

/**
 * The answer cut as `spec` says, as JSON bytes of a BoundedText: run where the answer is built
 * (a worker), so scanning a large answer (the 20 MB tree) never holds the event loop.
 */
export async function boundedBytes(body: Body | Readable, spec: BoundSpec): Promise<Buffer> {
  const limits = { rows: spec.rows, bytes: spec.bytes }
  const b: BoundedTree = spec.tree ? await boundTree(body, limits) : await bound(body, limits)
  const text: BoundedText = {
    rows: b.rows.map((r) => r.toString('utf8')),
    total: b.total,
    errors: b.errors,
    ...(b.removed !== undefined ? { removed: b.removed } : {}),
    ...(b.firstLeftOutBytes !== undefined ? { firstLeftOutBytes: b.firstLeftOutBytes } : {}),
    ...(b.cutLevel !== undefined ? { cutLevel: b.cutLevel } : {}),
  }
  return Buffer.from(JSON.stringify(text))
}
