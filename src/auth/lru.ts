/**
 * A bounded map that forgets its least recently used entry.
 *
 * Every table the authenticator keeps is keyed by something a client chooses (a user name,
 * an address, a header value), so each one needs a hard size limit or a client could grow
 * it without end. A `Map` already remembers insertion order: re-inserting a key on access
 * moves it to the end, so the first key is always the least recently used one.
 */
export class LruMap<K, V> {
  readonly #capacity: number
  readonly #entries = new Map<K, V>()

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`LRU capacity must be a positive integer, got ${capacity}`)
    }
    this.#capacity = capacity
  }

  get size(): number {
    return this.#entries.size
  }

  /** Returns the value and marks the key as the most recently used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key)
    if (value !== undefined) {
      this.#entries.delete(key)
      this.#entries.set(key, value)
    }
    return value
  }

  /** Returns the value without changing its recency (for repeated reads in one request). */
  peek(key: K): V | undefined {
    return this.#entries.get(key)
  }

  /** Stores the value as the most recently used, evicting the oldest entry when full. */
  set(key: K, value: V): void {
    this.#entries.delete(key)
    this.#entries.set(key, value)
    if (this.#entries.size > this.#capacity) {
      // The iterator's first key is the least recently used one.
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
  }

  delete(key: K): boolean {
    return this.#entries.delete(key)
  }
}
