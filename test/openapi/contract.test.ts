// The response-shape check every HTTP suite runs (test/support/contract.ts) must itself
// fail on a renamed, added or missing field, on a null, and on a wrong envelope.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ENDPOINTS } from '../../src/endpoints/index.js'
import { checkAnswer } from '../support/contract.js'

const WAREHOUSE = { Код: '000000001', Наименование: 'Основной склад', ЭтоГруппа: false }
const body = (data: unknown[], errors: unknown[] = []) => JSON.stringify({ data, errors })
const check =
  (b: string, path = '/main/hs/warehouses/get') =>
  () =>
    checkAnswer('GET', path, 200, b)

describe('declared response shapes', () => {
  it('every endpoint declares a short shape with an id, and a full one where it has a full option', () => {
    for (const e of ENDPOINTS) {
      assert.ok(e.response.short.$id, e.service)
      assert.equal(
        e.response.full !== undefined,
        e.params.some((p) => p.name === 'full'),
        e.service,
      )
    }
  })
  it('a printed item as declared passes', () => assert.doesNotThrow(check(body([WAREHOUSE], ['Неверный формат даты']))))
  it('a renamed field fails', () => {
    const { Наименование, ...rest } = WAREHOUSE
    assert.throws(check(body([{ ...rest, Имя: Наименование }])), /does not match/)
  })
  it('an added field fails', () => assert.throws(check(body([{ ...WAREHOUSE, Родитель: '' }])), /does not match/))
  it('a null fails', () => assert.throws(check(body([{ ...WAREHOUSE, Код: null }])), /does not match/))
  it('an errors entry that is not a string fails, and so does a missing errors', () => {
    assert.throws(check(body([], [{ text: 'x' }])), /does not match/)
    assert.throws(check(JSON.stringify({ data: [] })), /does not match/)
  })
  it('a date outside ДД.ММ.ГГГГ fails', () => {
    const item = { Номер: 'ТН-1', Дата: '2024-11-20', Склад: '', Ответственный: '', Комментарий: '', Материалы: '2 позиции' }
    assert.throws(check(body([item]), '/main/hs/demands/get?code=1'), /does not match/)
    assert.doesNotThrow(check(body([{ ...item, Дата: '20.11.2024' }]), '/main/hs/demands/get?code=1'))
  })
  it('a materials group holds its children recursively', () => {
    const element = {
      Код: '2',
      Наименование: 'Болт',
      Артикул: '',
      ЭтоГруппа: false,
      Услуга: false,
      ЕдиницаИзмерения: 'шт',
      ВидНоменклатуры: 'Материал',
      НоменклатурнаяГруппа: 'Крепеж',
      ОсновнойПоставщик: '',
    }
    const tree = {
      Код: '1',
      Наименование: 'Материалы',
      ЭтоГруппа: true,
      Дети: [{ Код: '3', Наименование: 'Крепеж', ЭтоГруппа: true, Дети: [element] }],
    }
    assert.doesNotThrow(check(body([tree]), '/main/hs/materials/get'))
    assert.throws(check(body([{ ...tree, Дети: [{ ...element, Артикул: 1 }] }]), '/main/hs/materials/get'), /does not match/)
  })
  it('other statuses and paths are not checked', () => {
    assert.doesNotThrow(() => checkAnswer('GET', '/main/hs/warehouses/get', 500, '{"error":"x"}'))
    assert.doesNotThrow(() => checkAnswer('GET', '/main/hs/health', 200, '{"Статус":"API доступен"}'))
  })
})
