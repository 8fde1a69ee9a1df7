// A store handle whose reads fail for chosen statements (for startApp's `wrapSql`), so a
// test can break the tabular part or the attachments of one document.
import type { SqlPort, SqlValue } from '../../src/store/sql.js'

export const READ_FAILURE = 'database disk image is malformed'

/** Reads for which `fails(text, params)` holds reject with READ_FAILURE; everything else passes through. */
export function failingReads(fails: (text: string, params: readonly SqlValue[]) => boolean, message = READ_FAILURE): (sql: SqlPort) => SqlPort {
  return (sql) => {
    const all = async <T>(text: string, params: readonly SqlValue[] = []): Promise<T[]> => {
      if (fails(text, params)) throw new Error(message)
      return sql.all<T>(text, params)
    }
    // A proxy rather than a copy, so every other member of the port passes through as it is.
    return new Proxy(sql, {
      get(target, key) {
        if (key === 'all') return all
        const value: unknown = Reflect.get(target, key, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  }
}

export const PART_FAILURE = 'диск недоступен'

/** Reads of tabular table `table` for document `owner` (its first parameter) fail. */
export const failingPart = (table: string, owner: string): ((sql: SqlPort) => SqlPort) =>
  failingReads((text, params) => text.includes(`FROM ${table} `) && params[0] === owner, PART_FAILURE)
