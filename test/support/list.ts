// Requests to a list endpoint with readable queries: Cyrillic and spaces are encoded, the
// rest (`%25`, `_slash_`, `&`) is sent as written.
import assert from 'node:assert/strict'
import type { TestApp } from './app.js'

export const listPath = (path: string, query: string): string => `${path}?${query.replace(/[а-яёА-ЯЁ№ ]+/g, (s) => encodeURIComponent(s))}`

/** `expect(query, data, errors)`: the whole envelope of a 200 answer. `app` is read at call time (suites start it in `before`). */
export function expectList(app: () => TestApp, path: string) {
  return async (query: string, data: readonly unknown[], errors: readonly string[] = []): Promise<void> => {
    const res = await app().api(listPath(path, query))
    assert.equal(res.status, 200)
    assert.deepEqual(res.json, { data, errors })
  }
}
