// `npm run bench:materials`: the materials tree over a nomenclature catalogue of
// BENCH_ITEMS elements (default 200,000) under 6 levels of groups (branching 4: 5,460
// groups), imported through the import path; sequential request times of unfiltered and
// filtered requests against a served database (the unfiltered one streams the tree kept
// ready at import), then what keeping it ready costs an import transaction. Environment: BENCH_ITEMS, BENCH_RUNS (default 5), BENCH_KEEP (keep the database).
import { rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { hashPassword } from '../src/auth/password.js'
import { importEntries } from '../src/import/run.js'
import { openWritable } from '../src/app/store.js'
import { putUser } from '../src/users/store.js'
import { benchDir, startProcess } from './harness.js'
import { seconds, timeRequest } from './timing.js'

const items = Number(process.env.BENCH_ITEMS ?? '200000')
const runs = Number(process.env.BENCH_RUNS ?? '5')
const LEVELS = 6
const BRANCHING = 4
const C = 'Справочник.'
const id = (kind: number, n: number) => `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`

const NOUNS = ['Труба', 'Лист', 'Уголок', 'Швеллер', 'Болт', 'Гайка', 'Кабель', 'Провод', 'Краска', 'Грунт', 'Фланец', 'Отвод']
const ADJS = ['стальная', 'оцинкованный', 'медный', 'алюминиевый', 'нержавеющий', 'горячекатаный', 'холоднокатаный']

function* catalogue(): Generator<unknown> {
  for (let i = 0; i < 5; i++) yield { type: `${C}ЕдиницыИзмерения`, ref: id(1, i), Наименование: ['шт', 'м', 'кг', 'т', 'усл'][i] }
  for (let i = 0; i < 4; i++)
    yield { type: `${C}ВидыНоменклатуры`, ref: id(2, i), Наименование: ['Материал', 'Товар', 'Услуга', 'Продукция'][i] }
  for (let i = 0; i < 50; i++) yield { type: `${C}НоменклатурныеГруппы`, ref: id(3, i), Наименование: `Номенклатурная группа ${i}` }
  for (let i = 0; i < 500; i++) yield { type: `${C}Контрагенты`, ref: id(4, i), Наименование: `ООО Поставщик ${i}` }
  // Groups level by level; the last level's groups hold the elements.
  let level: string[] = ['']
  let groupNo = 0
  for (let depth = 1; depth <= LEVELS; depth++) {
    const next: string[] = []
    for (const parent of level) {
      for (let b = 0; b < BRANCHING; b++) {
        const ref = id(5, groupNo)
        yield {
          type: `${C}Номенклатура`,
          ref,
          Код: `Г-${groupNo}`,
          Наименование: `Группа ${depth}.${groupNo}`,
          ЭтоГруппа: true,
          Родитель: parent || null,
        }
        next.push(ref)
        groupNo++
      }
    }
    level = next
  }
  for (let i = 0; i < items; i++) {
    yield {
      type: `${C}Номенклатура`,
      ref: id(6, i),
      Код: `Н-${String(i).padStart(7, '0')}`,
      Наименование: `${NOUNS[i % NOUNS.length]} ${ADJS[(i >> 3) % ADJS.length]} ${(i * 7919) % 1000}х${i % 13} №${i}`,
      Артикул: `А-${(i * 31) % 100000}`,
      Родитель: level[(i * 2654435761) % level.length],
      ПометкаУдаления: i % 50 === 0,
      Услуга: i % 20 === 1,
      ЕдиницаИзмерения: id(1, i % 5),
      ВидНоменклатуры: id(2, i % 4),
      НоменклатурнаяГруппа: id(3, i % 50),
      ОсновнойПоставщик: i % 3 === 0 ? null : id(4, i % 500),
    }
  }
}

const dir = benchDir()
const db = join(dir, 'materials.db')
if (process.env.BENCH_KEEP) console.log(`database: ${db}`)
const sql = await openWritable(db)
let t0 = process.hrtime.bigint()
let line = 0
const report = await importEntries(
  sql,
  (function* () {
    for (const value of catalogue()) yield { line: ++line, value }
  })(),
)
if (!report.ok) throw new Error(`rejected: ${JSON.stringify(report.invalid.slice(0, 3))}`)
console.log(
  `materials: ${items} elements under ${LEVELS} levels of groups (branching ${BRANCHING}); ${line} objects imported in ${seconds(t0).toFixed(1)} s`,
)
await putUser(sql, 'bench', await hashPassword('bench', { logN: 14 }), ['*'])
await sql.close()
console.log(`database ${(statSync(db).size / 2 ** 20).toFixed(0)} MiB`)

const auth = { authorization: `Basic ${Buffer.from('bench:bench').toString('base64')}` }
const server = await startProcess(['dist/bench/serve-db.js', db])
const countElements = (nodes: { ЭтоГруппа: boolean; Дети?: unknown[] }[]): number =>
  nodes.reduce((n, x) => n + (x.ЭтоГруппа ? countElements((x.Дети ?? []) as never) : 1), 0)
try {
  await timeRequest(`${server.url}/main/hs/materials/get?code=warmup`, auth, 1)
  console.log(`${'request'.padEnd(40)}${'elements'.padStart(10)}${'bytes'.padStart(12)}${'median ms'.padStart(11)}${'min ms'.padStart(9)}`)
  for (const [name, query] of [
    ['unfiltered', ''],
    ['name=труба (substring, ~1/12)', `name=${encodeURIComponent('труба')}`],
    ['supplier=поставщик 7 (~1/45)', `supplier=${encodeURIComponent('поставщик 7')}`],
    ['group=группа 6.54 (one leaf group)', `group=${encodeURIComponent('группа 6.54')}`],
    ['service=1', 'service=1'],
    ['code=Н-0012345 (one element)', `code=${encodeURIComponent('Н-0012345')}`],
  ] as const) {
    t0 = process.hrtime.bigint()
    const t = await timeRequest(`${server.url}/main/hs/materials/get${query ? `?${query}` : ''}`, auth, runs)
    const found = countElements(JSON.parse(t.body).data)
    console.log(
      `${name.padEnd(40)}${String(found).padStart(10)}${String(t.bytes).padStart(12)}${t.medianMs.toFixed(0).padStart(11)}${t.minMs.toFixed(0).padStart(9)}`,
    )
  }
  // What keeping the unfiltered tree ready costs an import transaction (views/ready-answers.ts).
  const writer = await openWritable(db)
  for (const [name, value] of [
    [
      'one nomenclature item (tree rebuilt)',
      { type: `${C}Номенклатура`, ref: id(6, 7), Код: 'Н-0000007', Наименование: 'Труба переименованная', ЕдиницаИзмерения: id(1, 2) },
    ],
    ['one warehouse (tree untouched)', { type: `${C}Склады`, ref: id(7, 0), Наименование: 'Склад' }],
  ] as const) {
    t0 = process.hrtime.bigint()
    const r = await importEntries(writer, [{ line: 1, value }])
    if (!r.ok) throw new Error(JSON.stringify(r.invalid))
    console.log(`import transaction of ${name}: ${(seconds(t0) * 1000).toFixed(0)} ms`)
  }
  await writer.close()
} finally {
  server.child.kill('SIGTERM')
  if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true })
}
