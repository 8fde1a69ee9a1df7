// The load of bench:scale, pinned to one core: wrk (found or installed), its figures read from
// the line bench/scale/wrk.lua prints, and the open loop (bench/scale/open-loop.ts).
import { spawnSync } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { spawnTracked } from './processes.js'

const INSTALL = 'apt-get install -y wrk'

const found = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0

/** wrk's version line; installs the Debian package when missing and allowed, else throws with the command. */
export function ensureWrk(): string {
  if (!found('taskset')) throw new Error('taskset is missing: install util-linux (apt-get install -y util-linux)')
  if (!found('wrk')) {
    if (process.getuid?.() !== 0) throw new Error(`wrk is missing: run \`sudo ${INSTALL}\` once`)
    console.log(`wrk is missing: ${INSTALL}`)
    // A stale package list is the usual reason the install finds nothing.
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', timeout: 300_000 })
    const r = spawnSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit', timeout: 600_000 })
    if (r.status !== 0 || !found('wrk')) throw new Error(`could not install wrk: run \`${INSTALL}\` as root`)
  }
  // wrk has no --version: its usage text starts with the version and exits 1.
  const usage = spawnSync('wrk', ['--version'], { encoding: 'utf8' })
  return `${usage.stdout}${usage.stderr}`.split('\n')[0]!.trim()
}

/** A random-period request: what bench/scale/wrk.lua appends `from=…&to=…` to. */
export interface RandomPeriod {
  /** Path and query up to the period, ending in `?` or `&`. */
  readonly prefix: string
  /** First possible start day, days since 1970-01-01. */
  readonly firstDay: number
  /** How many start days to pick from. */
  readonly days: number
  /** Days in the period minus one (3 days: 2). */
  readonly width: number
}

export interface WrkRun {
  readonly rps: number
  readonly requests: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  /** Connect/read/write errors, timeouts and non-2xx/3xx answers. */
  readonly errors: number
}

export interface WrkOptions {
  readonly core: number
  readonly connections: number
  readonly seconds: number
  readonly headers: Readonly<Record<string, string>>
  readonly period?: RandomPeriod
  /** A request wrk gives up on (its default, 2 s, is shorter than a heavy answer under load). */
  readonly timeoutSeconds: number
}

export async function runWrk(url: string, root: string, o: WrkOptions): Promise<WrkRun> {
  const args = [
    '-c',
    String(o.core),
    'wrk',
    '-t1',
    `-c${o.connections}`,
    `-d${o.seconds}s`,
    `--timeout`,
    `${o.timeoutSeconds}s`,
    '--latency',
  ]
  for (const [k, v] of Object.entries(o.headers)) args.push('-H', `${k}: ${v}`)
  args.push('-s', join(root, 'bench/scale/wrk.lua'), url)
  const env: NodeJS.ProcessEnv = { ...process.env }
  if (o.period) {
    env.SCALE_PERIOD_PATH = o.period.prefix
    env.SCALE_PERIOD_FIRST = String(o.period.firstDay * 86_400)
    env.SCALE_PERIOD_DAYS = String(o.period.days)
    env.SCALE_PERIOD_WIDTH = String(o.period.width)
  }
  // wrk stops itself after -d; the bound stops a wrk that hangs on a server that never answers.
  const f = await figures('wrk', 'WRK_JSON', taskset(args, env), (o.seconds + o.timeoutSeconds + 15) * 1000)
  const seconds = f.durationUs! / 1e6
  return {
    rps: f.requests! / seconds,
    requests: f.requests!,
    p50Ms: f.p50Us! / 1000,
    p99Ms: f.p99Us! / 1000,
    maxMs: f.maxUs! / 1000,
    errors: f.connect! + f.read! + f.write! + f.timeout! + f.status!,
  }
}

const taskset = (args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess =>
  spawnTracked('taskset', args, { stdio: ['ignore', 'pipe', 'pipe'], env })

/**
 * The JSON a load process prints on its line `<marker> {…}` once it ends; it is killed after
 * `limitMs`, and one that ends without the line fails with its last output.
 */
function figures(what: string, marker: string, child: ChildProcess, limitMs: number): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs)
    child.once('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      const line = new RegExp(`^${marker} (.*)$`, 'm').exec(out)
      if (!line)
        return reject(new Error(`${what} ended with ${code ?? signal} and no figures: ${out.trim().split('\n').slice(-3).join(' | ')}`))
      resolve(JSON.parse(line[1]!) as Record<string, number>)
    })
  })
}

export interface OpenLoopOptions {
  readonly core: number
  /** Requests a second, sent on schedule whatever the answers' pace. */
  readonly rate: number
  readonly connections: number
  readonly seconds: number
  /** Sent at the rate before the measured seconds, not counted. */
  readonly warmupSeconds: number
  readonly headers: Readonly<Record<string, string>>
  readonly period?: RandomPeriod
  readonly timeoutSeconds: number
}

export interface OpenLoopRun {
  readonly rps: number
  readonly answered: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  /** Failed, refused, timed out or unanswered requests. */
  readonly errors: number
}

/** bench/scale/open-loop.ts against `url`, pinned to `o.core`. */
export async function runOpenLoop(url: string, root: string, o: OpenLoopOptions): Promise<OpenLoopRun> {
  const env = { ...process.env, OPEN_LOOP: JSON.stringify({ ...o, url }) }
  const child = taskset(['-c', String(o.core), process.execPath, join(root, 'dist/bench/scale/open-loop.js')], env)
  return (await figures(
    'the open loop',
    'OPEN_JSON',
    child,
    (o.warmupSeconds + o.seconds + o.timeoutSeconds + 15) * 1000,
  )) as unknown as OpenLoopRun
}
