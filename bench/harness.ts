// Shared benchmark plumbing: a demo database, child-process servers, autocannon runs.
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export function benchDir(): string {
  return mkdtempSync(join(tmpdir(), 'docgate-bench-'))
}

/** Starts a node script that prints `listening on http://H:N`; resolves with its base URL. */
export function startProcess(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, DOCGATE_LOG_LEVEL: 'warn' } })
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const m = /listening on (http:\/\/[^\s]+)/.exec(out)
      if (m) resolve({ url: m[1]!, child })
    })
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
