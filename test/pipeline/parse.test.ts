import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { YES } from '../../src/endpoints/define.js'
import type { Param } from '../../src/endpoints/define.js'
import { parseDay } from '../../src/values/dates.js'
import { parseRequest, queryPairs } from '../../src/endpoints/parse.js'

const params: Param[] = [
  { name: 'full', stage: 'option', truthy: YES },
  { name: 'FULLCI', stage: 'option', truthy: YES, keyCaseInsensitive: true },
  { name: 'closed', stage: 'option', truthy: YES, falsy: ['0', 'false', 'no', 'нет'] },
  { name: 'contract', stage: 'post-filter', match: 'contains', column: 'contract_f', slash: true },
  { name: 'code', stage: 'database', match: 'contains', column: 'number_f' },
  { name: 'contractor', aliases: ['contactor', 'supplier'], stage: 'post-filter', match: 'contains', column: 'c_f' },
]
const spec = { params, period: { column: 'date', date: true } }
const parse = (q: string) => parseRequest(spec, queryPairs(q))

describe('parameter parsing', () => {
  for (const v of ['1', 'true', 'yes', 'да', 'TRUE', 'Yes', 'ДА', '%D0%B4%D0%B0']) {
    it(`boolean ${v} is true`, () => assert.equal(parse(`full=${v}`).options.full, true))
  }
  for (const v of ['0', 'false', 'no', 'нет', 'on', 'y', 'tru', 'yes!', '2', '%E4%E0']) {
    it(`boolean ${v} is false`, () => assert.equal(parse(`full=${v}`).options.full, false))
  }

  it('a key marked case-insensitive matches any case; others do not', () => {
    assert.equal(parse('fullci=1').options.FULLCI, true)
    assert.equal(parse('FULL=1').options.full, undefined)
  })

  it('a boolean with a false set reports values in neither set', () => {
    assert.equal(parse('closed=нет').options.closed, false)
    assert.equal(parse('closed=НЕТ').options.closed, false)
    const r = parse('closed=maybe')
    assert.equal(r.options.closed, undefined)
    assert.deepEqual(r.issues, ['Неверное значение параметра closed: "maybe"'])
  })

  it('_slash_ is / only on parameters that document it', () => {
    const r = parse('contract=15_slash_2025&code=a_slash_b')
    assert.equal(r.values.get('contract'), '15/2025')
    assert.equal(r.values.get('code'), 'a_slash_b')
    assert.equal(parse('contract=_slash__slash_x_y').values.get('contract'), '//x_y')
  })

  it('aliases: the first given name in the query wins', () => {
    assert.equal(parse('supplier=Б&contractor=А').values.get('contractor'), 'Б')
    assert.equal(parse('contactor=В').values.get('contractor'), 'В')
  })

  it('+ is a space and %2B is a plus', () => {
    assert.equal(parse('code=a+b').values.get('code'), 'a b')
    assert.equal(parse('code=a%2Bb').values.get('code'), 'a+b')
  })

  it('the three date formats name the same day', () => {
    for (const q of ['from=01.02.2024&to=29.02.2024', 'from=2024-02-01&to=2024-02-29', 'from=01-02-2024&to=29-02-2024']) {
      assert.deepEqual(parse(q).ranges, [{ from: '2024-02-01', toExclusive: '2024-03-01' }])
    }
    assert.deepEqual(parse('date=31.12.2024').ranges, [{ from: '2024-12-31', toExclusive: '2025-01-01' }])
  })

  it('the last day, 31.12.9999, ends after its last second (10000-01-01 would sort before it)', () => {
    assert.deepEqual(parse('date=31.12.9999').ranges, [{ from: '9999-12-31', toExclusive: '9999-12-31T24' }])
    assert.deepEqual(parse('from=01.01.0001&to=9999-12-31').ranges, [{ from: '0001-01-01', toExclusive: '9999-12-31T24' }])
  })

  it('an invalid date adds an errors entry and selects nothing by it', () => {
    const r = parse('date=31.04.2024')
    assert.deepEqual(r.ranges, [])
    assert.deepEqual(r.issues, ['Неверный формат даты в параметре date: "31.04.2024" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)'])
  })

  it('from and to work only together: alone, no filter and no errors entry', () => {
    const r = parse('from=01.02.2024')
    assert.deepEqual(r.ranges, [])
    assert.deepEqual(r.issues, [])
  })

  for (const bad of [
    '29.02.2023',
    '00.01.2024',
    '32.01.2024',
    '01.13.2024',
    '2024-02-31',
    '1.2.2024',
    '2024/01/01',
    '20240201',
    ' 01.02.2024',
    '01.02.24',
    '0000-01-01',
    '2024-02-01T00:00:00Z',
  ]) {
    it(`${JSON.stringify(bad)} is not a date`, () => assert.equal(parseDay(bad), undefined))
  }
  it('29.02.2024 and 01.01.0001 are dates', () => {
    assert.deepEqual(parseDay('29.02.2024'), { year: 2024, month: 2, day: 29 })
    assert.deepEqual(parseDay('01.01.0001'), { year: 1, month: 1, day: 1 })
  })
})
