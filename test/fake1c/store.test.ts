// The fake read from a store (what `docgate fake-1c --db` serves, page by page) answers
// exactly as the fake holding the same objects in memory does — every request sync sends,
// and a few others — except DataVersion, a digest of the stored rows there. And
// `fake-1c --demo` serves the demo base whole, its customised attributes included.
import * as assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { writeDemo } from '../../src/cli/demo.js'
import { exportObjects } from '../../src/export/objects.js'
import { STATS_PATH, startFake1C } from '../../src/fake1c/index.js'
import type { Fake1C } from '../../src/fake1c/index.js'
import { openReadOnly } from '../../src/store/open.js'
import { openWritable } from '../../src/app/store.js'
import { tempDir } from '../support/stores.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const TODAY = '2026-11-24'

async function text(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url)
  return { status: res.status, body: await res.text() }
}

describe('fake 1C over a store', () => {
  let db: string
  let memory: Fake1C
  let store: Fake1C
  /** An answer with its root and DataVersions written alike, to compare the two fakes. */
  const plain = async (fake: Fake1C, path: string) => {
    const { status, body } = await text(`${fake.url}/${path}`)
    return `${status} ${body
      .replaceAll(fake.url, 'ROOT')
      .replace(/"DataVersion":"[^"]*"/g, '"DataVersion":"…"')
      .replace(/<updated>[^<]*</, '<updated>…<')}`
  }
  const json = async (fake: Fake1C, path: string) => JSON.parse((await text(`${fake.url}/${path}`)).body)

  before(async () => {
    db = join(tempDir(), 'demo.db')
    const sql = await openWritable(db)
    await writeDemo(sql, 0.05, 1, true)
    const objects: Record<string, unknown>[] = []
    for await (const o of exportObjects(sql)) objects.push(o)
    await sql.close()
    memory = await startFake1C({ objects, custom: true, today: TODAY })
    store = await startFake1C({ store: await openReadOnly(db), custom: true, today: TODAY, log: false })
  })
  after(async () => {
    await memory?.close()
    await store?.close()
  })

  test('every request sync sends is answered alike', async () => {
    const sets: string[] = (await json(memory, '?$format=json')).value.map((v: { name: string }) => v.name)
    const paths = ['$metadata', '?$format=json', '$metadata#ignored']
    const rowOrder = '$orderby=Period,Recorder,Recorder_Type,LineNumber'
    for (const s of sets) {
      if (s.endsWith('_RecordType')) {
        paths.push(
          `${s}?$format=json&$select=Period&$orderby=Period&$top=1`,
          `${s}?$format=json&${rowOrder}&$top=30&$skip=5`,
          `${s}?$format=json&$filter=Period ge datetime'2025-03-01T00:00:00' and Period lt datetime'2025-06-01T00:00:00'&${rowOrder}&$top=7&$skip=2`,
          `${s}?$format=json&$filter=Period ge datetime'2026-01-01T00:00:00'&${rowOrder}&$top=50`,
          `${s}?$format=json&$filter=Сумма gt 100000&${rowOrder}&$top=10&$skip=2`,
        )
        continue
      }
      if (s.startsWith('AccumulationRegister_')) {
        const rows: { Recorder: string; Recorder_Type: string }[] = (
          await json(memory, `${s}_RecordType?$format=json&${rowOrder}&$top=200`)
        ).value
        const recorders = [...new Map(rows.map((r) => [r.Recorder, r])).values()].slice(0, 5)
        assert.ok(recorders.length > 0, s)
        paths.push(
          `${s}?$format=json&$filter=${recorders.map((r) => `(Recorder eq '${r.Recorder}' and Recorder_Type eq '${r.Recorder_Type}')`).join(' or ')}`,
          `${s}(Recorder='${recorders[0]!.Recorder}',Recorder_Type='${recorders[0]!.Recorder_Type}')?$format=json`,
          `${s}(Recorder='00000000-0000-4000-8000-000000000000',Recorder_Type='StandardODATA.Document_X')?$format=json`,
          `${s}?$format=json&$orderby=Recorder&$top=5&$skip=3`,
        )
        continue
      }
      const doc = s.startsWith('Document_')
      const order = doc ? 'Date,Ref_Key' : 'Ref_Key'
      paths.push(
        `${s}?$format=json&$orderby=${order}&$top=40&$skip=3`,
        `${s}?$format=json&$select=Ref_Key,DataVersion&$orderby=${order}&$top=1000`,
        `${s}?$orderby=${order}&$top=5`,
      )
      if (doc) {
        paths.push(
          `${s}?$format=json&$select=Ref_Key,Date&$orderby=Date&$top=1`,
          `${s}?$format=json&$filter=Date ge datetime'2025-03-01T00:00:00' and Date lt datetime'2025-09-01T00:00:00'&$orderby=Date,Ref_Key&$top=20&$skip=4`,
          `${s}?$format=json&$filter=Date ge datetime'2026-03-01T00:00:00'&$orderby=Date,Ref_Key&$top=20`,
          `${s}?$format=json&$filter=Posted eq false&$orderby=Date,Ref_Key&$top=20&$skip=1`,
        )
      } else paths.push(`${s}?$format=json&$filter=DeletionMark eq false&$orderby=Description desc&$top=20&$skip=1`)
      const refs: string[] = (await json(memory, `${s}?$format=json&$select=Ref_Key&$orderby=Ref_Key&$top=300`)).value.map(
        (v: { Ref_Key: string }) => v.Ref_Key,
      )
      const pick = refs.filter((_, i) => i % 7 === 1).slice(0, 6)
      if (pick.length > 0) {
        paths.push(
          `${s}?$format=json&$filter=${pick.map((r) => `Ref_Key eq guid'${r}'`).join(' or ')}`,
          `${s}?$format=json&$select=Ref_Key,DataVersion&$filter=${pick.map((r) => `Ref_Key eq guid'${r}'`).join(' or ')}&$orderby=Ref_Key`,
          `${s}(guid'${pick[0]}')?$format=json`,
          `${s}(guid'${pick[0]}')?$format=json&$select=Ref_Key,DataVersion`,
        )
      }
      paths.push(
        `${s}(guid'00000000-0000-4000-8000-000000000000')?$format=json`,
        `${s}?$format=json&$select=Нет`,
        `${s}?$format=json&$filter=Ref_Key gt guid'00000000-0000-4000-8000-000000000000'`,
      )
    }
    paths.push('Catalog_Нет?$format=json')
    let differ = 0
    for (const p of paths.map(encodeURI)) {
      const [a, b] = [await plain(memory, p), await plain(store, p)]
      if (a !== b) differ++
      assert.equal(b, a, p)
    }
    assert.equal(differ, 0)
    assert.ok(paths.length > 200, `${paths.length} requests`)
    assert.equal(store.requests.length, 0, 'log: false keeps counts only')
    assert.ok(store.served.requests >= paths.length)
    const stats = (await (await fetch(new URL(STATS_PATH, store.url))).json()) as { requests: number }
    assert.equal(stats.requests, store.served.requests)
  })

  test('DataVersion: one per stored object, the same in every answer and after a restart', async () => {
    const set = 'Document_ЗаказПокупателя'
    const page = encodeURI(`${set}?$format=json&$select=Ref_Key,DataVersion&$orderby=Date,Ref_Key&$top=1000`)
    const versions: { Ref_Key: string; DataVersion: string }[] = (await json(store, page)).value
    assert.ok(versions.length > 5)
    assert.equal(new Set(versions.map((v) => v.DataVersion)).size, versions.length)
    for (const v of versions) assert.match(v.DataVersion, /^[A-Za-z0-9+/]{11}=$/)
    const whole = (await json(store, encodeURI(`${set}(guid'${versions[3]!.Ref_Key}')?$format=json`))) as { DataVersion: string }
    assert.equal(whole.DataVersion, versions[3]!.DataVersion)
    const again = await startFake1C({ store: await openReadOnly(db), custom: true, today: TODAY })
    try {
      assert.deepEqual((await json(again, page)).value, versions)
    } finally {
      await again.close()
    }
  })

  test('it cannot be changed through the fake', () => {
    assert.throws(() => store.put({ type: 'Справочник.Организации', ref: '10000000-0000-4000-8000-000000000001' }), /through the store/)
  })
})

test('fake-1c --demo builds the demo base with a progress line and serves it whole', async () => {
  const child = spawn(process.execPath, [join(ROOT, 'bin/docgate.js'), 'fake-1c', '--demo', '--scale', '0.02', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stderr.on('data', (c: Buffer) => (err += c))
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c
        const m = /fake 1C OData on (\S+)/.exec(out)
        if (m) resolve(m[1]!)
      })
      child.once('exit', (code) => reject(new Error(`fake-1c exited ${code}: ${err}`)))
    })
    const get = async (path: string) => JSON.parse((await text(`${url}/${encodeURI(path)}`)).body)
    const [request] = (await get('Document_ЗаявкаНаРасходованиеСредств?$format=json&$orderby=Date,Ref_Key&$top=1')).value
    assert.deepEqual(Object.keys(request), [
      'Ref_Key',
      'DataVersion',
      'DeletionMark',
      'Number',
      'Date',
      'Posted',
      'Организация_Key',
      'Ответственный_Key',
      'Комментарий',
      'ДатаРасхода',
      'Получатель',
      'Получатель_Type',
      'Контрагент_Key',
      'БанковскийСчетКасса',
      'БанковскийСчетКасса_Type',
      'СуммаДокумента',
      'ДокументОснование',
      'ДокументОснование_Type',
      'Статус',
      'КтоИзменилСтатус_Key',
      'ДатаСменыСтатуса',
    ])
    const specs = (await get('Catalog_СпецификацииНоменклатуры?$format=json&$orderby=Ref_Key&$filter=IsFolder eq false&$top=1')).value
    assert.deepEqual(Object.keys(specs[0]), [
      'Ref_Key',
      'DataVersion',
      'DeletionMark',
      'Predefined',
      'Code',
      'Description',
      'IsFolder',
      'Parent_Key',
      'ДатаУтверждения',
      'Ответственный_Key',
      'СтоимостьРабот',
      'СтоимостьТранспорт',
      'СтоимостьНакладные',
      'СтоимостьАрендаСпецТехники',
      'СтоимостьТехнологическиеПрисоединения',
      'СтоимостьПроектныеРаботы',
      'Материалы',
      'ЭтапыПоставки',
    ])
    const item = (await get('Catalog_Номенклатура?$format=json&$orderby=Ref_Key&$filter=IsFolder eq false&$top=1')).value[0]
    assert.ok('ОсновнаяСпецификация_Key' in item)
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('close', resolve))
  }
  assert.match(out, /^served \d+ requests, \d+ bytes$/m)
  assert.match(err, /^built the demo base \(scale 0\.02\): \d+ objects in \d+ s$/m)
})
