// `docgate fake-1c`: a docgate store, or fresh demo data, served as a 1C standard OData
// endpoint (src/fake1c), so that sync can be tried and tested without a 1C server.
import { demoFiles } from '../demo/generate.js'
import { exportObjects } from '../export/objects.js'
import { startFake1C } from '../fake1c/index.js'
import { openReadOnly, resolveDb } from '../store/open.js'
import { listenError } from './listen.js'

export interface FakeFlags {
  readonly db?: string
  readonly demo?: boolean
  readonly scale?: string
  readonly seed?: string
  readonly host?: string
  readonly port?: string
  readonly user?: string
  readonly 'password-stdin'?: boolean
  readonly custom?: boolean
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}

export async function fake1c(flags: FakeFlags): Promise<number> {
  const port = Number(flags.port ?? '8081')
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got "${flags.port}"`)
  let objects: Record<string, unknown>[] = []
  if (flags.demo) {
    const scale = Number(flags.scale ?? '1')
    if (!(scale > 0)) throw new Error(`--scale must be a positive number, got "${flags.scale}"`)
    objects = demoFiles({ scale, seed: Number(flags.seed ?? '1') }).flatMap((f) => [...f.objects()])
  } else {
    const sql = await openReadOnly(resolveDb(flags.db))
    try {
      for await (const o of exportObjects(sql)) objects.push(o)
    } finally {
      await sql.close()
    }
  }
  const password = flags['password-stdin'] ? await readStdin() : process.env.DOCGATE_FAKE_PASSWORD
  const host = flags.host ?? '127.0.0.1'
  const fake = await startFake1C({ objects, user: flags.user, password, custom: flags.custom === true, host, port }).catch((err: unknown) =>
    Promise.reject(listenError(err, host, port, { port: '--port', host: '--host' })),
  )
  objects = []
  console.log(`fake 1C OData on ${fake.url}`)
  return new Promise<number>((resolve) => {
    const stop = () => {
      const bytes = fake.requests.reduce((n, r) => n + r.bytes, 0)
      console.log(`served ${fake.requests.length} requests, ${bytes} bytes`)
      void fake.close().then(() => resolve(0))
    }
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
  })
}
