// The serving store handle with its reads timed, for the store-query-time histogram.
import type { SqlPort } from './sql.js'

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
    readBytes: (text, params, columns) => timed(sql.readBytes(text, params, columns)),
    run: (text, params) => timed(sql.run(text, params)),
    runMany: (text, rows) => sql.runMany(text, rows),
    insertRows: (table, columns, rows) => sql.insertRows(table, columns, rows),
    fillKeys: (table, refs) => sql.fillKeys(table, refs),
    upsertRows: (table, columns, key, rows) => sql.upsertRows(table, columns, key, rows),
    insertNew: (table, columns, rows, key) => sql.insertNew(table, columns, rows, key),
    selectIn: (table, columns, column, keys) => timed(sql.selectIn(table, columns, column, keys)),
    deleteIn: (table, column, keys, returning) => sql.deleteIn(table, column, keys, returning),
    writeBehind: (work) => sql.writeBehind(work),
    exec: (script) => sql.exec(script),
    transaction: (work) => sql.transaction(work),
    close: () => sql.close(),
    ...(sql.commitsSeen ? { commitsSeen: sql.commitsSeen.bind(sql) } : {}),
  }
}
