// The store's answers generation as the serving process knows it, for the answers' tags
// (decision "Answers tagged by the store's generation"). Reading `meta` for every answer
// would add a statement to each; instead the generation is read when the server starts,
// whenever a request is conditional (If-None-Match: the 304 is decided on a fresh read,
// never on a known one) and whenever the answer cache reads it. A plain 200 is tagged with
// the generation known when it began, which a write since may have replaced: its tag then
// matches nothing the next fresh read gives, so it costs its client one more whole answer,
// never a 304 over changed data.
import type { SqlPort } from '../store/sql.js'
import { answersGen } from '../views/generation.js'

export class Generations {
  #known: string | undefined
  constructor(private readonly sql: SqlPort) {}

  /** The generation the store names now, read (and known from now on). */
  async fresh(): Promise<string> {
    return (this.#known = await answersGen(this.sql))
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
