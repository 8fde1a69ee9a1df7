// Derived tables: aggregates kept beside a register so that a request reads a few rows
// instead of scanning the register (cashflows' balances over a 10M-movement register).
// Each one names its source register, the source columns that locate the derived rows a
// movement feeds, and an update step. The import collects the keys of every source row
// that goes (a record set replaced or emptied) or comes, and calls the update after the
// writes, inside the file's transaction; migrate.ts creates the tables and rebuilds one
// whole when its definition changes.
import type { Row, SqlPort, SqlValue } from '../store/sql.js'
import type { DerivedTable } from './define.js'

/** Past this many changed keys, one rebuild of everything is cheaper (and bounds memory). */
const FULL_REBUILD = 200_000

/** The changed keys of one import transaction, per derived table. */
export class DerivedChanges {
  readonly #sql: SqlPort
  readonly #tables: readonly DerivedTable[]
  readonly #keys = new Map<DerivedTable, Set<string> | 'all'>()

  constructor(sql: SqlPort, tables: readonly DerivedTable[]) {
    this.#sql = sql
    this.#tables = tables
  }

  /** Source columns whose old values a replaced record set of `table` must report. */
  columnsOf(table: string): readonly string[] {
    return this.#tables.filter((d) => d.source === table).flatMap((d) => d.keyColumns)
  }

  /** The rows a record set replaced (with at least columnsOf(table)), before its new rows. */
  removed(table: string, rows: readonly Row[]): void {
    for (const d of this.#tables) {
      if (d.source !== table || this.#keys.get(d) === 'all') continue
      for (const row of rows) this.#add(d, d.key(d.keyColumns.map((c) => row[c] as SqlValue)))
    }
  }

  /** The rows a record set wrote. */
  added(table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): void {
    for (const d of this.#tables) {
      if (d.source !== table || this.#keys.get(d) === 'all') continue
      const at = d.keyColumns.map((c) => columns.indexOf(c))
      for (const row of rows) this.#add(d, d.key(at.map((i) => row[i] ?? null)))
    }
  }

  async update(): Promise<void> {
    for (const [d, keys] of this.#keys) await d.update(this.#sql, keys)
    this.#keys.clear()
  }

  #add(d: DerivedTable, key: string): void {
    let set = this.#keys.get(d)
    if (set === 'all') return
    if (!set) this.#keys.set(d, (set = new Set()))
    set.add(key)
    if (set.size > FULL_REBUILD) this.#keys.set(d, 'all')
  }
}
