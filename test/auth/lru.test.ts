import { test } from 'node:test'
import * as assert from 'node:assert/strict'
import { LruMap } from '../../src/auth/lru.js'

test('LruMap: evicts the least recently used entry beyond capacity', () => {
  const lru = new LruMap<string, number>(2)
  lru.set('a', 1)
  lru.set('b', 2)
  assert.equal(lru.get('a'), 1) // 'a' is now newer than 'b'
  lru.set('c', 3)
  assert.equal(lru.size, 2)
  assert.equal(lru.get('b'), undefined)
  assert.equal(lru.get('a'), 1)
  assert.equal(lru.get('c'), 3)
})

test('LruMap: re-setting a key refreshes it and does not grow the map', () => {
  const lru = new LruMap<string, number>(2)
  lru.set('a', 1)
  lru.set('b', 2)
  lru.set('a', 10)
  lru.set('c', 3)
  assert.equal(lru.size, 2)
  assert.equal(lru.get('a'), 10)
  assert.equal(lru.get('b'), undefined)
})

test('LruMap: stays at capacity under 100,000 distinct keys', () => {
  const lru = new LruMap<string, number>(1000)
  for (let i = 0; i < 100_000; i++) lru.set(`user-${i}`, i)
  assert.equal(lru.size, 1000)
  assert.equal(lru.get('user-98999'), undefined)
  assert.equal(lru.get('user-99000'), 99_000)
})

test('LruMap: delete, and a capacity below 1 is refused', () => {
  const lru = new LruMap<string, number>(1)
  lru.set('a', 1)
  assert.equal(lru.delete('a'), true)
  assert.equal(lru.delete('a'), false)
  assert.throws(() => new LruMap(0), RangeError)
})
