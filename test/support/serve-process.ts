// `docgate serve` as a child process, the way an operator starts it: its stdout collected,
// and a wait for a line (the listening line, an access-log line) with a timeout.
import { spawn } from 'node:child_process'
import type { ChildProcessByStdio } from 'node:child_process'
import { once } from 'node:events'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
export const LISTENING = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m

export interface ServeProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>
  /** [exit code, signal] once the process has exited. */
  readonly exited: Promise<unknown[]>
  /** Resolves with the first match of `re` in stdout so far or to come (15 s at most). */
  until(re: RegExp): Promise<RegExpExecArray>
  output(): string
  /** Standard error so far. */
  errors(): string
}

/** `env` adds to (or overrides) the child's environment, e.g. `DOCGATE_LOG_LEVEL`. */
export function startServe(args: readonly string[], env: Record<string, string> = {}): ServeProcess {
  const child = spawn(process.execPath, ['bin/docgate.js', 'serve', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DOCGATE_LOG_LEVEL: 'warn', ...env },
  })
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString()))
  let err = ''
  child.stderr.on('data', (c: Buffer) => (err += c.toString()))
  const exited = once(child, 'exit')
  const until = (re: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re}: ${out}`)), 15_000)
      const look = () => {
        const m = re.exec(out)
        if (!m) return
        clearTimeout(timer)
        child.stdout.off('data', look)
        resolve(m)
      }
      child.stdout.on('data', look)
      look()
    })
  return { child, exited, until, output: () => out, errors: () => err }
}

/** `docgate serve` with arguments it must refuse: its exit code and its one line on standard error. */
export async function refusal(args: readonly string[]): Promise<{ code: unknown; line: string }> {
  const server = startServe(args)
  // 'close' comes once standard error is read to its end.
  const [code] = await once(server.child, 'close')
  return { code, line: server.errors().trim() }
}
