// `docgate users add|revoke|list` (cli.md).
import { generatePassword, hashPassword } from '../auth/password.js'
import { ENDPOINTS } from '../endpoints/index.js'
import { resolveDb } from '../store/open.js'
import { openWritable } from '../app/store.js'
import { listUsers, normalizeName, putUser, revokeUser } from '../users/store.js'

export const SERVICES = [...ENDPOINTS.map((e) => e.service), 'health']

export function parseMethods(list: string | undefined): string[] {
  if (list === undefined || list.trim() === '*') return ['*']
  const methods = list
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '')
  const unknown = methods.filter((m) => !SERVICES.includes(m))
  if (methods.length === 0 || unknown.length > 0) {
    throw new Error(`unknown method(s) ${unknown.join(', ') || '(none given)'}; known: ${SERVICES.join(', ')} or *`)
  }
  return [...new Set(methods)]
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

export async function users(flags: { db?: string; methods?: string; 'password-stdin'?: boolean }, args: string[]): Promise<number> {
  const [action, name] = args
  const sql = await openWritable(resolveDb(flags.db))
  try {
    if (action === 'list') {
      for (const u of await listUsers(sql)) console.log(`${u.name}\t${u.methods.join(',')}\t${u.createdAt}`)
      return 0
    }
    if (!name) throw new Error(`users ${action ?? ''} needs NAME`.replace('  ', ' '))
    if (action === 'add') {
      if (/[:\u0000-\u001f\u007f]/.test(name)) throw new Error('NAME may not contain ":" or control characters')
      const methods = parseMethods(flags.methods)
      const given = flags['password-stdin'] ? await readStdin() : undefined
      if (given !== undefined && (given === '' || /[\u0000-\u001f\u007f]/.test(given))) {
        throw new Error('the password from stdin is empty or has control characters')
      }
      const password = given ?? generatePassword()
      await putUser(sql, name, await hashPassword(password), methods)
      console.log(`user ${normalizeName(name)} added (methods: ${methods.join(',')})`)
      if (given === undefined) console.log(`password: ${password}`)
      return 0
    }
    if (action === 'revoke') {
      if (!(await revokeUser(sql, name))) throw new Error(`no user named ${name}`)
      console.log(`user ${normalizeName(name)} revoked`)
      return 0
    }
    throw new Error(`unknown users action "${action ?? ''}" (add, revoke, list)`)
  } finally {
    await sql.close()
  }
}
