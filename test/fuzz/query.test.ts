// reliability-battery.md (b) F1–F4 (with C1, C2 and I1 checks on every answer): whatever
// the query string, every data endpoint answers 200 with exactly {data, errors} and the
// same bytes on every engine; substring filters are literal and agree with a reference
// filter; injection text is only ever data; prototype names are nobody's business.
// FUZZ_RUNS and FUZZ_SEED: see config.ts.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { ENDPOINTS } from '../../src/endpoints/index.js'
import { BACKENDS, startApp } from '../support/app.js'
import type { TestApp, TestResponse } from '../support/app.js'
import { RUNS, SEED } from './config.js'
import { assertEnvelope, assertHealth, assertNotFound, decodedQuery, isValidDate, refContains, refFold } from './check.js'
import { NOW, fuzzFixture, pagedFixture, pagedWarehouses, storedPaymentNumbers, storedTransfers, storedWarehouses } from './fixture.js'
import { INJECTION_CANARIES, PROTOTYPE_KEYS, VALID_DATES, documentedKeys, pct, queryArbitrary } from './inputs.js'

const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

describe(`F1–F4: query strings against ${BACKENDS.join(', ')} (FUZZ_SEED=${SEED})`, () => {
  const apps: [string, TestApp][] = []
  before(async () => {
    for (const backend of BACKENDS) apps.push([backend, await startApp(fuzzFixture, { backend, now: () => NOW })])
  })
  after(async () => {
    for (const [, app] of apps) await app.close()
  })

  /** GETs `path` on every engine, checks each answer, and requires identical bodies. */
  async function everywhere(path: string, check: (res: TestResponse, backend: string) => void): Promise<TestResponse> {
    let first: [string, TestResponse] | undefined
    for (const [backend, app] of apps) {
      const res = await app.api(path)
      try {
        check(res, backend)
      } catch (err) {
        throw new Error(`${backend}: GET ${path.slice(0, 500)}\n${(err as Error).message}`)
      }
      if (!first) first = [backend, res]
      else assert.equal(res.body, first[1].body, `${backend} and ${first[0]} disagree on GET ${path.slice(0, 500)}`)
    }
    return first![1]
  }

  // What the server receives: the path as a client's URL parser leaves it.
  const received = (path: string): string => new URL(path, 'http://localhost').search.slice(1)

  for (const ep of ENDPOINTS) {
    const keys = documentedKeys(ep)
    const dateKeys = [...keys].filter(([, kind]) => kind === 'date').map(([k]) => k)
    it(`F1 ${ep.service}: any query string → 200 {data, errors}, identical on every engine`, async () => {
      await fc.assert(
        fc.asyncProperty(queryArbitrary(keys), async (query) => {
          const path = `/main/hs/${ep.service}/get?${query}`
          const { first, all } = decodedQuery(received(path))
          await everywhere(path, (res) => {
            const { errors } = assertEnvelope(res, all)
            for (const k of dateKeys) {
              const v = first.get(k)
              if (v !== undefined && v !== '' && !isValidDate(v))
                assert.ok(errors.length > 0, `invalid ${k}=${JSON.stringify(v)} gave no errors entry`)
            }
          })
        }),
        { numRuns: RUNS },
      )
    })
  }

  it('F1 concurrency: generated queries to every endpoint at once get the answers they get one by one', async () => {
    const one = fc
      .constantFrom(...ENDPOINTS)
      .chain((ep) => queryArbitrary(documentedKeys(ep)).map((q) => `/main/hs/${ep.service}/get?${q}`))
    await fc.assert(
      fc.asyncProperty(fc.array(one, { minLength: 10, maxLength: 40 }), async (paths) => {
        for (const [backend, app] of apps) {
          const together = await Promise.all(paths.map((p) => app.api(p)))
          for (const [i, path] of paths.entries()) {
            const alone = await app.api(path)
            assert.equal(together[i]!.status, 200, `${backend}: ${path}`)
            assert.equal(together[i]!.body, alone.body, `${backend}: concurrent answer differs for ${path}`)
          }
        }
      }),
      { numRuns: Math.max(5, Math.round(RUNS / 10)) },
    )
  })

  it('F1 health: any query string → 200 {"Статус":"API доступен"} without CORS', async () => {
    const keys = documentedKeys(ENDPOINTS.find((e) => e.service === 'payments')!)
    await fc.assert(
      fc.asyncProperty(queryArbitrary(keys), async (query) => {
        for (const [backend, app] of apps) {
          const res = await app.api(`/main/hs/health?${query}`)
          assert.doesNotThrow(() => assertHealth(res), `${backend}: health?${query.slice(0, 200)}`)
        }
      }),
      { numRuns: RUNS },
    )
  })

  // ---- F2: the LIKE oracle ----
  const ALPHABET = [...'%_\\\'"[]^*? ', ...'АБВЁЖЙКЛМНОПСТЯабвёжйклмнопстя', ...'ACKRSZacikrsz', ...'0129', '📦', '👍🏽', 'İ', '/']
  const fromAlphabet = fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 6 })
  /** A piece of a stored value with its letters' case flipped at random: a likely hit. */
  const pieceOf = (values: readonly string[]) =>
    fc.constantFrom(...values).chain((s) => {
      const chars = [...s]
      return fc
        .tuple(fc.nat(chars.length), fc.nat(chars.length), fc.array(fc.boolean(), { minLength: chars.length, maxLength: chars.length }))
        .map(([a, b, flips]) =>
          chars
            .slice(Math.min(a, b), Math.max(a, b))
            .map((c, i) => (flips[i] ? c.toUpperCase() : c.toLowerCase()))
            .join(''),
        )
    })
  const needles = (values: readonly string[]) =>
    fc.oneof(
      { arbitrary: fromAlphabet, weight: 3 },
      { arbitrary: pieceOf(values), weight: 3 },
      { arbitrary: fc.constantFrom('\0', '%\0', 'a\\', '\\'), weight: 1 },
    )

  const oracles = [
    { service: 'warehouses', key: 'code', field: 'Код', stored: storedWarehouses.map((w) => w.code) },
    { service: 'warehouses', key: 'name', field: 'Наименование', stored: storedWarehouses.map((w) => w.name) },
    { service: 'payments', key: 'code', field: 'Номер', stored: storedPaymentNumbers },
  ]
  for (const { service, key, field, stored } of oracles) {
    it(`F2 ${service} ${key}: the result equals a literal, case-folded substring filter`, async () => {
      await fc.assert(
        fc.asyncProperty(needles(stored), async (needle) => {
          const res = await everywhere(`/main/hs/${service}/get?${key}=${pct(needle)}`, (r) => assertEnvelope(r, [needle]))
          const got = (JSON.parse(res.body).data as Record<string, string>[]).map((row) => row[field]!).sort(byCode)
          assert.deepEqual(got, stored.filter((s) => refContains(s, needle)).sort(byCode), `needle ${JSON.stringify(needle)}`)
        }),
        { numRuns: RUNS * 2 },
      )
    })
  }

  it('F2 transfers period: date, and from with to, select exactly the stored days in range', async () => {
    const iso = (v: string) => (/^\d{4}/.test(v) ? v : `${v.slice(6)}-${v.slice(3, 5)}-${v.slice(0, 2)}`)
    const days = fc.constantFrom(
      ...VALID_DATES,
      ...storedTransfers.filter((t) => t.date).map((t) => t.date.slice(0, 10)),
      '2026-03-04',
      '2026-03-06',
    )
    const spelled = days.chain((d) => {
      const i = iso(d)
      const [y, m, dd] = [i.slice(0, 4), i.slice(5, 7), i.slice(8, 10)]
      return fc.constantFrom(i, `${dd}.${m}.${y}`, `${dd}-${m}-${y}`)
    })
    const query = fc.oneof(
      spelled.map((d) => ({ date: d })),
      fc.tuple(spelled, spelled).map(([from, to]) => ({ from, to })),
    )
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const [lo, hi] = 'date' in q ? [iso(q.date), iso(q.date)] : [iso(q.from), iso(q.to)]
        const res = await everywhere(`/main/hs/transfers/get?${new URLSearchParams(q)}`, (r) =>
          assert.deepEqual(assertEnvelope(r).errors, []),
        )
        const got = (JSON.parse(res.body).data as { Номер: string }[]).map((t) => t.Номер).sort(byCode)
        const want = storedTransfers
          .filter((t) => t.date !== '' && t.date.slice(0, 10) >= lo && t.date.slice(0, 10) <= hi)
          .map((t) => t.number)
        assert.deepEqual(got, want.sort(byCode), JSON.stringify(q))
      }),
      // Found by this property: the last day's exclusive end was `10000-01-01`.
      { numRuns: RUNS, examples: [[{ date: '31.12.9999' }], [{ from: '2024-02-01', to: '9999-12-31' }]] },
    )
  })

  // Found by F1: kopecks past 2^53 (`Infinity` for 400 digits) were bound to PostgreSQL's
  // BIGINT column and failed with 500 there, while SQLite answered 200.
  it('F1 regression: an amount beyond 2^53 kopecks matches nothing on every engine', async () => {
    for (const service of ['payments', 'receipts', 'orders', 'sorders']) {
      for (const summ of ['99999999999999999999', `-${'9'.repeat(400)}`, '90071992547409.92', '1'.repeat(2000)]) {
        const res = await everywhere(`/main/hs/${service}/get?summ=${summ}`, (r) => assertEnvelope(r))
        assert.equal(res.body, '{"data":[],"errors":[]}', `${service} summ=${summ.slice(0, 30)}`)
      }
    }
  })

  // ---- F3: injection canaries into every substring, number and date parameter ----
  it('F3 canaries are data: 200, same on every engine, never more rows than no filter', async () => {
    for (const ep of ENDPOINTS) {
      const baseline = assertEnvelope(await apps[0]![1].api(`/main/hs/${ep.service}/get`)).data.length
      for (const [key, kind] of documentedKeys(ep)) {
        if (kind === 'boolean') continue
        for (const canary of INJECTION_CANARIES) {
          const res = await everywhere(`/main/hs/${ep.service}/get?${key}=${pct(canary)}`, (r) =>
            assertEnvelope(r, [canary, canary.replaceAll('_slash_', '/')]),
          )
          const data = JSON.parse(res.body).data as unknown[]
          assert.ok(data.length <= baseline, `${ep.service} ${key}=${canary}: ${data.length} rows, ${baseline} without the filter`)
        }
      }
    }
  })

  // ---- F4: prototype names as paths, keys and values ----
  it('F4 prototype names as services are 404 with or without credentials; other odd paths are 404 too', async () => {
    const paths = [
      ...PROTOTYPE_KEYS.map((name) => `/main/hs/${name}/get`),
      '/main/hs/payments/get/',
      '//main/hs/payments/get',
      '/main/hs/PAYMENTS/get',
      '/main/hs/payments/get;x',
      '/main/hs/health/get',
      '/main/hs/payments',
      '/main/hs/',
      '/metrics',
      '/debug',
      '/.env',
      '/main/hs/__proto__/get?__proto__[x]=1',
      // /docs is the reference page now; what Scalar would add beside it is not a route.
      '/docs/index.html',
      '/docs/openapi.json',
      '/docs/openapi.yaml',
      // Paths the router cannot decode, and a service name over its 100-character limit:
      // Fastify answered these itself (400/414, without the headers every answer carries).
      '/main/hs/%E4%E0/get',
      '/main/hs/%zz/get',
      '/main/hs/payments/get%zz',
      '/%zz',
      '/main/hs/health%',
      `/main/hs/${'x'.repeat(200)}/get`,
    ]
    for (const [backend, app] of apps) {
      for (const path of paths) {
        for (const res of [await app.api(path), await app.get(path), await app.request('OPTIONS', path)]) {
          assert.doesNotThrow(() => assertNotFound(res), `${backend}: ${path}: ${res.status} ${res.body.slice(0, 200)}`)
        }
      }
    }
  })

  it('I1 percent-encoded unreserved characters in the path name the same route (RFC 3986 §6.2.2.2)', async () => {
    for (const [path, same] of [
      ['/main/hs/payments/%67et', '/main/hs/payments/get'],
      ['/main/hs/%77arehouses/get', '/main/hs/warehouses/get'],
      ['/main/hs/%68ealth', '/main/hs/health'],
    ] as const) {
      const plain = (await apps[0]![1].api(same)).body
      const res = await everywhere(path, (r) => (same.endsWith('health') ? assertHealth(r) : assertEnvelope(r)))
      assert.equal(res.body, plain, path)
    }
  })

  it('F4 prototype names as query keys are ignored and as values are plain text; nothing is polluted', async () => {
    const keys = [
      ...PROTOTYPE_KEYS,
      '__proto__[polluted]',
      'constructor[prototype][polluted]',
      '__proto__.polluted',
      'code[__proto__][polluted]',
    ]
    const junk = keys.map((k) => `${pct(k)}=1`).join('&')
    for (const ep of ENDPOINTS) {
      const plain = (await apps[0]![1].api(`/main/hs/${ep.service}/get`)).body
      const res = await everywhere(`/main/hs/${ep.service}/get?${junk}`, (r) => assertEnvelope(r))
      assert.equal(res.body, plain, `${ep.service}: prototype keys changed the answer`)
      for (const [key] of documentedKeys(ep)) {
        for (const name of PROTOTYPE_KEYS) await everywhere(`/main/hs/${ep.service}/get?${key}=${name}`, (r) => assertEnvelope(r, [name]))
      }
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined)
    assert.equal(Object.hasOwn(Object.prototype, 'polluted'), false)
    assert.equal(typeof ({} as object).toString, 'function')
  })
})

// Past one 500-row page: the keyset continuation, the post-filter-free fast path and the
// name sort (case-insensitive, `ё` beside `е`, ties by reference) must agree everywhere.
describe(`F2 pages: 1,234 warehouses on ${BACKENDS.join(', ')} (FUZZ_SEED=${SEED})`, () => {
  const rows = pagedWarehouses(1234)
  const apps: [string, TestApp][] = []
  before(async () => {
    for (const backend of BACKENDS) apps.push([backend, await startApp(pagedFixture(rows), { backend })])
  })
  after(async () => {
    for (const [, app] of apps) await app.close()
  })
  // Code-point order of the folded name, `ё` just after `е` (decision "Sort by name").
  const sortKey = (name: string) => Buffer.from(refFold(name).replace(/ё/g, 'е\u0001'), 'utf8')

  it('name and group select exactly the reference rows, in name order, identically on every engine', async () => {
    const letter = fc.constantFrom(...'аАеЁёяZz0%_\\ ', '📦')
    // An empty name is no filter: every row, over three pages.
    const name = fc.oneof(
      fc.constant(''),
      letter,
      fc.tuple(letter, letter).map(([a, b]) => a + b),
    )
    const query = fc.record({ name, group: fc.constantFrom(undefined, 'true', 'нет') })
    await fc.assert(
      fc.asyncProperty(query, async ({ name, group }) => {
        const path = `/main/hs/warehouses/get?name=${pct(name)}${group ? `&group=${pct(group)}` : ''}`
        let first: string | undefined
        for (const [backend, app] of apps) {
          const res = await app.api(path)
          const data = assertEnvelope(res, [name]).data as { Код: string; Наименование: string }[]
          const want = rows.filter((w) => refContains(w.name, name) && (group === undefined || w.group === (group === 'true')))
          assert.deepEqual(data.map((w) => w.Код).sort(byCode), want.map((w) => w.code).sort(byCode), `${backend}: ${path}`)
          for (let i = 1; i < data.length; i++) {
            assert.ok(
              Buffer.compare(sortKey(data[i - 1]!.Наименование), sortKey(data[i]!.Наименование)) <= 0,
              `${backend}: ${path}: order at ${i}`,
            )
          }
          if (first === undefined) first = res.body
          else assert.equal(res.body, first, `${backend} disagrees on ${path}`)
        }
      }),
      { numRuns: Math.min(RUNS, 300), examples: [[{ name: '', group: undefined }], [{ name: '', group: 'нет' }]] },
    )
  })
})
