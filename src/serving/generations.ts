// The store's answers generation as the serving process knows it, for the answers' tags
// (decision "Answers tagged by the store's generation"). Reading `meta` for every answer
// would add a statement to each; instead the generation is read when the server starts,
// whenever a request is conditional (If-None-Match: the 304 is decided on a fresh read,
// never on a known one) and whenever the answer cache reads it. A plain 200 is tagged with
// the generation known when it began, which a write since may have replaced: its tag then
// matches nothing the next fresh read gives, so it costs its client one more whole answer,
// never a 304 over changed data.
//
// The change position a list answer's X-Changes-Token names (decision "Changes since") is
// read with it, in the same statement. A position read earlier than the answer is never
// newer than its data (a client is at worst given changes it has again), but one too old
// would send a client back past what the log keeps: it is read again once POSITION_MS old.
import type { SqlPort } from '../store/sql.js'
import { generationAndPosition } from '../views/changes.js'

const POSITION_MS = 60_000

export class Generations {
  #known: string | undefined
  #position: { readonly store: string; readonly position: number; readonly at: number } | undefined
  constructor(private readonly sql: SqlPort) {}

  /** The generation the store names now, read (and known from now on). */
  async fresh(): Promise<string> {
    const { gen, store, position } = await generationAndPosition(this.sql)
    this.#position = { store, position, at: Date.now() }
    return (this.#known = gen)
  }

  /** The change position last read, read again when none was or it is POSITION_MS old. */
  async position(): Promise<{ readonly store: string; readonly position: number }> {
    if (this.#position === undefined || Date.now() - this.#position.at > POSITION_MS) await this.fresh()
    return this.#position!
  }

  /** The generation last read (read now if none was). */
  async known(): Promise<string> {
    return this.#known ?? this.fresh()
  }

  /** A generation read elsewhere (the answer cache). */
  note(gen: string): void {
    this.#known = gen
  }
}
