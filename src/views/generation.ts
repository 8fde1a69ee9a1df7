// The store's answers generation: 48 random bits in `meta`, drawn anew by every write that
// can change what the API prints (an import batch, a migration), in that write's own
// transaction. Every answer is a pure function of the stored data, the request and the day
// it is asked on, so an answer known under the generation the store names now is the
// answer (serving/answer-cache.ts). Random rather than counted: two stores, or a store
// rebuilt from scratch, never meet a generation a cache already holds for another.
import { randomBytes } from 'node:crypto'
import type { SqlPort } from '../store/sql.js'
import { whileUnchanged } from '../store/unchanged.js'

export const ANSWERS_GEN = 'answers_gen'
const KEY = ANSWERS_GEN

export async function newAnswersGen(sql: SqlPort): Promise<void> {
  await sql.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
    KEY,
    String(randomBytes(6).readUIntBE(0, 6)),
  ])
}

/**
 * The generation the store names now ('' for a store no write has named one in yet). Asked
 * before every kept answer, so a SQLite reader keeps it while it sees no commit and calls at
 * once share a read (store/unchanged.ts).
 */
export function answersGen(sql: SqlPort): Promise<string> {
  return whileUnchanged(sql, KEY, async () => {
    const [row] = await sql.all<{ value: string }>('SELECT value FROM meta WHERE key = ?', [KEY])
    return row?.value ?? ''
  })
}
