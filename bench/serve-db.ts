// A bench child: the HTTP server over a given database, as `docgate serve` builds it but
// without request logging. argv: db. Prints `listening on http://H:N`; SIGTERM stops it.
import { createApp } from '../src/app/create.js'
import { Authenticator } from '../src/auth/authenticator.js'

import { openReadOnly } from '../src/store/open.js'
import { UserSnapshot } from '../src/users/directory.js'

const sql = await openReadOnly(process.argv[2]!)
const users = new UserSnapshot(sql)
await users.start()
const app = await createApp({ sql, auth: new Authenticator({ users }), logger: false })
const address = new URL(await app.listen({ host: '127.0.0.1', port: 0 }))
console.log(`listening on http://127.0.0.1:${address.port}`)
process.once('SIGTERM', () => {
  users.stop()
  void app.close().then(() => sql.close())
})
