// docgate command line (cli.md): argv → command → handler. Failures print one line,
// never a stack trace, and exit non-zero; a usage error exits 2 and shows the synopsis.
import { UsageError, commandHelp, globalUsage, parseCommand } from './commands.js'
import { ListenError } from './listen.js'
import { version } from '../version.js'

export { UsageError } from './commands.js'

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv
  if (first === undefined) {
    console.log(globalUsage())
    return 2
  }
  if (first === '--version') {
    console.log(`docgate ${version}`)
    return 0
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    // `docgate help serve` is `docgate serve --help`.
    const topic = rest.length === 0 ? undefined : parseCommand([...rest, '--help'])!.topic
    console.log(topic === undefined ? globalUsage() : commandHelp(topic))
    return 0
  }
  if (first.startsWith('-')) throw new UsageError(`unknown option ${first}`)
  const parsed = parseCommand(argv)!
  if (parsed.help) {
    console.log(commandHelp(parsed.topic))
    return 0
  }
  const { values, positionals } = parsed
  // Each command loads only what it needs.
  switch (parsed.command.name) {
    case 'serve':
      return (await import('./serve.js')).serve(values)
    case 'import':
      return (await import('./import.js')).importFiles(values, positionals)
    case 'demo':
      return (await import('./demo.js')).demo(values)
    case 'users add':
    case 'users revoke':
    case 'users list':
      return (await import('./users.js')).users(values, positionals)
    case 'mcp':
      return (await import('./mcp.js')).mcp(values)
    case 'fake-1c':
      return (await import('./fake1c.js')).fake1c(values)
    case 'sync':
      return (await import('./sync-thread.js')).syncInThread(values)
    default:
      throw new Error(`command "${parsed.command.name}" has no handler`)
  }
}

/**
 * `portFlag`: how the caller chooses serve's port, when not with `--port` (npm start: `PORT=N
 * npm start`), so that a port in use advises what works there.
 */
export async function run(argv: string[], portFlag?: string): Promise<void> {
  try {
    const code = await main(argv)
    if (code !== 0) process.exitCode = code
  } catch (caught) {
    const err = portFlag && caught instanceof ListenError && caught.flag === '--port' ? caught.advise(portFlag) : caught
    console.error(`docgate: ${err instanceof Error ? err.message : String(err)}`)
    if (err instanceof UsageError) console.error(err.usage)
    process.exitCode = err instanceof UsageError ? 2 : 1
  }
}
