import * as assert from 'node:assert/strict'
import { test } from 'node:test'
import { addDays, monthWindows, windowFilter } from '../../src/sync/windows.js'

test('month windows run from the earliest month to the current one, the last open-ended (§7.2)', () => {
  assert.deepEqual(monthWindows('2026-09-17T10:00:00', '2026-11-24', new Set()), [
    { id: '2026-09', from: '2026-09-01T00:00:00', to: '2026-10-01T00:00:00' },
    { id: '2026-10', from: '2026-10-01T00:00:00', to: '2026-11-01T00:00:00' },
    { id: '2026-11+', from: '2026-11-01T00:00:00' },
  ])
})

test('a year boundary and an earliest value in the current month', () => {
  assert.deepEqual(
    monthWindows('2025-12-31T23:59:59', '2026-01-05', new Set()).map((w) => w.id),
    ['2025-12', '2026-01+'],
  )
  assert.deepEqual(monthWindows('2026-11-02T00:00:00', '2026-11-24', new Set()), [{ id: '2026-11+', from: '2026-11-01T00:00:00' }])
})

test('an earliest value after the current month gives one open window from its month', () => {
  assert.deepEqual(monthWindows('2027-02-10T00:00:00', '2026-11-24', new Set()), [{ id: '2027-02+', from: '2027-02-01T00:00:00' }])
})

test('a month that needed more than 10 pages is read day by day; the current one up to today, today open-ended', () => {
  const w = monthWindows('2026-10-01T00:00:00', '2026-11-03', new Set(['2026-10', '2026-11']))
  assert.equal(w.length, 31 + 3)
  assert.deepEqual(w[0], { id: '2026-10-01', from: '2026-10-01T00:00:00', to: '2026-10-02T00:00:00' })
  assert.deepEqual(w[30], { id: '2026-10-31', from: '2026-10-31T00:00:00', to: '2026-11-01T00:00:00' })
  assert.deepEqual(w[33], { id: '2026-11-03+', from: '2026-11-03T00:00:00' })
})

test('window filters are the literal OData text of §7.1', () => {
  assert.equal(
    windowFilter('Date', { id: '2026-10', from: '2026-10-01T00:00:00', to: '2026-11-01T00:00:00' }),
    "Date ge datetime'2026-10-01T00:00:00' and Date lt datetime'2026-11-01T00:00:00'",
  )
  assert.equal(windowFilter('Period', { id: '2026-11+', from: '2026-11-01T00:00:00' }), "Period ge datetime'2026-11-01T00:00:00'")
  assert.equal(windowFilter('Date', { id: '*' }), undefined)
  assert.equal(addDays('2026-03-01', -45), '2026-01-15')
})
