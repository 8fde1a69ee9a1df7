// Credentials live in the store (cli.md § users), so every server over the same
// database sees the same users. Only hashes are stored.
import { normalizeCredential } from '../auth/basic.js'
import type { SqlPort } from '../store/sql.js'

export interface StoredUser {
  readonly name: string
  readonly hash: string
  readonly methods: readonly string[]
  readonly createdAt: string
}

interface UserRow {
  name: string
  hash: string
  methods: string
  created_at: string
}

const toUser = (r: UserRow): StoredUser => ({
  name: r.name,
  hash: r.hash,
  methods: r.methods.split(',').filter((m) => m !== ''),
  createdAt: r.created_at,
})

/** Names are kept NFC-normalised so that any Unicode spelling of a name is one user (decision D1). */
export const normalizeName = normalizeCredential

export async function putUser(sql: SqlPort, name: string, hash: string, methods: readonly string[], now = new Date()): Promise<void> {
  await sql.run(
    'INSERT INTO users (name, hash, methods, created_at) VALUES (?, ?, ?, ?) ' +
      'ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, methods = excluded.methods, created_at = excluded.created_at',
    [normalizeName(name), hash, methods.join(','), now.toISOString()],
  )
}

export async function revokeUser(sql: SqlPort, name: string): Promise<boolean> {
  return (await sql.run('DELETE FROM users WHERE name = ?', [normalizeName(name)])) > 0
}

export async function listUsers(sql: SqlPort): Promise<StoredUser[]> {
  return (await sql.all<UserRow>('SELECT name, hash, methods, created_at FROM users ORDER BY name')).map(toUser)
}
