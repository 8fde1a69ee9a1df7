// A request's logger, made only when something is logged. Fastify gives every request a
// pino child carrying its id; pino builds that child's bindings (a JSON text) at once, so an
// answer that logs nothing — nearly every one, since request lines are off — paid for it.
// This stands in for the child and makes it on the first line actually written, with the
// same bindings, so a logged line reads as before.
import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino'

type Method = Exclude<Level, 'silent'>

class RequestLog {
  #child: FastifyBaseLogger | undefined

  constructor(
    readonly parent: FastifyBaseLogger,
    readonly bindings: Bindings,
    readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level
  }

  set level(level: string) {
    this.#made().level = level
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options)
  }

  silent(): void {}

  #made(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options)
    return this.#child
  }

  #write(method: Method, args: unknown[]): void {
    if (this.#child === undefined && !(this.parent as Logger).isLevelEnabled(method)) return
    ;(this.#made()[method] as (...a: unknown[]) => void)(...args)
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args)
  }
  error(...args: unknown[]): void {
    this.#write('error', args)
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args)
  }
  info(...args: unknown[]): void {
    this.#write('info', args)
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args)
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args)
  }
}

/** Fastify's `childLoggerFactory`: the request's child logger, made when first written to. */
export function requestLog(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLog(parent, bindings, options) as unknown as FastifyBaseLogger
}
