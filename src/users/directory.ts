// The server's view of the users table: an in-memory snapshot refreshed every 500 ms,
// so a revoke or a password change takes effect within a second without a query per
// request.
import type { SqlPort } from '../store/sql.js'
import { listUsers } from './store.js'
import type { StoredUser } from './store.js'

const REFRESH_MS = 500

export class UserSnapshot {
  #users = new Map<string, StoredUser>()
  #timer: NodeJS.Timeout | undefined
  #sql: SqlPort
  #onError: (err: unknown) => void

  constructor(sql: SqlPort, onError: (err: unknown) => void = () => {}) {
    this.#sql = sql
    this.#onError = onError
  }

  get(name: string): StoredUser | undefined {
    return this.#users.get(name)
  }

  async refresh(): Promise<void> {
    const users = await listUsers(this.#sql)
    this.#users = new Map(users.map((u) => [u.name, u]))
  }

  async start(): Promise<void> {
    await this.refresh()
    // While the store is unreachable the last snapshot stays in force; the failure is
    // reported once, not every tick.
    let failing = false
    this.#timer = setInterval(() => {
      this.refresh().then(
        () => (failing = false),
        (err: unknown) => {
          if (!failing) this.#onError(err)
          failing = true
        },
      )
    }, REFRESH_MS)
    this.#timer.unref()
  }

  stop(): void {
    clearInterval(this.#timer)
  }
}
