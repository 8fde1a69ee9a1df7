// First-start preparation for `npm start`: a demo database and a demo user.
import { renameSync, rmSync } from 'node:fs'
import { hashPassword } from '../auth/password.js'
import { openWritable } from '../app/store.js'
import { putUser } from '../users/store.js'
import { writeDemo } from './demo.js'

// A fixed, documented password: the demo database holds generated data only and the
// server listens on 127.0.0.1 unless told otherwise.
const DEMO_USER = 'demo'
const DEMO_PASSWORD = 'demo'

export async function prepareDemo(db: string): Promise<void> {
  console.log(`creating ${db} with demo data (first start)…`)
  // Built under a temporary name, so an interrupted first start is simply redone.
  const tmp = `${db}.building`
  rmSync(tmp, { force: true })
  const sql = await openWritable(tmp)
  try {
    await writeDemo(sql, 1, 1, true)
    await putUser(sql, DEMO_USER, await hashPassword(DEMO_PASSWORD), ['*'])
  } finally {
    await sql.close()
  }
  renameSync(tmp, db)
}

/** What `npm start` prints before serving: a first call, and the page to try the others in. */
export function startHints(port: string): string[] {
  const base = `http://127.0.0.1:${port}`
  return [
    `demo credentials: ${DEMO_USER} / ${DEMO_PASSWORD}`,
    `try: curl -u ${DEMO_USER}:${DEMO_PASSWORD} '${base}/main/hs/warehouses/get'`,
    `or in a browser: ${base}/docs (API reference with "try it"; sign in there as ${DEMO_USER} / ${DEMO_PASSWORD})`,
  ]
}
