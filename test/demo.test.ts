import * as assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { demoFiles } from '../src/demo/generate.js'
import type { DemoOptions } from '../src/demo/generate.js'
import { API_KINDS, SCHEMA } from './demo-schema.js'
import type { Target } from './demo-schema.js'

type Obj = Record<string, unknown>

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

function collect(options: DemoOptions): Obj[] {
  return demoFiles(options).flatMap((f) => [...f.objects()])
}

function digest(options: DemoOptions): string {
  const hash = createHash('sha256')
  for (const file of demoFiles(options)) {
    hash.update(`#${file.name}\n`)
    for (const o of file.objects()) hash.update(`${JSON.stringify(o)}\n`)
  }
  return hash.digest('hex')
}

const cache = new Map<number, Obj[]>()
function dataSet(scale: number): Obj[] {
  let objects = cache.get(scale)
  if (!objects) cache.set(scale, (objects = collect({ scale, seed: 1 })))
  return objects
}

function ofType(objects: readonly Obj[], type: string): Obj[] {
  return objects.filter((o) => o.type === type)
}

function documentCount(objects: readonly Obj[]): number {
  return objects.filter((o) => String(o.type).startsWith('Документ.')).length
}

const isEmptyRef = (v: unknown) => v === null || v === '' || v === '00000000-0000-0000-0000-000000000000'

/** Every problem of references and attribute names in the data set, as readable lines. */
function problems(objects: readonly Obj[]): string[] {
  const types = new Map<string, string>()
  for (const o of objects) if (typeof o.ref === 'string') types.set(o.ref, String(o.type))
  const out: string[] = []
  const check = (where: string, value: unknown, target: Target) => {
    if (target === null || isEmptyRef(value)) return
    if (typeof target === 'string') {
      if (typeof value !== 'string' || types.get(value) !== target) out.push(`${where}: ${String(value)} is not a ${target}`)
      return
    }
    const link = value as { type?: unknown; ref?: unknown }
    const actual = typeof link.ref === 'string' ? types.get(link.ref) : undefined
    const allowed = target.some((t) => t === link.type || (t === 'Документ.*' && String(link.type).startsWith('Документ.')))
    if (!allowed || actual !== link.type) out.push(`${where}: ${JSON.stringify(value)} does not resolve to one of ${target.join(', ')}`)
  }
  for (const o of objects) {
    const shape = SCHEMA[String(o.type)]
    if (!shape) {
      out.push(`unknown type ${String(o.type)}`)
      continue
    }
    for (const [key, value] of Object.entries(o)) {
      const where = `${String(o.type)} ${String(o.ref ?? '')} ${key}`
      const table = shape.tables[key]
      if (table) {
        if (!Array.isArray(value)) out.push(`${where}: not an array`)
        for (const row of value as Obj[]) {
          for (const [col, cell] of Object.entries(row)) {
            if (!(col in table)) out.push(`${where}.${col}: not in the format`)
            else check(`${where}.${col}`, cell, table[col] ?? null)
          }
        }
      } else if (!(key in shape.attrs)) {
        out.push(`${where}: not in the format`)
      } else {
        check(where, value, shape.attrs[key] ?? null)
      }
    }
  }
  return out
}

test('the same seed gives the same bytes, another seed other bytes', () => {
  const a = digest({ scale: 0.3, seed: 42 })
  assert.equal(digest({ scale: 0.3, seed: 42 }), a)
  assert.notEqual(digest({ scale: 0.3, seed: 43 }), a)
  assert.notEqual(digest({ scale: 0.3, seed: 42, today: '2025-06-30' }), a)
})

test('scale 1 has at least 200 of each API kind and about 10,000 documents', () => {
  const objects = dataSet(1)
  for (const kind of API_KINDS) assert.ok(ofType(objects, kind).length >= 200, `${kind}: ${ofType(objects, kind).length}`)
  const docs = documentCount(objects)
  assert.ok(docs >= 9_000 && docs <= 11_000, `documents: ${docs}`)
})

test('volume is linear in scale, and fractional scales work', () => {
  const one = documentCount(dataSet(1))
  const two = documentCount(collect({ scale: 2, seed: 1 }))
  assert.ok(two / one > 1.9 && two / one < 2.1, `scale 2: ${two}, scale 1: ${one}`)
  const tenth = dataSet(0.1)
  for (const kind of API_KINDS) assert.ok(ofType(tenth, kind).length >= 20, kind)
  assert.deepEqual(problems(tenth), [])
})

test('every ref is a UUID and unique', () => {
  const seen = new Set<string>()
  for (const o of dataSet(1)) {
    if (String(o.type).startsWith('РегистрНакопления.')) continue
    assert.match(String(o.ref), UUID)
    assert.ok(!seen.has(String(o.ref)), `duplicate ref ${String(o.ref)}`)
    seen.add(String(o.ref))
  }
})

test('attributes follow the format and every reference resolves to the right type', () => {
  const found = problems(dataSet(1))
  assert.deepEqual(found.slice(0, 20), [])
})

test('documents have unique numbers per kind and dates in the last two years', () => {
  const objects = dataSet(1)
  for (const type of Object.keys(SCHEMA).filter((t) => t.startsWith('Документ.'))) {
    const docs = ofType(objects, type)
    const numbers = docs.map((d) => String(d['Номер'])).filter((n) => n !== '')
    assert.equal(new Set(numbers).size, numbers.length, `${type} numbers`)
    for (const d of docs) {
      const date = String(d['Дата'])
      assert.ok(date >= '2024-11-20' && date <= '2026-11-20T23:59:59', `${type} ${date}`)
    }
  }
  for (const r of ofType(objects, 'Документ.ЗаявкаНаРасходованиеСредств')) {
    assert.ok(String(r['ДатаРасхода']) >= String(r['Дата']).slice(0, 10))
  }
  for (const r of ofType(objects, 'Документ.ПоступлениеТоваровУслуг')) {
    const rows = r['Товары'] as Obj[]
    const sum = rows.reduce((s, row) => s + (row['Сумма'] as number), 0)
    assert.ok(Math.abs(sum - (r['СуммаДокумента'] as number)) < 0.005)
  }
})

test('nomenclature is a three-level tree with services, deleted items and specifications', () => {
  const items = ofType(dataSet(1), 'Справочник.Номенклатура')
  const byRef = new Map(items.map((i) => [i.ref, i]))
  const depth = (o: Obj): number => (o['Родитель'] === '' ? 1 : 1 + depth(byRef.get(o['Родитель']) ?? {}))
  const elements = items.filter((i) => i['ЭтоГруппа'] === false)
  assert.ok(
    elements.some((e) => depth(e) === 3),
    'no element at level 3',
  )
  assert.ok(
    elements.some((e) => depth(e) === 2),
    'no element at level 2',
  )
  assert.ok(elements.some((e) => e['Услуга'] === true))
  assert.ok(elements.some((e) => e['ПометкаУдаления'] === true))
  assert.ok(elements.some((e) => e['ОсновнаяСпецификация'] !== ''))
})

test('planned cost recurses through specifications at least two levels deep', () => {
  const objects = dataSet(1)
  const items = new Map(ofType(objects, 'Справочник.Номенклатура').map((i) => [i.ref, i]))
  const specs = new Map(ofType(objects, 'Справочник.СпецификацииНоменклатуры').map((s) => [s.ref, s]))
  const recursion = (spec: Obj | undefined, seen: Set<unknown>): number => {
    if (!spec || seen.has(spec.ref)) return 0
    let deepest = 0
    for (const row of (spec['Материалы'] ?? []) as Obj[]) {
      if (row['Сумма'] !== 0 || (row['Количество'] as number) * (row['Цена'] as number) !== 0) continue
      const next = specs.get(items.get(row['Номенклатура'])?.['ОсновнаяСпецификация'])
      if (next) deepest = Math.max(deepest, 1 + recursion(next, new Set([...seen, spec.ref])))
    }
    return deepest
  }
  assert.ok(Math.max(...[...specs.values()].map((s) => recursion(s, new Set()))) >= 2)
  const rows = ofType(objects, 'Документ.ЗаказПокупателя').flatMap((o) => o['Товары'] as Obj[])
  assert.ok(rows.some((r) => r['ПлановаяСебестоимость'] !== 0))
  assert.ok(rows.some((r) => r['ПлановаяСебестоимость'] === 0 && r['Спецификация'] !== ''))
  assert.ok(
    rows.some(
      (r) => r['ПлановаяСебестоимость'] === 0 && r['Спецификация'] === '' && items.get(r['Номенклатура'])?.['ОсновнаяСпецификация'] !== '',
    ),
  )
})

test('attachments carry valid Base64 of 0.5 to 4 KB', () => {
  const files = ofType(dataSet(1), 'Справочник.ХранилищеДополнительнойИнформации')
  assert.ok(files.length > 100)
  for (const f of files) {
    const data = String(f['Данные'])
    assert.match(data, BASE64)
    const size = Buffer.from(data, 'base64').length
    assert.ok(size >= 512 && size <= 4096, `size ${size}`)
  }
})

test('cash balances stay mostly positive; the dollar account has rouble management amounts', () => {
  const sets = ofType(dataSet(1), 'РегистрНакопления.ДенежныеСредства')
  const moves = sets.flatMap((s) => s['Движения'] as Obj[]).sort((a, b) => String(a['Период']).localeCompare(String(b['Период'])))
  const balance = new Map<string, number>()
  let negative = 0
  for (const m of moves) {
    const account = (m['БанковскийСчетКасса'] as { ref: string }).ref
    const sign = m['ВидДвижения'] === 'Приход' ? 1 : -1
    const b = (balance.get(account) ?? 0) + sign * (m['Сумма'] as number)
    balance.set(account, b)
    if (b < -0.005) negative++
  }
  assert.ok(balance.size >= 8, `accounts with movements: ${balance.size}`)
  assert.ok(negative / moves.length < 0.05, `negative balances after ${negative} of ${moves.length} movements`)
  assert.ok(moves.some((m) => m['Сумма'] !== m['СуммаУпр']))
  const paid = ofType(dataSet(1), 'РегистрНакопления.ЗаявкиНаРасходованиеСредств')
  assert.ok(paid.length > 20)
})

test('requirement-invoices cover every plural form of the row count', () => {
  const counts = new Set(ofType(dataSet(1), 'Документ.ТребованиеНакладная').map((d) => (d['Материалы'] as Obj[]).length))
  for (const n of [1, 11, 21]) assert.ok(counts.has(n), `no document with ${n} rows`)
  assert.ok([2, 3, 4].some((n) => counts.has(n)))
  assert.ok([5, 6, 7, 8, 9, 10].some((n) => counts.has(n)))
})
