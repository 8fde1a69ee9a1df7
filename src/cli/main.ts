// docgate command line (cli.md): argv → command → handler. Failures print one line,
// never a stack trace, and exit non-zero.
import { parseArgs } from 'node:util'

const USAGE = `usage:
  docgate serve [--db DB] [--host H] [--port N] [--no-docs]
  docgate import [--db DB] FILE...
  docgate demo [--db DB] [--scale N] [--seed S]
  docgate users add NAME [--db DB] [--methods LIST] [--password-stdin]
  docgate users revoke NAME [--db DB]
  docgate users list [--db DB]
DB is an SQLite file path; default $DOCGATE_DB or ./data/docgate.db`

export class UsageError extends Error {}

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
      'no-docs': { type: 'boolean' },
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
