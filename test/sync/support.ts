// Shared by the sync guarantee tests: the demo objects, a fake 1C serving them, a sync run
// with its output captured, the import form §4 derives from the same objects, a dump of
// every table the API reads, and the API's answers to a battery of requests.
import { createApp } from '../../src/app/create.js'
import { Authenticator } from '../../src/auth/authenticator.js'
import { hashPassword } from '../../src/auth/password.js'
import { sync } from '../../src/cli/sync.js'
import type { SyncFlags } from '../../src/cli/sync.js'
import { demoFiles } from '../../src/demo/generate.js'
import { READ_MODELS, VIEWS } from '../../src/endpoints/index.js'

import { modelTables } from '../../src/store/schema.js'
import type { SqlPort } from '../../src/store/sql.js'
import { UserSnapshot } from '../../src/users/directory.js'
import { putUser } from '../../src/users/store.js'
import type { Sink } from '../../src/sync/output.js'

export type Obj = Record<string, unknown>

/** Small enough for three engines, large enough for every shape (1,310 objects). */
export const demoObjects = (): Obj[] => demoFiles({ scale: 0.05, seed: 1 }).flatMap((f) => [...f.objects()]) as Obj[]

export interface Run {
  readonly code: number
  readonly out: string[]
  readonly err: string[]
}

export const TODAY = '2026-11-24'

export async function runSync(sql: SqlPort, flags: Partial<SyncFlags>, signal?: AbortSignal): Promise<Run> {
  const out: string[] = []
  const err: string[] = []
  const sink: Sink = { out: (l) => out.push(l), err: (l) => err.push(l) }
  const code = await sync({ db: 'unused', ...flags }, { sink, sql, retryDelaysMs: [1, 1, 1, 1], today: () => TODAY, signal })
  return { code, out, err }
}

const OTHER = new Set([
  'Документ.ЗаявкаНаРасходованиеСредств',
  'Документ.ПоступлениеТоваровУслуг',
  'Документ.ЗаказПокупателя',
  'Документ.ЗаказПоставщику',
  'Документ.ПеремещениеТоваров',
  'Документ.ЗаказНаПроизводство',
  'Документ.ТребованиеНакладная',
])
const ATTACHMENT_OWNERS = new Set(['Документ.ЗаявкаНаРасходованиеСредств', 'Документ.ПоступлениеТоваровУслуг', 'Документ.ЗаказПоставщику'])

/**
 * The NDJSON of guarantee 1: what §4 makes of these objects when the base publishes the
 * optional attributes (a customised base, `custom`): cash desks are never closed, only
 * the three owners' attachments, only document types that occur as a basis, a deal or a
 * recorder, and register lines only for recorders with movements.
 */
export function expectedFromSource(objects: readonly Obj[]): Obj[] {
  const kept = new Set<string>()
  for (const o of objects) {
    for (const key of ['ДокументОснование', 'Сделка']) {
      const v = o[key] as { type?: string } | null | undefined
      if (v && typeof v === 'object' && v.type) kept.add(v.type)
    }
    if (String(o.type).startsWith('РегистрНакопления.') && (o['Движения'] as unknown[]).length > 0) {
      kept.add((o['Регистратор'] as { type: string }).type)
    }
  }
  const out: Obj[] = []
  for (const o of objects) {
    const type = String(o.type)
    if (type.startsWith('Документ.') && !OTHER.has(type) && !kept.has(type)) continue
    if (type === 'Справочник.Кассы') {
      out.push({ ...o, Закрыт: false })
      continue
    }
    if (type === 'Справочник.ХранилищеДополнительнойИнформации') {
      const owner = (o['Объект'] as { type?: string } | null)?.type
      if (!owner || !ATTACHMENT_OWNERS.has(owner)) continue
    }
    if (type.startsWith('РегистрНакопления.') && (o['Движения'] as unknown[]).length === 0) continue
    out.push(o)
  }
  return out
}

const round = (v: unknown): unknown =>
  typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 1e6) / 1e6 : Buffer.isBuffer(v) ? v.toString('base64') : v

/** Every table the API reads (model, read models, derived), rows in key order. */
export async function dump(sql: SqlPort): Promise<Record<string, unknown[]>> {
  const tables = [
    ...modelTables()
      .filter((t) => t.name !== 'users' && t.name !== 'meta')
      .map((t) => ({ name: t.name, key: t.primaryKey })),
    ...READ_MODELS.map((m) => ({ name: m.table, key: m.rowKey ? ['ref', m.rowKey] : ['ref'] })),
    ...VIEWS.derived.flatMap((d) => d.tables.map((t) => ({ name: t.name, key: t.primaryKey }))),
  ]
  const out: Record<string, unknown[]> = {}
  for (const t of tables) {
    const rows = await sql.all<Record<string, unknown>>(`SELECT * FROM ${t.name} ORDER BY ${t.key.join(', ')}`)
    out[t.name] = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v)])))
  }
  return out
}

const PERIOD = 'from=01.01.2020&to=31.12.2030'
export const REQUESTS: readonly string[] = [
  '/main/hs/health',
  ...['payments', 'receipts', 'orders', 'sorders', 'transfers', 'morders', 'demands'].flatMap((s) => [
    `/main/hs/${s}/get?${PERIOD}`,
    `/main/hs/${s}/get?${PERIOD}&full=true`,
  ]),
  '/main/hs/specifications/get',
  '/main/hs/specifications/get?full=true',
  '/main/hs/warehouses/get',
  '/main/hs/materials/get',
  `/main/hs/cashflows/get?${PERIOD}`,
  `/main/hs/cashflows/get?${PERIOD}&totals=true&mgmt=true`,
]

/** The API's answers (status and body) to REQUESTS over a store, as `docgate serve` gives them. */
export async function answers(sql: SqlPort): Promise<string[]> {
  await putUser(sql, 'reader', await hashPassword('пароль', { logN: 10 }), ['*'])
  const users = new UserSnapshot(sql)
  await users.start()
  const app = await createApp({
    sql,
    auth: new Authenticator({ users, dummyHash: await hashPassword('x', { logN: 10 }) }),
    logger: false,
    now: () => new Date('2026-11-24T12:00:00'),
  })
  await app.ready()
  const auth = { authorization: `Basic ${Buffer.from('reader:пароль', 'utf8').toString('base64')}` }
  try {
    const out: string[] = []
    for (const url of REQUESTS) {
      const res = await app.inject({ method: 'GET', url, headers: auth })
      out.push(`${url} → ${res.statusCode} ${res.body}`)
    }
    return out
  } finally {
    users.stop()
    await app.close()
  }
}
