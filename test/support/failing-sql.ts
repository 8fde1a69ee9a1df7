// Store handles for startApp's `wrapSql`: reads that fail for chosen statements, so a test
// can break the tabular part or the attachments of one document, and reads that are logged,
// so a test can see how a page was read.
import type { SqlPort, SqlValue } from '../../src/store/sql.js'

export const READ_FAILURE = 'database disk image is malformed'

type All = SqlPort['all']

/** `sql` with its reads (`all` and `readBytes`) replaced by `all(text, params, read)`. */
function withReads(sql: SqlPort, all: (text: string, params: readonly SqlValue[], read: All) => Promise<unknown[]>): SqlPort {
  const read: All = (text, params) => sql.all(text, params)
  const wrapped = (text: string, params: readonly SqlValue[] = []) => all(text, params, read)
  const bytes: SqlPort['readBytes'] = (text, params, columns) => all(text, params, (t, p) => sql.readBytes(t, p ?? [], columns)) as never
  // A proxy rather than a copy, so every other member of the port passes through as it is.
  return new Proxy(sql, {
    get(target, key) {
      if (key === 'all') return wrapped
      if (key === 'readBytes') return bytes
      const value: unknown = Reflect.get(target, key, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/**
 * The import's read of the objects whose read-model rows it rebuilds (views/rebuild.ts):
 * never a document's own read, though its text names the tables its counts look in.
 */
const rebuildRead = (text: string): boolean => text.includes('FROM _affected')

/** Reads for which `fails(text, params)` holds reject with READ_FAILURE; everything else passes through. */
export function failingReads(
  fails: (text: string, params: readonly SqlValue[]) => boolean,
  message = READ_FAILURE,
): (sql: SqlPort) => SqlPort {
  return (sql) =>
    withReads(sql, async (text, params, read) => {
      if (fails(text, params) && !rebuildRead(text)) throw new Error(message)
      return read(text, params)
    })
}

export const PART_FAILURE = 'диск недоступен'

/**
 * Reads of tabular table `table` that include document `owner` among their parameters
 * fail: the batch for its page as well as the document's own read.
 */
export const failingPart = (table: string, owner: string): ((sql: SqlPort) => SqlPort) =>
  failingReads((text, params) => text.includes(`FROM ${table} `) && params.includes(owner), PART_FAILURE)

export interface LoggedRead {
  readonly text: string
  readonly params: readonly SqlValue[]
  readonly failed: boolean
}

/** Every read through the handle, failed ones included, is appended to `log` (wrap it around a failing handle). */
export function loggedReads(log: LoggedRead[]): (sql: SqlPort) => SqlPort {
  return (sql) =>
    withReads(sql, async (text, params, read) => {
      try {
        const rows = await read(text, params)
        log.push({ text, params, failed: false })
        return rows
      } catch (err) {
        log.push({ text, params, failed: true })
        throw err
      }
    })
}
