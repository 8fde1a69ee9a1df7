/**
 * Deterministic randomness for the demo data set. Everything random is derived from the
 * seed through these functions, so the same options always give the same bytes.
 */

/** murmur3's finaliser: a bijection on 32-bit integers with good avalanche. */
function mix32(x: number): number {
  x = (x ^ (x >>> 16)) >>> 0
  x = Math.imul(x, 0x85ebca6b)
  x ^= x >>> 13
  x = Math.imul(x, 0xc2b2ae35)
  x ^= x >>> 16
  return x >>> 0
}

/** Folds a user seed (any finite number) into a 32-bit key. */
export function seedKey(seed: number): number {
  if (!Number.isFinite(seed)) throw new RangeError(`demo seed must be a finite number, got ${seed}`)
  let lo: number
  let hi: number
  if (Number.isSafeInteger(seed)) {
    lo = seed >>> 0
    hi = Math.floor(seed / 4294967296) >>> 0
  } else {
    const words = new Uint32Array(new Float64Array([seed]).buffer)
    lo = words[0] ?? 0
    hi = (words[1] ?? 0) ^ 0x5bd1e995
  }
  return mix32((lo ^ mix32((hi + 0x9e3779b9) >>> 0)) >>> 0)
}

/** Seed of an independent stream for (key, salt, index); used for per-object generators. */
function streamSeed(key: number, salt: number, index: number): number {
  const a = mix32((key ^ mix32((salt + 0x27d4eb2f) >>> 0)) >>> 0)
  return mix32((a + mix32((index ^ 0x165667b1) >>> 0)) >>> 0)
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

/** Table lookup: Number#toString(16) dominated generation time. */
function hex4(w: number): string {
  return (HEX[(w >>> 8) & 0xff] as string) + (HEX[w & 0xff] as string)
}

/**
 * A v4-shaped UUID for object number `index` of the entity kind `salt`. The first word is a
 * bijection of the index for a fixed (key, salt), so refs of one kind can never collide, and
 * the second word is a bijection of the salt for equal first words, so kinds cannot collide
 * either (up to the 4 bits the version nibble overwrites, which the remaining words cover).
 * Deriving refs from indexes lets any generator point to any object without storing it.
 */
export function uuid(key: number, salt: number, index: number): string {
  const k = mix32((key ^ mix32((salt + 0x632be5ab) >>> 0)) >>> 0)
  const w0 = mix32((index ^ k) >>> 0)
  const w1 = mix32((w0 ^ mix32((k + 0x9e3779b9) >>> 0)) >>> 0)
  const w2 = mix32((w1 ^ mix32((k + 0x3c6ef372) >>> 0)) >>> 0)
  const w3 = mix32((w2 ^ w0 ^ mix32((k + 0xdaa66d2b) >>> 0)) >>> 0)
  return (
    `${hex4(w0 >>> 16)}${hex4(w0)}-${hex4(w1 >>> 16)}-${hex4((w1 & 0x0fff) | 0x4000)}-` +
    `${hex4(((w2 >>> 16) & 0x3fff) | 0x8000)}-${hex4(w2)}${hex4(w3 >>> 16)}${hex4(w3)}`
  )
}

/** mulberry32: tiny, fast, and good enough for synthetic data. */
export class Rng {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  static stream(key: number, salt: number, index = 0): Rng {
    return new Rng(streamSeed(key, salt, index))
  }

  uint32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.uint32() / 4294967296
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1))
  }

  uniform(min: number, max: number): number {
    return min + this.float() * (max - min)
  }

  /** Log-uniform in [min, max): amounts spread over orders of magnitude, like real prices. */
  logUniform(min: number, max: number): number {
    return min * Math.exp(this.float() * Math.log(max / min))
  }

  chance(p: number): boolean {
    return this.float() < p
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list')
    return items[Math.floor(this.float() * items.length)] as T
  }

  /** Picks by weight; `weights[i]` belongs to `items[i]`. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0
    for (const w of weights) total += w
    let r = this.float() * total
    for (let i = 0; i < items.length; i++) {
      r -= weights[i] ?? 0
      if (r < 0) return items[i] as T
    }
    return this.pick(items)
  }

  /** `count` distinct items in random order (or all of them, if there are fewer). */
  sample<T>(items: readonly T[], count: number): T[] {
    if (count * 4 <= items.length) {
      // Large pools, few picks: rejection beats copying the pool.
      const seen = new Set<number>()
      const out: T[] = []
      while (out.length < count) {
        const i = Math.floor(this.float() * items.length)
        if (seen.has(i)) continue
        seen.add(i)
        out.push(items[i] as T)
      }
      return out
    }
    const copy = items.slice()
    const n = Math.min(count, copy.length)
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.float() * (copy.length - i))
      const t = copy[i] as T
      copy[i] = copy[j] as T
      copy[j] = t
    }
    return copy.slice(0, n)
  }

  fillBytes(target: Uint8Array, from = 0, to = target.length): void {
    let i = from
    while (i < to) {
      let w = this.uint32()
      for (let b = 0; b < 4 && i < to; b++, i++) {
        target[i] = w & 0xff
        w >>>= 8
      }
    }
  }
}
