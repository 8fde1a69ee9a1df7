// `docgate fake-1c`: a docgate store, or fresh demo data, served as a 1C standard OData
// endpoint (src/fake1c), so that sync can be tried and tested without a 1C server. The
// store is read page by page as sync asks (src/fake1c/store.ts): a base of millions of
// objects is served in bounded memory. `--demo` writes the demo data into a store of its
// own in a temporary folder first, removed when the fake stops.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { demoFiles } from '../demo/generate.js'
import type { Entry } from '../import/read.js'
import { importEntries } from '../import/run.js'
import { startFake1C } from '../fake1c/index.js'
import type { Fake1C } from '../fake1c/index.js'
import { openReadOnly, resolveDb } from '../store/open.js'
import { openWritable } from '../app/store.js'
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
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

/** A progress line on stderr: redrawn in place on a terminal, else one line every few seconds. */
export function progress(
  stream: NodeJS.WriteStream = process.stderr,
  everyMs = 5000,
): { show(text: string): void; done(text: string): void } {
  const tty = stream.isTTY === true
  let last = 0
  let width = 0
  return {
    show(text) {
      const now = Date.now()
      if (now - last < (tty ? 200 : everyMs)) return
      last = now
      if (!tty) return void stream.write(`${text}\n`)
      stream.write(`\r${text.padEnd(width)}`)
      width = text.length
    },
    done(text) {
      stream.write(tty ? `\r${text.padEnd(width)}\n` : `${text}\n`)
    },
  }
}

/** Writes the demo data set into a new SQLite store at `db`, with a progress line. */
export async function buildDemo(db: string, scale: number, seed: number): Promise<void> {
  const sql = await openWritable(db)
  const files = demoFiles({ scale, seed })
  const line = progress()
  const t0 = Date.now()
  let objects = 0
  const text = (i: number) =>
    `building the demo base (scale ${scale}): file ${i + 1}/${files.length}, ${objects.toLocaleString('en-US')} objects, ${Math.round((Date.now() - t0) / 1000)} s`
  try {
    for (const [i, file] of files.entries()) {
      line.show(text(i))
      function* entries(): Generator<Entry> {
        for (const value of file.objects()) {
          yield { line: ++objects, value }
          if ((objects & 1023) === 0) line.show(text(i))
        }
      }
      // The forms the API serves are not built: the fake reads the stored objects only.
      const report = await importEntries(sql, entries(), { ready: 'later' })
      if (!report.ok) throw new Error(`demo data file ${file.name} was rejected`)
    }
  } finally {
    await sql.close()
  }
  line.done(`built the demo base (scale ${scale}): ${objects.toLocaleString('en-US')} objects in ${Math.round((Date.now() - t0) / 1000)} s`)
}

export async function fake1c(flags: FakeFlags): Promise<number> {
  const port = Number(flags.port ?? '8081')
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got "${flags.port}"`)
  let db = resolveDb(flags.db)
  let temp: string | undefined
  // The demo base holds the customised attributes too: it is served whole (as --custom does).
  let custom = flags.custom === true
  if (flags.demo) {
    const scale = Number(flags.scale ?? '1')
    if (!(scale > 0) || !Number.isFinite(scale)) throw new Error(`--scale must be a positive number, got "${flags.scale}"`)
    temp = mkdtempSync(join(tmpdir(), 'docgate-fake-1c-'))
    db = join(temp, 'demo.db')
    custom = true
    try {
      await buildDemo(db, scale, Number(flags.seed ?? '1'))
    } catch (err) {
      rmSync(temp, { recursive: true, force: true })
      throw err
    }
  }
  const removeTemp = () => {
    if (temp) rmSync(temp, { recursive: true, force: true })
  }
  const password = flags['password-stdin'] ? await readStdin() : process.env.DOCGATE_FAKE_PASSWORD
  const host = flags.host ?? '127.0.0.1'
  let fake: Fake1C
  try {
    const store = await openReadOnly(db)
    fake = await startFake1C({ store, log: false, user: flags.user, password, custom, host, port }).catch((err: unknown) =>
      Promise.reject(listenError(err, host, port, { port: '--port', host: '--host' })),
    )
  } catch (err) {
    removeTemp()
    throw err
  }
  console.log(`fake 1C OData on ${fake.url}`)
  return new Promise<number>((resolve) => {
    const stop = () => {
      console.log(`served ${fake.served.requests} requests, ${fake.served.bytes} bytes`)
      void fake.close().then(() => {
        removeTemp()
        resolve(0)
      })
    }
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
  })
}
