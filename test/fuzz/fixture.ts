// One fixture that feeds every endpoint (the suites' own fixtures, combined), plus stored
// text that a LIKE-based filter would get wrong: `%`, `_`, `\`, quotes, bracket classes,
// Cyrillic in mixed case, `ё`, NFD, Latin look-alikes, Turkish `İ`, emoji and ZWJ sequences.
import { cashflowsFixture } from '../fixtures/cashflows.js'
import { documentsFixture } from '../fixtures/documents.js'
import { materialsFixture } from '../fixtures/materials.js'
import { productionFixture } from '../fixtures/production.js'
import { warehousesFixture } from '../fixtures/warehouses.js'
import { uuid } from '../support/refs.js'

/** Code → name of the extra warehouses; codes are unique, so a code identifies a row. */
export const TRICKY_WAREHOUSES: readonly (readonly [code: string, name: string])[] = [
  ['%', 'Склад 100%'],
  ['_', 'под_черк'],
  ['\\', 'обратный \\ слеш'],
  ['a\\', 'хвост a\\'],
  ['\\\\%_', '%%__\\\\'],
  ["O'Reilly", `Склад "Кавычки" 'одинарные'`],
  ['[abc]^*?', 'Скобки [^a] * ? $ .*'],
  ['СкЛаД-Ёж', 'ЁЛКА ёлка Елка'],
  ['📦-1', 'Склад 📦 эмодзи 👍🏽 👨‍👩‍👧'],
  ['Й-nfd', 'Й'.normalize('NFD') + 'ОГУРТ' + 'й'.normalize('NFD')],
  ['İ-tr', 'İstanbul İSTANBUL'],
  ['A-lat', 'Hаличные Aрбат'],
  ["' OR '1'='1", '1; DROP TABLE x;--'],
  ['a_slash_b', 'путь a/b'],
]

/** Numbers of the extra expense requests (payments). */
export const TRICKY_PAYMENT_NUMBERS: readonly string[] = ['%-001', '_-002', '\\-003', "'-004", 'Зр-ёЁ📦', 'ab\\', '[%]_', 'ЗР-%_\\']

const warehouse = ([code, name]: readonly [string, string], i: number) => ({
  type: 'Справочник.Склады',
  ref: uuid(`fuzz-wh-${i}`),
  Код: code,
  Наименование: name,
  ЭтоГруппа: i % 5 === 4,
})

const payment = (number: string, i: number) => ({
  type: 'Документ.ЗаявкаНаРасходованиеСредств',
  ref: uuid(`fuzz-pay-${i}`),
  Номер: number,
  Дата: `2025-0${1 + (i % 9)}-1${i % 10}T10:00:00`,
  ДатаРасхода: `2025-0${1 + (i % 9)}-2${i % 10}`,
  СуммаДокумента: 100 + i / 4,
  Комментарий: `комментарий ${number} "${i}"`,
  Статус: i % 2 === 0 ? 'Согласована' : 'НЕ согласована',
  Проведен: i % 2 === 0,
})

const tricky = [
  ...TRICKY_WAREHOUSES.map(warehouse),
  ...TRICKY_PAYMENT_NUMBERS.map(payment),
  // The last calendar day: its exclusive end (10000-01-01) is not a 4-digit year.
  {
    type: 'Документ.ПеремещениеТоваров',
    ref: uuid('fuzz-tr-last'),
    Номер: 'ПМ-%_\\9999',
    Дата: '9999-12-31T23:59:59',
    Проведен: true,
    СкладОтправитель: uuid('fuzz-wh-0'),
    СкладПолучатель: uuid('fuzz-wh-8'),
  },
  {
    type: 'Документ.ПеремещениеТоваров',
    ref: uuid('fuzz-tr-first'),
    Номер: 'ПМ-0001',
    Дата: '0001-01-02T00:00:00',
    Проведен: true,
  },
]

// The suites' fixtures share a few identical catalogue objects (units); keep one copy.
function unique(objects: readonly unknown[]): unknown[] {
  const seen = new Set<string>()
  return objects.filter((o) => {
    const key = JSON.stringify(o)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

export const fuzzFixture: readonly unknown[] = unique([
  ...documentsFixture,
  ...productionFixture,
  ...materialsFixture,
  ...cashflowsFixture,
  ...warehousesFixture,
  ...tricky,
])

interface Stored {
  readonly type?: string
  readonly Код?: string
  readonly Наименование?: string
  readonly Номер?: string
  readonly Дата?: string | null
}
const stored = fuzzFixture as readonly Stored[]

/** Every stored warehouse as the API prints its identity, for the reference filters. */
export const storedWarehouses = stored
  .filter((o) => o.type === 'Справочник.Склады')
  .map((o) => ({ code: String(o.Код ?? ''), name: String(o.Наименование ?? '') }))

/** Every stored expense request's number. */
export const storedPaymentNumbers = stored
  .filter((o) => o.type === 'Документ.ЗаявкаНаРасходованиеСредств')
  .map((o) => String(o.Номер ?? ''))

/** Every stored transfer: number and stored date (`YYYY-MM-DD…`, or '' when empty). */
export const storedTransfers = stored
  .filter((o) => o.type === 'Документ.ПеремещениеТоваров')
  .map((o) => ({ number: String(o.Номер ?? ''), date: String(o.Дата ?? '') }))

/** The server's clock: cashflows' open periods end on this day. */
export const NOW = new Date('2026-03-15T12:00:00')

const PAGE_ALPHABET = [...'АаБбЕеЁёЖжЯяAaBbZz09%_\\ ', '📦', 'İ']

/**
 * `n` warehouses with short names over a small alphabet (many ties, case and `ё`/`е`
 * variants), so filters match more than one 500-row page and sorting needs the tie-break.
 */
export function pagedWarehouses(n: number): { code: string; name: string; group: boolean }[] {
  let state = 12345
  const next = (bound: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31
    return state % bound
  }
  return Array.from({ length: n }, (_, i) => ({
    code: `P-${String(i).padStart(5, '0')}`,
    name: Array.from({ length: 1 + next(4) }, () => PAGE_ALPHABET[next(PAGE_ALPHABET.length)]).join(''),
    group: next(7) === 0,
  }))
}

export const pagedFixture = (rows: ReturnType<typeof pagedWarehouses>): unknown[] =>
  rows.map((w, i) => ({ type: 'Справочник.Склады', ref: uuid(`paged-${i}`), Код: w.code, Наименование: w.name, ЭтоГруппа: w.group }))
