// The serving store handle with its reads timed, for the store-query-time histogram.
import type { SqlPort } from '../store/sql.js'

export function timedSql(sql: SqlPort, observe: (seconds: number) => void): SqlPort {
  const timed = async <T>(work: Promise<T>): Promise<T> => {
    const started = performance.now()
    try {
      return await work
    } finally {
      observe((performance.now() - started) / 1000)
    }
  }
  return {
    dialect: sql.dialect,
    readonly: sql.readonly,
    all: (text, params) => timed(sql.all(text, params)),
    run: (text, params) => timed(sql.run(text, params)),
    runMany: (text, rows) => sql.runMany(text, rows),
    insertRows: (table, columns, rows) => sql.insertRows(table, columns, rows),
    exec: (script) => sql.exec(script),
    transaction: (work) => sql.transaction(work),
    close: () => sql.close(),
  }
}
