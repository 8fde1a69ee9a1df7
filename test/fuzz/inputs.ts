// The bad-input catalogue of reliability-battery.md (c), as fast-check arbitraries that
// produce query-string text exactly as it goes on the wire (already percent-encoded, or
// deliberately broken).
import fc from 'fast-check'
import type { Endpoint } from '../../src/endpoints/define.js'

const HEX = (b: number): string => `%${b.toString(16).toUpperCase().padStart(2, '0')}`
const UNRESERVED = /[A-Za-z0-9\-._~]/

/** Text → wire: every UTF-8 byte except RFC 3986 unreserved characters is percent-encoded
 * (a lone surrogate becomes EF BF BD, as any UTF-8 encoder writes it). */
export const pct = (text: string): string => {
  let out = ''
  for (const b of Buffer.from(text, 'utf8')) out += b < 0x80 && UNRESERVED.test(String.fromCharCode(b)) ? String.fromCharCode(b) : HEX(b)
  return out
}

/** Raw bytes → wire, byte by byte, so invalid UTF-8 and cp1251 reach the server as bytes. */
export const bytesOnWire = (bytes: Uint8Array): string => Array.from(bytes, HEX).join('')

const text = (values: readonly string[]) => fc.constantFrom(...values.map(pct))
const wire = (values: readonly string[]) => fc.constantFrom(...values)

// ---- c.1 dates ----
export const VALID_DATES = [
  '01.02.2024',
  '2024-02-01',
  '01-02-2024',
  '29.02.2024',
  '01.01.0001',
  '31.12.9999',
  '0001-01-02',
  '9999-12-31',
  '05.03.2026',
  '2026-03-31',
]
export const INVALID_DATES = [
  '29.02.2023',
  '31.04.2024',
  '00.01.2024',
  '32.01.2024',
  '01.13.2024',
  '01.00.2024',
  '2024-02-31',
  '0000-01-01',
  '00.00.0000',
  '-0001-01-01',
  '10000-01-01',
  '99999-01-01',
  '01.01.24',
  '1.2.2024',
  '01.2.2024',
  '2024-1-1',
  '2024/01/01',
  '01/02/2024',
  '2024-02-01T00:00:00Z',
  '2024-02-01 10:00',
  '2024-W05',
  '20240201',
  '1706745600',
  '01..02.2024',
  '01.02.2024.',
  ' 01.02.2024',
  '01.02.2024 ',
  '01.02.2024\0',
  '01.02.2024\n',
  '０１.０２.２０２４',
  '٠١.٠٢.٢٠٢٤',
  '01․02․2024',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '1e3',
  '31.12.99999',
  '2024-02-01\u200b',
]
const dateWire = wire([
  '01.02.2024%00',
  '01.02.2024%0A',
  '%30%31.02.2024',
  '01.02.2024%',
  '01%2E02%2E2024',
  '+01.02.2024',
  '01.02.2024%zz',
  '%C0%AE',
])
export const dateValue = fc.oneof(text(VALID_DATES), text(INVALID_DATES), dateWire)

// ---- c.2 booleans ----
const BOOLEANS = [
  '1',
  'true',
  'yes',
  'да',
  'TRUE',
  'Yes',
  'ДА',
  'Да',
  '0',
  'false',
  'no',
  'нет',
  'НЕТ',
  'on',
  'off',
  'y',
  'n',
  't',
  '2',
  '-1',
  '01',
  'true ',
  ' true',
  'tru',
  'yes!',
  'да ',
  'дa',
  'full',
  'FULL',
  'Full',
]
const booleanValue = fc.oneof(text(BOOLEANS), wire(['%D0%B4%D0%B0', '%E4%E0', '%74rue', 'true%00', '']))

// ---- c.3 numbers ----
const NUMBERS = [
  '100',
  '100.00',
  '100.5',
  '100,50',
  '-100',
  '+100',
  '0',
  '-0',
  ' ',
  '0x10',
  '0b11',
  '1e2',
  '1e400',
  'Infinity',
  'NaN',
  '12,5',
  '1 000,50',
  '1\u00a0000,50',
  '1_000',
  '1.000,50',
  '9007199254740993',
  '0.30000000000000004',
  '99999999999999999999',
  '100.123',
  '.5',
  '5.',
  '５',
  '٥',
  '12₽',
  '12 руб',
  '250',
  '1500.5',
  '101.75',
  '99.99',
]
const numberValue = fc.oneof(
  text(NUMBERS),
  wire(['', '%20', '1%2C5', '1e400%00']),
  fc.constant('9'.repeat(2000)),
  fc.double().map((d) => pct(String(d))),
)
const YEARS = ['24', '26', '2024', '2026', '1', '0', '00', '99', '100', '2024.0', '20240', '-2024', '0000', '9999', '٢٠٢٤']
const MONTHS = ['0', '13', '1.5', '01', '1 ', 'Jan', 'январь', '12', '2', '-1', '00', '001']

// ---- c.4 substrings ----
export const SUBSTRINGS = [
  '%',
  '_',
  '\\',
  '\\\\',
  '%%',
  '_%_',
  'a\\',
  '\\%',
  '\\_',
  '%\\',
  '[abc]',
  '[^a]',
  '[%]',
  '*',
  '?',
  '^',
  '$',
  '.*',
  '(?i)',
  "'",
  '"',
  "''",
  '`',
  "' OR '1'='1",
  '1; DROP TABLE x;--',
  '$1',
  ':name',
  '@p',
  '/*',
  '*/',
  '--',
  '${x}',
  '{{7*7}}',
  '<script>',
  '\0',
  '\x01',
  '\x1f',
  '\x7f',
  '\r\n',
  '\t',
  '\u00a0',
  '\u200b',
  '\ufeff',
  '\u202e',
  'й'.normalize('NFD'),
  'Ё',
  'ё',
  'е',
  'иванов',
  'ИВАНОВ',
  'A',
  'А',
  'Hаличные',
  '😀',
  '👍🏽',
  '📦',
  'İ',
  'i̇',
  '   ',
  'склад',
  'СКЛАД',
  'ЗР',
  'пм',
  '000',
  'Труба',
  'a_slash_b',
  '_slash_',
  '_slash__slash_',
  '__slash__',
  '_SLASH_',
  '_slash',
  '/',
  '15/2025',
  'Договор № 15_slash_2025',
]
const substringWire = wire([
  '%ED%A0%80',
  '%C0%AF',
  '%C8%E2%E0%ED',
  '%CA%CF%C1',
  '%',
  '%2',
  '%zz',
  '%E0%A4%A',
  'a+b',
  'a%2Bb',
  '%20%20%20',
  '%F0%9F%98',
  '%FF%FE',
  '%EF%BF%BF',
  '%F4%90%80%80',
])
const long = fc.constantFrom('x'.repeat(2000), pct('я'.repeat(2000)), pct('%_'.repeat(1000)), pct('\\'.repeat(2000)), pct('📦'.repeat(500)))
const substringValue = fc.oneof(
  { arbitrary: text(SUBSTRINGS), weight: 4 },
  { arbitrary: substringWire, weight: 2 },
  { arbitrary: long, weight: 1 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map(pct), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map(pct), weight: 1 },
)

// ---- c.5 enumerations ----
const ENUMS = [
  'Наличные',
  'Безналичные',
  'наличные',
  'НАЛИЧНЫЕ',
  'нал',
  'Безнал',
  'безналичные ',
  'Hаличные',
  'наличные'.normalize('NFD'),
  'RUB',
  'руб.',
  '643',
  '₽',
  'USD',
  'Расчетный',
  'Иной',
]
const enumValue = text(ENUMS)

/** Any value at all: the whole catalogue, random text, and raw bytes. */
export const anyValue = fc.oneof(
  dateValue,
  booleanValue,
  numberValue,
  substringValue,
  enumValue,
  fc.uint8Array({ maxLength: 16 }).map(bytesOnWire),
  fc.string({ maxLength: 8 }).map(pct),
)

export type ValueKind = 'date' | 'boolean' | 'number' | 'year' | 'month' | 'substring' | 'enum'

const BY_KIND: Record<ValueKind, fc.Arbitrary<string>> = {
  date: dateValue,
  boolean: booleanValue,
  number: numberValue,
  year: text(YEARS),
  month: text(MONTHS),
  substring: substringValue,
  enum: enumValue,
}

/** The documented keys of an endpoint and the kind of value each expects. */
export function documentedKeys(ep: Endpoint): Map<string, ValueKind> {
  const keys = new Map<string, ValueKind>()
  if (ep.kind === 'list' && ep.period) {
    keys.set('from', 'date')
    keys.set('to', 'date')
    if (ep.period.date) keys.set('date', 'date')
  }
  for (const p of ep.params) {
    const kind: ValueKind = ['from', 'to', 'date'].includes(p.name)
      ? 'date'
      : p.name === 'year'
        ? 'year'
        : p.name === 'month'
          ? 'month'
          : ['kind', 'accountType', 'currency'].includes(p.name)
            ? 'enum'
            : p.stage === 'option' || (p.stage === 'database' && p.match === 'flag')
              ? 'boolean'
              : p.stage === 'database' && p.match === 'amount'
                ? 'number'
                : 'substring'
    for (const name of [p.name, ...(p.aliases ?? [])]) keys.set(name, kind)
  }
  return keys
}

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf']

/** Keys as a client might mangle them (c.6): case, brackets, encoding, NUL, prototype names. */
function keyArbitrary(documented: readonly string[]): fc.Arbitrary<string> {
  const name = fc.constantFrom(...documented)
  return fc.oneof(
    { arbitrary: name, weight: 8 },
    { arbitrary: name.map((k) => k.toUpperCase()), weight: 1 },
    { arbitrary: name.map((k) => k.charAt(0).toUpperCase() + k.slice(1)), weight: 1 },
    {
      arbitrary: name.chain((k) =>
        fc.constantFrom(
          `${k}[]`,
          `${k}[0]`,
          `${k}.x`,
          `${k}%00`,
          pct(k).replace(/^./, (c) => HEX(c.charCodeAt(0))),
        ),
      ),
      weight: 2,
    },
    {
      arbitrary: fc.constantFrom(
        ...PROTOTYPE_KEYS,
        '__proto__[polluted]',
        'constructor[prototype][polluted]',
        '__proto__.polluted',
        '',
        'foo',
      ),
      weight: 2,
    },
    { arbitrary: fc.string({ maxLength: 6 }).map(pct), weight: 1 },
  )
}

/** One `&`-separated segment. */
function segment(keys: ReadonlyMap<string, ValueKind>): fc.Arbitrary<string> {
  const documented = [...keys.keys()]
  const typed = fc.constantFrom(...documented).chain((k) => BY_KIND[keys.get(k)!].map((v) => `${k}=${v}`))
  const key = keyArbitrary(documented)
  return fc.oneof(
    { arbitrary: typed, weight: 6 },
    { arbitrary: fc.tuple(key, anyValue).map(([k, v]) => `${k}=${v}`), weight: 4 },
    { arbitrary: key, weight: 1 },
    { arbitrary: fc.tuple(key, anyValue).map(([k, v]) => `${k}==${v}`), weight: 1 },
    { arbitrary: fc.tuple(key, anyValue, anyValue).map(([k, v, w]) => `${k}=${v}=${w}`), weight: 1 },
    { arbitrary: fc.constantFrom('', '=', '=x', '&', ';', 'code=a;b', '%26', '%3D'), weight: 1 },
  )
}

/** A whole query string (without `?`) for an endpoint with these documented keys. */
export function queryArbitrary(keys: ReadonlyMap<string, ValueKind>): fc.Arbitrary<string> {
  const documented = keys.size > 0 ? keys : new Map<string, ValueKind>([['code', 'substring']])
  const structured = fc.array(segment(documented), { maxLength: 8 }).map((s) => s.join('&'))
  return fc.oneof(
    { arbitrary: structured, weight: 12 },
    // Repeated keys: the same key with two different values, either order.
    { arbitrary: fc.tuple(fc.constantFrom(...documented.keys()), anyValue, anyValue).map(([k, a, b]) => `${k}=${a}&${k}=${b}`), weight: 2 },
    { arbitrary: fc.webQueryParameters(), weight: 2 },
    { arbitrary: fc.uint8Array({ maxLength: 64 }).map(bytesOnWire), weight: 1 },
    // More keys than Node's querystring keeps (1,000).
    { arbitrary: fc.constantFrom(...documented.keys()).map((k) => `${'a=1&'.repeat(1200)}${k}=x`), weight: 1 },
  )
}

/** Every wire value of a kind, for table-driven checks (F3). */
export const INJECTION_CANARIES = [
  "' OR '1'='1",
  "'; DROP TABLE x;--",
  "%' --",
  '$1',
  '?',
  ':p',
  '@p',
  '/*',
  "\\'",
  "\\\\'",
  "\0'",
  '${7*7}',
  '{{7*7}}',
]
