// What a sync run prints (sync.md §2 "Output"): one line per entity set per cycle on
// standard output (redrawn in place on a TTY), warnings and errors on standard error,
// at most 20 warnings per set per cycle.

export interface Sink {
  out(line: string): void
  err(line: string): void
  /** A TTY's in-place progress line; undefined off a TTY. */
  progress?(line: string): void
}

export const consoleSink = (): Sink => {
  const tty = process.stdout.isTTY === true
  return {
    out: (line) => process.stdout.write(`${tty ? '\r\x1b[K' : ''}${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    progress: tty ? (line) => process.stdout.write(`\r\x1b[K${line}`) : undefined,
  }
}

const MAX_WARNINGS = 20

export class SetReport {
  read = 0
  written = 0
  deleted = 0
  skipped = 0
  warnings = 0
  windows = 0
  error: string | undefined
  readonly #started = performance.now()
  #lastProgress = 0

  constructor(
    readonly entitySet: string,
    readonly type: string,
    readonly sink: Sink,
  ) {}

  warn(ref: string, attribute: string, reason: string): void {
    this.warnings++
    if (this.warnings <= MAX_WARNINGS) this.sink.err(`warning: ${this.entitySet} ${ref}: ${attribute}: ${reason}`)
  }

  /** A warning about the set as a whole (e.g. withheld deletions): not counted against the cap. */
  note(text: string): void {
    this.sink.err(`warning: ${this.entitySet}: ${text}`)
  }

  seconds(): number {
    return (performance.now() - this.#started) / 1000
  }

  tick(): void {
    if (!this.sink.progress) return
    const now = performance.now()
    if (now - this.#lastProgress < 200) return
    this.#lastProgress = now
    const s = this.seconds()
    this.sink.progress(
      `${this.entitySet}: windows ${this.windows}, read ${this.read}, ${Math.round(this.read / Math.max(s, 0.001))} objects/s`,
    )
  }

  finish(): void {
    if (this.warnings > MAX_WARNINGS) this.sink.err(`warning: ${this.entitySet}: ${this.warnings - MAX_WARNINGS} more`)
    if (this.error !== undefined) {
      this.sink.err(`error: ${this.entitySet}: ${this.error}`)
      return
    }
    const s = this.seconds()
    this.sink.out(
      `${this.entitySet} → ${this.type}: read ${this.read}, written ${this.written}, deleted ${this.deleted}, skipped ${this.skipped}, warnings ${this.warnings}; ${s.toFixed(1)} s, ${Math.round(this.read / Math.max(s, 0.001))} objects/s`,
    )
  }
}
