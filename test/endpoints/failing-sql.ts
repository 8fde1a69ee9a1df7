// A store handle whose reads of one tabular part of one object fail, for the per-document
// error rules (spec § Errors: a problem with a single document stays in `errors`).
import type { SqlPort, SqlValue } from '../../src/store/sql.js'

export const FAILURE = 'диск недоступен'

/** Wraps `sql` so that a query reading `table` with `owner` as its first parameter throws. */
export function failingPart(table: string, owner: string): (sql: SqlPort) => SqlPort {
  return (sql) => ({
    dialect: sql.dialect,
    readonly: sql.readonly,
    all<T>(text: string, params: readonly SqlValue[] = []): Promise<T[]> {
      return text.includes(`FROM ${table} `) && params[0] === owner ? Promise.reject(new Error(FAILURE)) : sql.all<T>(text, params)
    },
    run: (text, params) => sql.run(text, params),
    runMany: (text, rows) => sql.runMany(text, rows),
    insertRows: (table, columns, rows) => sql.insertRows(table, columns, rows),
    exec: (script) => sql.exec(script),
    transaction: (work) => sql.transaction(work),
    close: () => sql.close(),
  })
}
