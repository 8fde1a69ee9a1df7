// docgate command line (cli.md): argv → command → handler. Failures print one line,
// never a stack trace, and exit non-zero.
import { parseArgs } from 'node:util'
import { UsageError } from './usage.js'

const USAGE = `usage:
  docgate serve [--db DB] [--host H] [--port N] [--no-docs] [--admin-port N] [--admin-host H] [--max-lag DURATION]
                [--access-log on|off] [--log-query-values] [--workers N] [--request-timeout DURATION]
                [--answer-cache MIB]
  docgate import [--db DB] FILE...
  docgate demo [--db DB] [--scale N] [--seed S]
  docgate users add NAME [--db DB] [--methods LIST] [--password-stdin]
  docgate users revoke NAME [--db DB]
  docgate users list [--db DB]
  docgate sync --source URL [--user NAME] [--password-stdin] [--map FILE] [--db DB] [--once | --every SECONDS] [--full]
  docgate sync --check --source URL [--user NAME] [--password-stdin] [--map FILE] [--db DB]
  docgate sync --status [--db DB]
  docgate mcp [--db DB] [--user NAME]
  docgate fake-1c [--db DB | --demo [--scale N] [--seed S]] [--host H] [--port N] [--user NAME] [--password-stdin] [--custom]
DB is an SQLite file path or a postgres:// URL; default $DOCGATE_DB or ./data/docgate.db`


export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      db: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      scale: { type: 'string' },
      seed: { type: 'string' },
      methods: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      source: { type: 'string' },
      user: { type: 'string' },
      map: { type: 'string' },
      once: { type: 'boolean' },
      every: { type: 'string' },
      full: { type: 'boolean' },
      'scan-all': { type: 'boolean' },
      check: { type: 'boolean' },
      status: { type: 'boolean' },
      demo: { type: 'boolean' },
      custom: { type: 'boolean' },
      'no-docs': { type: 'boolean' },
      'admin-port': { type: 'string' },
      'admin-host': { type: 'string' },
      'max-lag': { type: 'string' },
      'access-log': { type: 'string' },
      'log-query-values': { type: 'boolean' },
      workers: { type: 'string' },
      'request-timeout': { type: 'string' },
      'answer-cache': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help || command === undefined || command === 'help') {
    console.log(USAGE)
    return command === undefined ? 2 : 0
  }
  // Each command loads only what it needs.
  switch (command) {
    case 'serve':
      return (await import('./serve.js')).serve(values)
    case 'import':
      return (await import('./import.js')).importFiles(values, positionals)
    case 'demo':
      return (await import('./demo.js')).demo(values)
    case 'users':
      return (await import('./users.js')).users(values, positionals)
    case 'mcp':
      return (await import('./mcp.js')).mcp(values)
    case 'fake-1c':
      return (await import('./fake1c.js')).fake1c(values)
    case 'sync':
      return (await import('./sync.js')).sync(values)
    default:
      throw new UsageError(`unknown command "${command}"\n${USAGE}`)
  }
}

export async function run(argv: string[]): Promise<void> {
  try {
    const code = await main(argv)
    if (code !== 0) process.exitCode = code
  } catch (err) {
    console.error(`docgate: ${err instanceof Error ? err.message : String(err)}`)
    process.exitCode = err instanceof UsageError ? 2 : 1
  }
}
