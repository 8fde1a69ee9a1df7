import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { rowsSummary } from '../../src/values/plural.js'
import { documentKind, numberDate, orLiteral, round2, summary } from '../../src/values/printed.js'

describe('printed forms', () => {
  const cases: [number, string][] = [
    [0, '0 позиций'],
    [1, '1 позиция'],
    [2, '2 позиции'],
    [3, '3 позиции'],
    [4, '4 позиции'],
    [5, '5 позиций'],
    [11, '11 позиций'],
    [12, '12 позиций'],
    [14, '14 позиций'],
    [21, '21 позиция'],
    [22, '22 позиции'],
    [25, '25 позиций'],
    [101, '101 позиция'],
    [111, '111 позиций'],
    [112, '112 позиций'],
    [1001, '1001 позиция'],
  ]
  for (const [n, text] of cases) it(`${n} → ${text}`, () => assert.equal(rowsSummary(n), text))

  it('summary object', () => {
    assert.deepEqual(summary(0), { Есть: false, Количество: 0 })
    assert.deepEqual(summary(2), { Есть: true, Количество: 2 })
  })
  it('document kind and number-date', () => {
    assert.equal(documentKind('Документ.ЗаказПоставщику'), 'ЗаказПоставщику')
    assert.equal(numberDate('ЗП-0001', '2024-03-05T10:00:00'), 'ЗП-0001 от 05.03.2024')
  })
  it('rounds half away from zero to kopecks', () => {
    assert.equal(round2(1.005), 1.01)
    assert.equal(round2(-1.005), -1.01)
    assert.equal(round2(0.1 + 0.2), 0.3)
    assert.equal(round2(2.675), 2.68)
  })
  it('empty text takes the literal', () => {
    assert.equal(orLiteral('', 'Не указан'), 'Не указан')
    assert.equal(orLiteral('Иванов', 'Не указан'), 'Иванов')
  })
})
