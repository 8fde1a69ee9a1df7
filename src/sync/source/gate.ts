/** A counting semaphore: requests beyond `limit` wait their turn, in order. */
export class Gate {
  #free: number
  #waiting: (() => void)[] = []
  constructor(limit: number) {
    this.#free = limit
  }
  async enter(): Promise<void> {
    if (this.#free > 0) {
      this.#free--
      return
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve))
  }
  leave(): void {
    const next = this.#waiting.shift()
    if (next) next()
    else this.#free++
  }
}
