/**
 * A concurrency limit with a bounded queue for KDF runs.
 *
 * One scrypt run at OWASP cost takes ~0.7 s of a libuv pool thread and ~128 MiB. Basic
 * sends the password on every request, so unbounded KDFs would turn a flood of bad
 * credentials into a denial of service (OWASP API4). Beyond the queue the caller is told
 * at once, so it can answer 401 instead of waiting.
 */
export class KdfGate {
  readonly #concurrency: number
  readonly #queueLimit: number
  readonly #waiting: Array<() => void> = []
  #active = 0

  constructor(concurrency: number, queueLimit: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`kdfConcurrency must be ≥ 1, got ${concurrency}`)
    if (!Number.isInteger(queueLimit) || queueLimit < 0) throw new RangeError(`kdfQueue must be ≥ 0, got ${queueLimit}`)
    this.#concurrency = concurrency
    this.#queueLimit = queueLimit
  }

  /** Tasks waiting for a slot (a metric: a queue that stays long means refusals soon). */
  get queued(): number {
    return this.#waiting.length
  }

  /** Runs `task` when a slot is free; `undefined` when the queue is full (task not run). */
  run<T>(task: () => Promise<T>): Promise<T> | undefined {
    if (this.#active < this.#concurrency) {
      this.#active += 1
      return this.#execute(task)
    }
    if (this.#waiting.length >= this.#queueLimit) return undefined
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push(() => {
        this.#execute(task).then(resolve, reject)
      })
    })
  }

  async #execute<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task()
    } finally {
      // Hand the slot straight to the next waiter instead of freeing it: freeing first
      // would let a newly arriving task take the slot too, exceeding the limit.
      const next = this.#waiting.shift()
      if (next === undefined) this.#active -= 1
      else next()
    }
  }
}
