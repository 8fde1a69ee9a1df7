import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { basicAuthorization } from '../src/credentials.js'

describe('basicAuthorization', () => {
  it('encodes a Cyrillic user name and password as UTF-8 before Base64', () => {
    assert.equal(basicAuthorization('Иван Петров', 'пароль№1'), 'Basic 0JjQstCw0L0g0J/QtdGC0YDQvtCyOtC/0LDRgNC+0LvRjOKEljE=')
  })
  it('keeps ASCII credentials as every HTTP tool sends them', () => {
    assert.equal(basicAuthorization('demo', 'demo'), 'Basic ZGVtbzpkZW1v')
  })
  it('keeps a colon in the password and an empty password', () => {
    assert.equal(basicAuthorization('a', 'b:c'), 'Basic YTpiOmM=')
    assert.equal(basicAuthorization('Ёж', ''), 'Basic 0IHQtjo=')
  })
  it('encodes a password longer than one call can spread', () => {
    const password = 'я'.repeat(100_000)
    assert.equal(basicAuthorization('u', password), `Basic ${Buffer.from(`u:${password}`, 'utf8').toString('base64')}`)
  })
  it('refuses a user name with a colon, which Basic cannot carry', () => {
    assert.throws(() => basicAuthorization('a:b', 'c'), { name: 'TypeError', message: 'An HTTP Basic user name cannot contain ":"' })
  })
})
