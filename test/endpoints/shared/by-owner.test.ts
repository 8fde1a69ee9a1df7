import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readByOwner } from '../../../src/store/by-owner.js'
import type { SqlPort, SqlValue } from '../../../src/store/sql.js'

interface Line {
  readonly owner: string
  readonly line: number
}

/** A store of `lines` whose reads fail when `fails(params)`; every read's placeholder count and params are logged. */
function store(lines: readonly Line[], fails: (params: readonly SqlValue[]) => boolean = () => false) {
  const reads: { placeholders: number; params: readonly SqlValue[]; failed: boolean }[] = []
  const sql = {
    async all(text: string, params: readonly SqlValue[] = []) {
      const failed = fails(params)
      reads.push({ placeholders: text.split('?').length - 1, params, failed })
      if (failed) throw new Error(`cannot read ${String(params[0])}`)
      return lines.filter((l) => params.includes(l.owner))
    },
  } as unknown as SqlPort
  return { sql, reads }
}

const query = (list: string) => `SELECT owner, line FROM t WHERE owner IN (${list}) AND kind = ? ORDER BY owner, line`
const LINES: Line[] = [
  { owner: 'a', line: 1 },
  { owner: 'b', line: 1 },
  { owner: 'a', line: 2 },
  { owner: 'c', line: 1 },
  { owner: 'a', line: 3 },
]

describe('readByOwner', () => {
  it('reads a page of owners with one query and groups the rows by owner in the order read', async () => {
    const { sql, reads } = store(LINES)
    const rows = await readByOwner<Line>(sql, query, ['a', 'b', 'c', 'd', 'e'], ['goods'])
    assert.deepEqual(rows('a'), [
      { owner: 'a', line: 1 },
      { owner: 'a', line: 2 },
      { owner: 'a', line: 3 },
    ])
    assert.deepEqual(rows('b'), [{ owner: 'b', line: 1 }])
    assert.deepEqual(rows('d'), [])
    // 5 owners are spelled as 8 (the last repeated), then the other parameters.
    assert.deepEqual(reads, [{ placeholders: 9, params: ['a', 'b', 'c', 'd', 'e', 'e', 'e', 'e', 'goods'], failed: false }])
  })

  it('runs no query for no owners', async () => {
    const { sql, reads } = store(LINES)
    assert.deepEqual((await readByOwner<Line>(sql, query, []))('a'), [])
    assert.equal(reads.length, 0)
  })

  it('reads at most 500 owners per query', async () => {
    const owners = Array.from({ length: 1001 }, (_, i) => `o${i}`)
    const { sql, reads } = store(owners.map((owner) => ({ owner, line: 1 })))
    const rows = await readByOwner<Line>(sql, query, owners, ['goods'])
    assert.deepEqual(
      reads.map((r) => r.placeholders - 1),
      [500, 500, 1],
    )
    assert.deepEqual(rows('o1000'), [{ owner: 'o1000', line: 1 }])
  })

  it('reads a failed batch again owner by owner: only the owner whose own read fails throws', async () => {
    const { sql, reads } = store(LINES, (params) => params.includes('b'))
    const rows = await readByOwner<Line>(sql, query, ['a', 'b', 'c'], ['goods'])
    assert.deepEqual(rows('a'), [
      { owner: 'a', line: 1 },
      { owner: 'a', line: 2 },
      { owner: 'a', line: 3 },
    ])
    assert.deepEqual(rows('c'), [{ owner: 'c', line: 1 }])
    assert.throws(() => rows('b'), { message: 'cannot read b' })
    assert.deepEqual(
      reads.map((r) => [r.params, r.failed]),
      [
        [['a', 'b', 'c', 'c', 'goods'], true],
        [['a', 'goods'], false],
        [['b', 'goods'], true],
        [['c', 'goods'], false],
      ],
    )
  })
})
