// `--help`, `--version` and usage errors of the command line (cli.md, sync.md §2): help for
// every command names every option the contract lists; each usage error is one line naming
// the problem, then the command's synopsis, exit 2.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { COMMANDS } from '../../src/cli/commands.js'
import { version } from '../../src/version.js'
import { ROOT } from '../support/serve-process.js'

const docgate = (...args: string[]) =>
  spawnSync(process.execPath, ['bin/docgate.js', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    input: '',
    env: { ...process.env, DOCGATE_DB: '' },
  })

/** The commands and options of cli.md's table and sync.md §2. */
const CONTRACT: Record<string, string[]> = {
  serve: ['--db DB', '--host H', '--port N'],
  import: ['--db DB', 'FILE...'],
  demo: ['--db DB', '--scale N', '--seed S'],
  'users add': ['NAME', '--db DB', '--methods LIST', '--password-stdin'],
  'users revoke': ['NAME', '--db DB'],
  'users list': ['--db DB'],
  sync: [
    '--source URL',
    '--user NAME',
    '--password-stdin',
    '--map FILE',
    '--db DB',
    '--once',
    '--every SECONDS',
    '--full',
    '--scan-all',
    '--check',
    '--status',
  ],
}

/** A usage error: exit 2, the problem on the first line of standard error, then the synopsis. */
function misuse(args: string[], line: string, synopsis: string): void {
  const r = docgate(...args)
  assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
  const [first, second] = r.stderr.split('\n')
  assert.equal(first, line)
  assert.ok(second!.startsWith(`usage: docgate ${synopsis}`), r.stderr)
  assert.equal(r.stdout, '')
}

describe('docgate help and usage errors', () => {
  it('every command of the contract has --help naming each of its options, with its meaning', () => {
    for (const [command, options] of Object.entries(CONTRACT)) {
      const r = docgate(...command.split(' '), '--help')
      assert.equal(r.status, 0, `${command}: ${r.stderr}`)
      assert.ok(r.stdout.startsWith(`usage: docgate ${command} `), r.stdout)
      for (const option of options) {
        const listed = option.startsWith('--')
          ? new RegExp(`^  ${option.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +\\S`, 'm')
          : new RegExp(`^usage: docgate ${command} .*${option.replaceAll('.', '\\.')}`)
        assert.match(r.stdout, listed, `${command} --help does not explain ${option}`)
      }
    }
  })

  it('every option of every command is explained by its --help, -h and `docgate help`', () => {
    for (const command of COMMANDS) {
      const help = docgate(...command.name.split(' '), '--help').stdout
      for (const o of command.options) assert.match(help, new RegExp(`^  --${o.name}\\b.*\\S`, 'm'), `${command.name}: --${o.name}`)
      for (const o of command.options.filter((x) => x.default))
        assert.ok(help.replace(/\s+/g, ' ').includes(`(default: ${o.default})`), `${command.name}: default of --${o.name}`)
      assert.equal(docgate(...command.name.split(' '), '-h').stdout, help)
      assert.equal(docgate('help', ...command.name.split(' ')).stdout, help)
    }
  })

  it('--help, -h and help print the global usage and exit 0; bare docgate prints it and exits 2', () => {
    for (const args of [['--help'], ['-h'], ['help'], []]) {
      const r = docgate(...args)
      assert.equal(r.status, args.length === 0 ? 2 : 0)
      assert.ok(r.stdout.startsWith('usage: docgate <command> [options]\n'), r.stdout)
      for (const command of COMMANDS) assert.match(r.stdout, new RegExp(`^  ${command.name} +\\S`, 'm'))
    }
  })

  it('--version prints the package version', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
    assert.equal(version, pkg.version)
    const r = docgate('--version')
    assert.equal(r.status, 0)
    assert.equal(r.stdout, `docgate ${pkg.version}\n`)
  })

  it('an unknown option, a missing value, a switch with a value, an extra argument: one line, the synopsis, exit 2', () => {
    misuse(['serve', '--sorce', 'x'], 'docgate: unknown option --sorce', 'serve [--db DB] [--host H] [--port N]')
    misuse(['sync', '--sorce', 'http://x/'], 'docgate: unknown option --sorce', 'sync --source URL')
    misuse(['serve', '--port'], 'docgate: option --port needs a value (N)', 'serve ')
    misuse(['serve', '--port', '--host', 'h'], 'docgate: option --port needs a value (N)', 'serve ')
    misuse(['sync', '--once=yes'], 'docgate: option --once takes no value', 'sync ')
    misuse(['demo', 'extra'], 'docgate: unexpected argument "extra"', 'demo ')
    misuse(['users', 'add'], 'docgate: users add needs NAME', 'users add NAME')
    misuse(['users', 'list', '--methods', '*'], 'docgate: unknown option --methods', 'users list')
    misuse(['users'], 'docgate: users needs one of: add, revoke, list', 'users add NAME')
    misuse(['import', '--db', 'x.db'], 'docgate: import needs FILE...', 'import [--db DB] FILE...')
    const unknown = docgate('nope')
    assert.equal(unknown.status, 2)
    assert.ok(unknown.stderr.startsWith('docgate: unknown command "nope"\nusage: docgate <command> [options]\n'), unknown.stderr)
  })

  it('flags that exclude each other are named (sync.md §2)', () => {
    misuse(['sync', '--every', '5m', '--once'], 'docgate: --once and --every exclude each other', 'sync --source URL')
    misuse(['sync', '--full', '--scan-all', '--source', 'http://x/'], 'docgate: --full and --scan-all exclude each other', 'sync ')
    misuse(['sync', '--status', '--scan-all'], 'docgate: --status does not combine with --scan-all', 'sync ')
    misuse(['sync', '--every', '5m', '--source', 'http://x/'], 'docgate: --every must be a whole number of seconds ≥ 1, got "5m"', 'sync ')
  })
})
