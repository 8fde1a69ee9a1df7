// Shared benchmark plumbing: a demo database, child-process servers, autocannon runs.
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { hashPassword } from '../src/auth/password.js'
import { writeDemo } from '../src/cli/demo.js'
import { openWritable } from '../src/app/store.js'
import { putUser } from '../src/users/store.js'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export function benchDir(): string {
  return mkdtempSync(join(tmpdir(), 'docgate-bench-'))
}

/** Starts a node script that prints `listening on http://H:N`; resolves with its base URL. */
export function startProcess(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, DOCGATE_LOG_LEVEL: 'warn' },
    })
    let out = ''
    const read = (chunk: Buffer) => {
      out += chunk.toString()
      const m = /listening on (http:\/\/[^\s]+)/.exec(out)
      if (!m) return
      // Past the listening line the output (the access log) is read and dropped, as a log
      // shipper would, rather than kept and searched again on every chunk.
      child.stdout!.off('data', read)
      child.stdout!.resume()
      resolve({ url: m[1]!, child })
    }
    child.stdout!.on('data', read)
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${out}`)))
  })
}

export interface Load {
  readonly rps: number
  readonly p99: number
  readonly errors: number
}

export async function load(url: string, headers: Record<string, string>, seconds: number, connections = 20): Promise<Load> {
  const r = await autocannon({ url, connections, duration: seconds, headers })
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx }
}

export const fmt = (n: number, digits = 0): string => n.toFixed(digits).padStart(9)

/** `Authorization` of the user every benchmark store has (bench / bench, all services). */
export const BENCH_AUTH = `Basic ${Buffer.from('bench:bench').toString('base64')}`

/** Writes the demo data set to `db` (a file or a postgres:// URL) and adds the bench user. */
export async function prepareDemo(db: string, scale = 1): Promise<void> {
  const sql = await openWritable(db)
  await writeDemo(sql, scale, 1, true)
  await putUser(sql, 'bench', await hashPassword('bench', { logN: 14 }), ['*'])
  await sql.close()
}

/** Requests `url` every `everyMs` until stopped, as a client beside a load would: latencies and failures. */
export function probe(url: string, everyMs: number): { stop: () => Promise<{ latencies: number[]; errors: number }> } {
  const latencies: number[] = []
  let errors = 0
  let running = true
  const loop = (async () => {
    while (running) {
      const t0 = performance.now()
      try {
        const res = await fetch(url, { headers: { authorization: BENCH_AUTH }, signal: AbortSignal.timeout(5000) })
        await res.arrayBuffer()
        if (res.status === 200) latencies.push(performance.now() - t0)
        else errors++
      } catch {
        errors++
      }
      await new Promise((r) => setTimeout(r, everyMs))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      return { latencies, errors }
    },
  }
}

/** The p-th percentile (0–100) of `xs`. */
export const percentile = (xs: readonly number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN

/** The median of `xs` (the mean of the middle two for an even count). */
export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}
