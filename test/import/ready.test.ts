import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { writeDemo } from '../../src/cli/demo.js'
import { materials } from '../../src/endpoints/materials.js'
import { dropReady, hasReady, readReady, writeReady } from '../../src/views/ready-bytes.js'
import { restoreReadyAnswers } from '../../src/views/ready-answers.js'
import { ImportBatch } from '../../src/import/batch.js'
import { VIEWS } from '../../src/endpoints/index.js'
import { runComputed } from '../../src/pipeline/run.js'
import { BLOB_CHUNK } from '../../src/store/blobs.js'
import type { SqlPort } from '../../src/store/sql.js'
import { materialsFixture } from '../fixtures/materials.js'
import { uuid } from '../support/refs.js'
import { BACKENDS, importFixture } from '../support/app.js'
import { createTestStore } from '../support/stores.js'
import type { TestStore } from '../support/stores.js'

const now = () => new Date('2026-11-20T12:00:00Z')

/** The unfiltered answer's bytes, and whether they came from the store in chunks (ready) or were built whole. */
async function unfiltered(sql: SqlPort): Promise<{ bytes: Buffer; ready: boolean }> {
  const body = await runComputed(materials, new Map(), { sql, now })
  if (Buffer.isBuffer(body)) return { bytes: body, ready: false }
  const parts: Buffer[] = []
  for await (const part of body) parts.push(part)
  return { bytes: Buffer.concat(parts), ready: true }
}

class Undo extends Error {}

/** What a request without the ready bytes prints: the per-request build (the drop is rolled back). */
async function perRequest(sql: SqlPort): Promise<Buffer> {
  let built: { bytes: Buffer; ready: boolean } | undefined
  await assert.rejects(
    sql.transaction(async () => {
      await dropReady(sql, 'materials')
      built = await unfiltered(sql)
      throw new Undo()
    }),
    Undo,
  )
  assert.equal(built!.ready, false)
  return built!.bytes
}

/** How many times the tree was rebuilt: its generation's count, above the random low 21 bits. */
const generation = async (sql: SqlPort) =>
  Math.floor(Number((await sql.all<{ g: number }>("SELECT MAX(gen) AS g FROM ready_answers WHERE name = 'materials'"))[0]!.g) / 2 ** 21)

const C = 'Справочник.'
const plain = (type: string, key: string, name: string) => ({ type: C + type, ref: uuid(key), Код: key, Наименование: name })

interface Node {
  Код: string
  ЕдиницаИзмерения?: string
  ОсновнойПоставщик?: string
  Дети?: Node[]
}
const find = (nodes: Node[], code: string): Node | undefined => {
  for (const n of nodes) {
    if (n.Код === code) return n
    const inner = find(n.Дети ?? [], code)
    if (inner) return inner
  }
  return undefined
}

for (const backend of BACKENDS) {
  describe(`the unfiltered materials tree kept ready (${backend})`, () => {
    let store: TestStore
    let sql: SqlPort
    before(async () => {
      store = await createTestStore(backend)
      sql = store.writer
    })
    after(async () => {
      if (backend !== 'pglite') await sql.close()
      await store.cleanup()
    })

    it('on demo data, the ready bytes are the bytes the per-request build prints', async () => {
      const demo = await createTestStore(backend)
      const sql = demo.writer
      try {
        await writeDemo(sql, 0.3, 7, true)
        const served = await unfiltered(sql)
        assert.equal(served.ready, true)
        const built = await perRequest(sql)
        assert.equal(served.bytes.toString('utf8'), built.toString('utf8'))
        const { data, errors } = JSON.parse(served.bytes.toString('utf8')) as { data: Node[]; errors: unknown[] }
        assert.deepEqual(errors, [])
        const [count] = await sql.all<{ n: number }>("SELECT COUNT(*) AS n FROM api_materials WHERE role = 'element'")
        const elements = (nodes: Node[]): number => nodes.reduce((n, x) => n + (x.Дети ? elements(x.Дети) : 1), 0)
        assert.equal(elements(data), Number(count!.n))
        assert.ok(Number(count!.n) > 100)
      } finally {
        if (backend !== 'pglite') await sql.close()
        await demo.cleanup()
      }
    })

    it('follows every import that changes what it prints, and only those', async () => {
      assert.equal((await importFixture(sql, materialsFixture)).ok, true)
      let g = await generation(sql)
      const tree = async () => {
        const served = await unfiltered(sql)
        assert.equal(served.ready, true)
        assert.equal(served.bytes.toString('utf8'), (await perRequest(sql)).toString('utf8'))
        return (JSON.parse(served.bytes.toString('utf8')) as { data: Node[] }).data
      }
      assert.equal(find(await tree(), 'Н-001')?.ЕдиницаИзмерения, 'м')

      // A unit renamed: the items measured in it print the new name.
      assert.equal((await importFixture(sql, [plain('ЕдиницыИзмерения', 'unit-m', 'метр')])).ok, true)
      assert.equal(await generation(sql), ++g)
      assert.equal(find(await tree(), 'Н-001')?.ЕдиницаИзмерения, 'метр')
      assert.equal(find(await tree(), 'Н-004')?.ЕдиницаИзмерения, 'шт')

      // A counterparty no item names as its supplier, and a warehouse: nothing to rebuild.
      assert.equal((await importFixture(sql, [plain('Контрагенты', 'sup-other', 'ИП Другой'), plain('Склады', 'wh-1', 'Склад')])).ok, true)
      assert.equal(await generation(sql), g)

      // A supplier renamed.
      assert.equal((await importFixture(sql, [plain('Контрагенты', 'sup-metal', 'АО Металл')])).ok, true)
      assert.equal(await generation(sql), ++g)
      assert.equal(find(await tree(), 'Н-002')?.ОсновнойПоставщик, 'АО Металл')

      // An item removed, then one added under a group: one rebuild per import transaction.
      assert.equal((await importFixture(sql, [{ type: `${C}Номенклатура`, ref: uuid('e-bolt'), deleted: true }])).ok, true)
      assert.equal(await generation(sql), ++g)
      assert.equal(find(await tree(), 'Н-008'), undefined)
      const added = {
        type: `${C}Номенклатура`,
        ref: uuid('e-new'),
        Код: 'Н-100',
        Наименование: 'Швеллер 10',
        ЭтоГруппа: false,
        Родитель: uuid('g-thin'),
      }
      const renamed = plain('ЕдиницыИзмерения', 'unit-pcs', 'штука')
      assert.equal((await importFixture(sql, [added, renamed])).ok, true)
      assert.equal(await generation(sql), ++g)
      const thin = find(await tree(), 'Г-03')!
      assert.deepEqual(
        thin.Дети!.map((n) => n.Код),
        ['Н-003', 'Н-100'],
      )
      assert.equal(find(await tree(), 'Н-004')?.ЕдиницаИзмерения, 'штука')
    })

    it('a batch that drops it (sync) leaves requests the per-request build until it is restored once', async () => {
      const batch = async (objects: readonly unknown[]) =>
        sql.transaction(async () => {
          const b = new ImportBatch(sql)
          for (const o of objects) assert.equal((await b.add(o)).ok, true)
          await b.finish({ dangling: false, answers: 'drop' })
        })
      assert.equal(await hasReady(sql, 'materials'), true)
      await batch([plain('ЕдиницыИзмерения', 'unit-m', 'метр погонный')])
      assert.equal(await hasReady(sql, 'materials'), false)
      const meanwhile = await unfiltered(sql)
      assert.equal(meanwhile.ready, false)
      const { data } = JSON.parse(meanwhile.bytes.toString('utf8')) as { data: Node[] }
      assert.equal(find(data, 'Н-001')?.ЕдиницаИзмерения, 'метр погонный')
      // A batch that touches nothing the tree prints leaves it as it is (dropped here).
      await batch([plain('Склады', 'wh-2', 'Склад 2')])
      assert.equal(await hasReady(sql, 'materials'), false)
      await sql.transaction(() => restoreReadyAnswers(sql, VIEWS.answers))
      const restored = await unfiltered(sql)
      assert.equal(restored.ready, true)
      assert.equal(restored.bytes.toString('utf8'), meanwhile.bytes.toString('utf8'))
      // Restoring again builds nothing: the stored generation stays.
      const g = await generation(sql)
      await sql.transaction(() => restoreReadyAnswers(sql, VIEWS.answers))
      assert.equal(await generation(sql), g)
    })

    it('a filtered request keeps the per-request path', async () => {
      const body = await runComputed(materials, new Map([['code', 'Н-001']]), { sql, now })
      assert.equal(Buffer.isBuffer(body), true)
      const { data } = JSON.parse((body as Buffer).toString('utf8')) as { data: Node[] }
      assert.deepEqual(
        data.map((n) => n.Код),
        ['Г-01'],
      )
    })

    it('a large answer is stored and read in chunks, byte for byte', async () => {
      // More chunks than one read takes (four): the reads follow on in order.
      const bytes = Buffer.alloc(5 * BLOB_CHUNK + 5, 'Ж')
      await sql.transaction(() => writeReady(sql, 'probe', bytes))
      const chunks = await readReady(sql, 'probe')
      const parts: Buffer[] = []
      for await (const c of chunks!) parts.push(c)
      assert.deepEqual(
        parts.map((p) => p.length),
        [BLOB_CHUNK, BLOB_CHUNK, BLOB_CHUNK, BLOB_CHUNK, BLOB_CHUNK, 5],
      )
      assert.equal(Buffer.concat(parts).equals(bytes), true)
      await dropReady(sql, 'probe')
      assert.equal(await readReady(sql, 'probe'), undefined)
    })

    it('a connection sends the bytes it read whole again while their generation is the newest', async () => {
      const text = async (chunks: AsyncIterable<Buffer> | undefined) => {
        const parts: Buffer[] = []
        for await (const c of chunks!) parts.push(c)
        return Buffer.concat(parts).toString('utf8')
      }
      const reads: string[] = []
      const readBytes = sql.readBytes.bind(sql)
      Object.defineProperty(sql, 'readBytes', {
        configurable: true,
        value: (query: string, ...rest: unknown[]) => {
          reads.push(query)
          return (readBytes as (...a: unknown[]) => unknown)(query, ...rest)
        },
      })
      try {
        await writeReady(sql, 'kept', Buffer.from('[1]'))
        assert.equal(await text(await readReady(sql, 'kept')), '[1]')
        assert.equal(reads.length, 1)
        assert.equal(await text(await readReady(sql, 'kept')), '[1]')
        assert.equal(reads.length, 1)
        await writeReady(sql, 'kept', Buffer.from('[2]'))
        assert.equal(await text(await readReady(sql, 'kept')), '[2]')
        assert.equal(reads.length, 2)
        // Dropped and written anew (a store rebuilt from scratch counts its rebuilds from zero
        // again): the bytes kept from before are not taken for the new ones.
        await dropReady(sql, 'kept')
        await writeReady(sql, 'kept', Buffer.from('[3]'))
        assert.equal(await text(await readReady(sql, 'kept')), '[3]')
        await dropReady(sql, 'kept')
        await writeReady(sql, 'kept', Buffer.from('[4]'))
        assert.equal(await text(await readReady(sql, 'kept')), '[4]')
        assert.equal(reads.length, 4)
        await dropReady(sql, 'kept')
      } finally {
        Reflect.deleteProperty(sql, 'readBytes')
      }
    })

    it('a read that started keeps its generation through one rewrite, and says so after two', async () => {
      await writeReady(sql, 'probe', Buffer.from('[1]'))
      const first = await readReady(sql, 'probe')
      await writeReady(sql, 'probe', Buffer.from('[2]'))
      const second = await readReady(sql, 'probe')
      const text = async (chunks: AsyncIterable<Buffer> | undefined) => {
        const parts: Buffer[] = []
        for await (const c of chunks!) parts.push(c)
        return Buffer.concat(parts).toString('utf8')
      }
      assert.equal(await text(first), '[1]')
      await writeReady(sql, 'probe', Buffer.from('[3]'))
      await writeReady(sql, 'probe', Buffer.from('[4]'))
      await assert.rejects(text(second), /the ready probe answer was replaced while it was being sent; ask again/)
      assert.equal(await text(await readReady(sql, 'probe')), '[4]')
      await dropReady(sql, 'probe')
    })
  })
}
