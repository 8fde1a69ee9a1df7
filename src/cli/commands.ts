// The command table (cli.md, sync.md §2): every command with its synopsis and options, each
// option with its value name, meaning and default. The argument parser, `--help`, the
// synopsis printed after a usage error and the global usage are all made from it, so a
// flag is added in one place.
import { parseArgs } from 'node:util'

interface Option {
  /** Without the dashes: `port`. */
  readonly name: string
  /** The value's name in the synopsis (`N`); absent for a switch. */
  readonly value?: string
  readonly meaning: string
  readonly default?: string
}

export interface Command {
  /** `serve`; a subcommand is `users add`. */
  readonly name: string
  readonly summary: string
  /** Operands after the options in the synopsis, e.g. `NAME` or `FILE...`. */
  readonly operands?: string
  readonly minOperands?: number
  readonly maxOperands?: number
  readonly options: readonly Option[]
  /**
   * Synopsis lines (without `docgate `) where the options combine in ways one line cannot
   * show; by default one line: the name, the operands, then every option in brackets.
   */
  readonly synopsis?: readonly string[]
}

export class UsageError extends Error {
  /** Printed after the one line naming the problem. */
  readonly usage: string
  constructor(message: string, usage = globalUsage()) {
    super(message)
    this.usage = usage
  }
}

const DB: Option = {
  name: 'db',
  value: 'DB',
  meaning: 'the store: an SQLite file path or a postgres:// URL',
  default: '$DOCGATE_DB, else ./data/docgate.db',
}
const PASSWORD_STDIN = 'read the password from standard input (all of it, minus one trailing newline)'
const SCALE: Option = {
  name: 'scale',
  value: 'N',
  meaning: 'multiplies the volume of the demo data (1 = a few hundred documents of each kind)',
  default: '1',
}
const SEED: Option = { name: 'seed', value: 'S', meaning: 'seed of the demo data: the same seed gives the same data', default: '1' }

export const COMMANDS: readonly Command[] = [
  {
    name: 'serve',
    summary: 'Serve the API over HTTP; SIGTERM or SIGINT stop it after the requests in flight.',
    options: [
      DB,
      { name: 'host', value: 'H', meaning: 'address to listen on', default: '127.0.0.1' },
      { name: 'port', value: 'N', meaning: 'port to listen on; 0 takes a free one', default: '8080' },
      { name: 'no-docs', meaning: 'serve no API reference (/docs) and no /openapi.json' },
      {
        name: 'admin-port',
        value: 'N',
        meaning: 'also serve /live, /ready and /metrics, without credentials, on this port',
        default: 'none',
      },
      { name: 'admin-host', value: 'H', meaning: 'address of the admin listener', default: '127.0.0.1' },
      {
        name: 'max-lag',
        value: 'DURATION',
        meaning: 'on a store a sync keeps, /ready answers 503 once the last complete cycle is older (900, 90s, 15m, 1h)',
        default: '15m',
      },
      { name: 'access-log', value: 'on|off', meaning: 'one JSON line per request on standard output, never credentials', default: 'on' },
      { name: 'log-query-values', meaning: "add the query's values to the access log (they may hold personal data)" },
      {
        name: 'workers',
        value: 'N',
        meaning: 'worker threads that read the store and build answers; 0 builds them in the server thread',
        default: 'the number of cores',
      },
      {
        name: 'request-timeout',
        value: 'DURATION',
        meaning: 'stop a data request running longer (90s, 15m, 1h); 0 is no limit',
        default: '30s',
      },
      {
        name: 'answer-cache',
        value: 'MIB',
        meaning: 'memory for answers asked again, kept until the store changes; 0 keeps none',
        default: '128',
      },
    ],
  },
  {
    name: 'import',
    summary: 'Load files in the format of data-format.md, each file one transaction; creates the store if missing.',
    operands: 'FILE...',
    synopsis: ['import [--db DB] FILE...'],
    minOperands: 1,
    maxOperands: Infinity,
    options: [DB],
  },
  {
    name: 'demo',
    summary: 'Write a realistic, deterministic demo data set through the import path.',
    options: [DB, SCALE, SEED],
  },
  {
    name: 'users add',
    summary: 'Issue credentials; adding an existing NAME replaces its password and methods.',
    operands: 'NAME',
    minOperands: 1,
    maxOperands: 1,
    options: [
      DB,
      { name: 'methods', value: 'LIST', meaning: 'comma-separated services the user may call (payments,receipts,…), or *', default: '*' },
      { name: 'password-stdin', meaning: `${PASSWORD_STDIN}; without it a strong password is generated and printed once` },
    ],
  },
  {
    name: 'users revoke',
    summary: 'Revoke credentials; a running server refuses them within one second.',
    operands: 'NAME',
    minOperands: 1,
    maxOperands: 1,
    options: [DB],
  },
  { name: 'users list', summary: 'List names, methods and creation dates, never passwords.', options: [DB] },
  {
    name: 'sync',
    summary: 'Keep the store in step with a 1C:Enterprise infobase through its standard OData interface (sync.md).',
    synopsis: [
      'sync --source URL [--user NAME] [--password-stdin] [--map FILE] [--db DB] [--once | --every SECONDS] [--full | --scan-all]',
      'sync --check --source URL [--user NAME] [--password-stdin] [--map FILE] [--db DB]',
      'sync --status [--db DB]',
    ],
    options: [
      { name: 'source', value: 'URL', meaning: 'OData root of the infobase, http(s)://host/base/odata/standard.odata' },
      { name: 'user', value: 'NAME', meaning: '1C user name; with none, requests carry no credentials', default: '$DOCGATE_SOURCE_USER' },
      { name: 'password-stdin', meaning: `${PASSWORD_STDIN}; without it $DOCGATE_SOURCE_PASSWORD, else the empty password` },
      { name: 'map', value: 'FILE', meaning: 'JSON map file applied over the default mapping' },
      { ...DB, meaning: `${DB.meaning}; a sync run creates it, --check and --status never do` },
      { name: 'once', meaning: 'one cycle, then exit (the default)' },
      { name: 'every', value: 'SECONDS', meaning: 'loop forever: a cycle starts every SECONDS (≥ 1) after the previous start' },
      { name: 'full', meaning: 'ignore the saved versions for this run: read every entity set whole and rebuild the saved state' },
      { name: 'scan-all', meaning: "make this run's version scans full scans: every window of every document set" },
      { name: 'check', meaning: 'run only the start-up check, print its report, write nothing' },
      { name: 'status', meaning: 'print the saved sync state; contacts nothing' },
    ],
  },
  {
    name: 'mcp',
    summary: 'Serve the API as MCP tools over standard input and output, for an MCP client that starts docgate.',
    options: [DB, { name: 'user', value: 'NAME', meaning: "offer only the tools of this user's services", default: 'every service' }],
  },
  {
    name: 'fake-1c',
    summary: 'Serve a store, or fresh demo data, as a 1C standard OData interface, for trying and testing sync.',
    synopsis: ['fake-1c [--db DB | --demo [--scale N] [--seed S]] [--host H] [--port N] [--user NAME] [--password-stdin] [--custom]'],
    options: [
      DB,
      { name: 'demo', meaning: 'serve fresh demo data instead of a store' },
      SCALE,
      SEED,
      { name: 'host', value: 'H', meaning: 'address to listen on', default: '127.0.0.1' },
      { name: 'port', value: 'N', meaning: 'port to listen on; 0 takes a free one', default: '8081' },
      { name: 'user', value: 'NAME', meaning: 'require HTTP Basic credentials of this user', default: 'none required' },
      { name: 'password-stdin', meaning: `${PASSWORD_STDIN}`, default: '$DOCGATE_FAKE_PASSWORD' },
      { name: 'custom', meaning: 'publish the optional attributes, as a customised infobase would' },
    ],
  },
]

const HELP: Option = { name: 'help', meaning: 'show this help' }
const WIDTH = 100

/** `words` after `first`, in lines of at most WIDTH characters; each further line starts with `indent`. */
function wrap(first: string, words: readonly string[], indent: string): string[] {
  const lines: string[] = []
  let line = first
  let fresh = true
  for (const word of words) {
    if (!fresh && line.length + 1 + word.length > WIDTH) {
      lines.push(line)
      line = indent + word
    } else line += (fresh ? '' : ' ') + word
    fresh = false
  }
  return [...lines, line]
}

const optionText = (o: Option) => (o === HELP ? '-h, --help' : `--${o.name}${o.value ? ` ${o.value}` : ''}`)

/** The synopsis lines of a command, without `usage:`. */
function synopsisLines(c: Command): readonly string[] {
  return c.synopsis ?? [[c.name, c.operands, ...c.options.map((o) => `[${optionText(o)}]`)].filter(Boolean).join(' ')]
}

/** `usage: docgate serve …` / `   or: docgate …`, long lines wrapped under the first option. */
function usageOf(commands: readonly Command[]): string {
  const out: string[] = []
  for (const line of commands.flatMap(synopsisLines)) {
    const lead = `${out.length === 0 ? 'usage:' : '   or:'} docgate`
    // Brackets are kept whole when wrapping: `[--once | --every SECONDS]` is one unit.
    const units = line.match(/\[(?:[^[\]]|\[[^[\]]*\])*\]|\S+/g) ?? []
    const head = Math.max(
      1,
      units.findIndex((u) => u.startsWith('[') || u.startsWith('--')),
    )
    const first = `${lead} ${units.slice(0, head).join(' ')} `
    out.push(...wrap(first, units.slice(head), ' '.repeat(first.length)))
  }
  return out.join('\n')
}

/** A command, or the group of commands (`users`) whose first word it is. */
function group(name: string): Command[] {
  return COMMANDS.filter((c) => c.name === name || c.name.startsWith(`${name} `))
}

export function commandUsage(name: string): string {
  return usageOf(group(name))
}

export function globalUsage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2
  return [
    'usage: docgate <command> [options]',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    "`docgate <command> --help` shows a command's options; `docgate --version` the version.",
    'DB is an SQLite file path or a postgres:// URL; default $DOCGATE_DB or ./data/docgate.db',
  ].join('\n')
}

/** `docgate <command> --help`: synopsis, what it does, every option with its meaning and default. */
export function commandHelp(name: string): string {
  // A group (`users`) shows each of its commands in turn.
  return group(name)
    .map((c) => {
      const options = [...c.options, HELP]
      const width = Math.max(...options.map((o) => optionText(o).length)) + 4
      const lines = [usageOf([c]), '', ...wrap('', c.summary.split(' '), ''), '', 'options:']
      for (const o of options) {
        const text = `${o.meaning}${o.default ? ` (default: ${o.default})` : ''}`
        lines.push(...wrap(`  ${optionText(o).padEnd(width - 2)}`, text.split(' '), ' '.repeat(width)))
      }
      return lines.join('\n')
    })
    .join('\n\n')
}

export interface Parsed {
  /** What `--help` shows: the command, or a group such as `users`. */
  readonly topic: string
  readonly command: Command
  readonly values: Record<string, string | boolean>
  /** The words after the command's name (for `users`: the action first, as users.ts reads them). */
  readonly positionals: string[]
  readonly help: boolean
}

/** Finds the command `argv` names and parses its options; `undefined` for no command at all. */
export function parseCommand(argv: readonly string[]): Parsed | undefined {
  const [first, second] = argv
  if (first === undefined) return undefined
  const known = group(first)
  if (known.length === 0) throw new UsageError(`unknown command "${first}"`)
  let command = known.find((c) => c.name === first)
  let rest = argv.slice(1)
  if (!command) {
    const sub = known.find((c) => c.name === `${first} ${second}`)
    if (!sub) {
      if (second === '--help' || second === '-h') return { topic: first, command: known[0]!, values: {}, positionals: [], help: true }
      const names = known.map((c) => c.name.split(' ')[1]).join(', ')
      throw new UsageError(
        second === undefined ? `${first} needs one of: ${names}` : `unknown ${first} command "${second}" (${names})`,
        commandUsage(first),
      )
    }
    command = sub
    rest = argv.slice(2)
  }
  const usage = commandUsage(command.name)
  const options = Object.fromEntries(
    [...command.options, HELP].map((o) => [o.name, { type: o.value ? ('string' as const) : ('boolean' as const) }]),
  )
  // Not strict: the tokens are checked here, so that each problem gets one line of ours.
  const { tokens } = parseArgs({
    args: [...rest],
    options: { ...options, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: false,
    tokens: true,
  })
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help'))
    return { topic: command.name, command, values: {}, positionals: [], help: true }
  const values: Record<string, string | boolean> = {}
  const operands: string[] = []
  for (const t of tokens) {
    if (t.kind === 'positional') operands.push(t.value)
    if (t.kind !== 'option') continue
    const option = command.options.find((o) => o.name === t.name)
    if (!option || !t.rawName.startsWith('--')) throw new UsageError(`unknown option ${t.rawName}`, usage)
    if (!option.value) {
      if (t.inlineValue) throw new UsageError(`option ${t.rawName} takes no value`, usage)
      values[t.name] = true
    } else {
      // `--port --host x` would take `--host` as the port: a value that looks like an option must be given as `--port=…`.
      if (t.value === undefined || (!t.inlineValue && t.value.startsWith('-')))
        throw new UsageError(`option ${t.rawName} needs a value (${option.value})`, usage)
      values[t.name] = t.value
    }
  }
  if (operands.length < (command.minOperands ?? 0)) throw new UsageError(`${command.name} needs ${command.operands}`, usage)
  if (operands.length > (command.maxOperands ?? 0))
    throw new UsageError(`unexpected argument "${operands[command.maxOperands ?? 0]}"`, usage)
  const words = command.name.split(' ').slice(1)
  return { topic: command.name, command, values, positionals: [...words, ...operands], help: false }
}
