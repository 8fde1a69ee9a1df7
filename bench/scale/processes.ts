// Child processes of bench:scale: every one is registered so that an error, Ctrl-C or a
// normal end never leaves a server or a wrk running on the pinned cores.
import { spawn } from 'node:child_process'
import type { ChildProcess, SpawnOptions } from 'node:child_process'
import { readFileSync } from 'node:fs'

const children = new Set<ChildProcess>()

function track(child: ChildProcess): ChildProcess {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return track(spawn(command, args, options))
}

/** SIGKILL on the way out: the process is leaving and cannot wait for a graceful stop. */
function killAll(): void {
  for (const child of children) child.kill('SIGKILL')
}

process.once('exit', killAll)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    killAll()
    console.error(`bench:scale: stopped by ${signal}`)
    process.exit(130)
  })
}

/** Stops a child (SIGTERM, then SIGKILL after `graceMs`) and waits for it to be gone. */
export function stop(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs)
    child.once('exit', () => {
      clearTimeout(force)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

export interface Server {
  readonly url: string
  readonly child: ChildProcess
}

/**
 * Starts `node ...args` pinned to `core` (taskset execs node, so the child's pid is the
 * server's) and resolves once it prints `listening on http://H:N`; bounded by `timeoutMs`.
 */
export function startPinned(core: number, args: readonly string[], cwd: string, timeoutMs = 120_000): Promise<Server> {
  const child = spawnTracked('taskset', ['-c', String(core), process.execPath, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DOCGATE_LOG_LEVEL: 'warn' },
  })
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${args.join(' ')}: no "listening on" line within ${timeoutMs / 1000} s`))
    }, timeoutMs)
    child.stderr!.on('data', (chunk: Buffer) => {
      // Only the tail matters for a failure message; a chatty server must not grow this.
      err = (err + chunk.toString()).slice(-2000)
    })
    const read = (chunk: Buffer) => {
      out += chunk.toString()
      const m = /listening on (http:\/\/[^\s]+)/.exec(out)
      if (!m) return
      clearTimeout(timer)
      // Past the listening line the output is drained and dropped, as a log shipper would.
      child.stdout!.off('data', read)
      child.stdout!.resume()
      resolve({ url: m[1]!, child })
    }
    child.stdout!.on('data', read)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${args.join(' ')} exited with ${code ?? signal}: ${(out + err).trim().split('\n').slice(-3).join(' | ')}`))
    })
  })
}

/** User + system CPU time of a process in clock ticks (1/100 s on Linux), all its threads. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return Number(fields[11]) + Number(fields[12])
}

/**
 * Waits until `pid` is idle (≤ 2 ticks of CPU in a quarter second), at most `maxMs`: wrk
 * leaves requests in flight when its time is up, and a server still building their answers
 * on the shared core would slow whatever is measured next.
 */
export async function settle(pid: number, maxMs = 60_000): Promise<void> {
  const end = Date.now() + maxMs
  let before = cpuTicks(pid)
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 250))
    const now = cpuTicks(pid)
    if (now - before <= 2) return
    before = now
  }
}
