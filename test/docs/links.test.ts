// A clone carries its own reference: every relative link in README.md and docs/**/*.md names a
// file of the repository, and none leaves it (`../shared/…` was dead outside the workspace).
// Anchors (`#…`) are checked against the headings of the file they point into.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../../', import.meta.url))
/** The Markdown files under a folder of the repository, its subfolders included (docs/perf/…). */
function markdownUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownUnder(`${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : [],
  )
}
const files = ['README.md', ...markdownUnder('docs')]

/** Markdown links and images outside code blocks and code spans: `[text](target)`. */
function linksOf(text: string): string[] {
  const prose = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '``')
  return [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!)
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  const prose = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
  for (const m of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!
      .toLowerCase()
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  for (const m of prose.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(m[1]!)
  return anchors
}

const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target)

describe('links in README.md and docs/', () => {
  it('finds the documents', () => {
    for (const name of [
      'api.md',
      'cli.md',
      'import-format.md',
      'sync.md',
      'decisions.md',
      'benchmarks.md',
      'perf/designs.md',
      'perf/history.md',
    ])
      assert.ok(files.includes(`docs/${name}`), name)
  })

  for (const file of files) {
    it(`${file}: every relative link names a file of the repository`, () => {
      const text = readFileSync(join(root, file), 'utf8')
      const problems: string[] = []
      for (const link of linksOf(text)) {
        if (external(link)) continue
        const [path = '', hash] = link.split('#') as [string, string | undefined]
        const target = path === '' ? join(root, file) : resolve(root, dirname(file), decodeURI(path))
        const inside = relative(root, target)
        if (inside === '..' || inside.startsWith(`..${sep}`)) {
          problems.push(`${link}: leaves the repository`)
          continue
        }
        if (!existsSync(target) || !statSync(target).isFile()) {
          problems.push(`${link}: no such file (${inside})`)
          continue
        }
        if (hash !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(decodeURIComponent(hash))) {
          problems.push(`${link}: no heading with the anchor #${hash} in ${inside}`)
        }
      }
      assert.deepEqual(problems, [], `${file} has broken links:\n  ${problems.join('\n  ')}`)
    })
  }

  it('README.md does not point outside the repository for the contract', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    assert.ok(!linksOf(readme).some((l) => l.startsWith('../')), 'a README link starts with ../')
    for (const doc of ['docs/api.md', 'docs/cli.md', 'docs/import-format.md', 'docs/sync.md', 'docs/decisions.md']) {
      assert.ok(
        linksOf(readme).some((l) => l.split('#')[0] === doc),
        `README.md does not link to ${doc}`,
      )
    }
  })
})
