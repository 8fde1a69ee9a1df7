// `npm run bench:cashflows`: the cash statement over a register of BENCH_MOVEMENTS
// movements (default 10,000,000) on 120 accounts of 5 organizations over 10 years,
// imported through the import path (record sets of 10 movements, in chronological
// transactions of 500,000 movements, so the derived turnovers are updated incrementally as
// in production). Then: sequential request times against a served database, the time of
// re-importing one record set, of a full rebuild of the turnovers, and of the same
// statement computed straight from the register (what the turnovers save).
// Environment: BENCH_MOVEMENTS, BENCH_RUNS (default 7), BENCH_KEEP (keep the database),
// BENCH_DB (an existing bench database: skip the generation).
import { rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { hashPassword } from '../src/auth/password.js'
import { cashTurnovers } from '../src/views/cash/turnovers.js'
import { importEntries } from '../src/import/run.js'
import { openWritable } from '../src/app/store.js'
import type { SqlPort } from '../src/store/sql.js'
import { putUser } from '../src/users/store.js'
import { benchDir, startProcess } from './harness.js'
import { seconds, timeRequest } from './timing.js'

const total = Number(process.env.BENCH_MOVEMENTS ?? '10000000')
const runs = Number(process.env.BENCH_RUNS ?? '7')
const CHUNK = 500_000
const PER_SET = 10
const ORGS = 5
const BANK_ACCOUNTS = 20
const CASH_DESKS = 4
const FIRST_YEAR = 2016
const YEARS = 10
const C = 'Справочник.'
const id = (kind: number, n: number) => `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
const pad = (n: number) => String(n).padStart(2, '0')

interface Account {
  readonly ref: string
  readonly type: string
  readonly org: string
}

const accounts: Account[] = []
function* catalogues(): Generator<unknown> {
  for (let b = 0; b < 10; b++) yield { type: `${C}Банки`, ref: id(2, b), Наименование: `Банк ${b}` }
  yield { type: `${C}Валюты`, ref: id(3, 0), Наименование: 'руб.' }
  yield { type: `${C}Валюты`, ref: id(3, 1), Наименование: 'USD' }
  for (let o = 0; o < ORGS; o++) {
    const org = id(1, o)
    yield { type: `${C}Организации`, ref: org, Наименование: `ООО Организация ${o}` }
    for (let a = 0; a < BANK_ACCOUNTS; a++) {
      const ref = id(4, o * 100 + a)
      accounts.push({ ref, type: `${C}БанковскиеСчета`, org })
      yield {
        type: `${C}БанковскиеСчета`,
        ref,
        Наименование: `Счет ${o}.${a}`,
        Владелец: org,
        Банк: id(2, a % 10),
        ВидСчета: a % 5 === 0 ? 'Иной' : 'Расчетный',
        ВалютаДенежныхСредств: id(3, a % 7 === 0 ? 1 : 0),
        Закрыт: a === 19,
      }
    }
    for (let k = 0; k < CASH_DESKS; k++) {
      const ref = id(5, o * 100 + k)
      accounts.push({ ref, type: `${C}Кассы`, org })
      yield { type: `${C}Кассы`, ref, Наименование: `Касса ${o}.${k}`, Владелец: org, ВалютаДенежныхСредств: id(3, 0), Закрыт: false }
    }
  }
}

/** Recorders get sequential UUIDs, so the register's key index grows at its end. */
const recordSet = (n: number, moves: unknown[]) => ({
  type: 'РегистрНакопления.ДенежныеСредства',
  Регистратор: { type: 'Документ.ПлатежноеПоручениеВходящее', ref: id(0x10000000 + Math.floor(n / 2 ** 24), n % 2 ** 24) },
  Движения: moves,
})

/** Record sets in chronological order: each day's movements spread over the accounts. */
function* recordSets(): Generator<unknown> {
  const start = Date.UTC(FIRST_YEAR, 0, 1)
  const days = Math.round((Date.UTC(FIRST_YEAR + YEARS, 0, 1) - start) / 86_400_000)
  const sets = Math.ceil(total / PER_SET)
  let x = 1
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648
  for (let s = 0; s < sets; s++) {
    const d = new Date(start + Math.floor((s * days) / sets) * 86_400_000)
    const day = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
    const account = accounts[s % accounts.length]!
    const moves = []
    for (let m = 0; m < PER_SET && s * PER_SET + m < total; m++) {
      const amount = Math.round(rnd() * 10_000_000) / 100
      moves.push({
        Период: `${day}T${pad(8 + (m % 10))}:${pad((s + m) % 60)}:00`,
        ВидДвижения: rnd() < 0.52 ? 'Приход' : 'Расход',
        Организация: account.org,
        БанковскийСчетКасса: { type: account.type, ref: account.ref },
        Сумма: amount,
        СуммаУпр: Math.round(amount * 90) / 100,
      })
    }
    yield recordSet(s, moves)
  }
}

async function generate(db: string): Promise<void> {
  const sql = await openWritable(db)
  let line = 0
  // Takes up to `limit` values without closing the source (a for-of would close it).
  const entries = function* (values: Iterator<unknown>, limit: number) {
    for (let n = 0; n < limit; n++) {
      const next = values.next()
      if (next.done) return
      yield { line: ++line, value: next.value }
    }
  }
  const catalogue = await importEntries(sql, entries(catalogues(), Infinity))
  if (!catalogue.ok) throw new Error(JSON.stringify(catalogue.invalid.slice(0, 3)))
  const t0 = process.hrtime.bigint()
  const sets = recordSets()
  for (let done = 0; done < total; done += CHUNK) {
    const t1 = process.hrtime.bigint()
    const report = await importEntries(sql, entries(sets, CHUNK / PER_SET))
    if (!report.ok) throw new Error(JSON.stringify(report.invalid.slice(0, 3)))
    const n = Math.min(CHUNK, total - done)
    if ((done / CHUNK) % 4 === 0)
      console.log(`  ${done + n} movements: last ${n} in ${seconds(t1).toFixed(1)} s (${Math.round(n / seconds(t1))}/s)`)
  }
  const s = seconds(t0)
  console.log(
    `imported ${total} movements in ${s.toFixed(0)} s (${Math.round(total / s)} movements/s, derived turnovers updated in every transaction)`,
  )
  await putUser(sql, 'bench', await hashPassword('bench', { logN: 14 }), ['*'])
  await sql.close()
}

async function directFromRegister(sql: SqlPort, from: string, to: string): Promise<number> {
  const t0 = process.hrtime.bigint()
  await sql.all(
    "SELECT organization, account, account_type, SUM(CASE WHEN period < ? AND movement = 'Приход' THEN amount ELSE 0 END) AS r0, " +
      "SUM(CASE WHEN period < ? AND movement = 'Расход' THEN amount ELSE 0 END) AS e0, SUM(CASE WHEN movement = 'Приход' THEN amount ELSE 0 END) AS r1, " +
      "SUM(CASE WHEN movement = 'Расход' THEN amount ELSE 0 END) AS e1 FROM reg_cash WHERE period <= ? GROUP BY organization, account, account_type",
    [from, from, `${to}T23:59:59`],
  )
  return seconds(t0) * 1000
}

const dir = process.env.BENCH_DB ? undefined : benchDir()
const db = process.env.BENCH_DB ?? join(dir!, 'cashflows.db')
if (dir && process.env.BENCH_KEEP) console.log(`database: ${db}`)
if (dir) await generate(db)
else for (const _ of catalogues());
const size = ['', '-wal'].reduce((n, s) => n + (statSync(db + s, { throwIfNoEntry: false })?.size ?? 0), 0)
const admin = await openWritable(db)
const [counts] = await admin.all<Record<string, number>>(
  "SELECT (SELECT COUNT(*) FROM reg_cash) AS movements, SUM(CASE WHEN level = 'd' THEN 1 ELSE 0 END) AS days, " +
    "SUM(CASE WHEN level = 'm' THEN 1 ELSE 0 END) AS months, SUM(CASE WHEN level = 'y' THEN 1 ELSE 0 END) AS years FROM cash_turnovers",
)
console.log(
  `register ${counts!.movements} movements; turnovers ${counts!.days} day, ${counts!.months} month, ${counts!.years} year rows; database ${(size / 2 ** 30).toFixed(2)} GiB`,
)

const auth = { authorization: `Basic ${Buffer.from('bench:bench').toString('base64')}` }
const server = await startProcess(['dist/bench/serve-db.js', db])
try {
  await timeRequest(`${server.url}/main/hs/cashflows/get?date=01.01.2016`, auth, 1)
  console.log(`${'request'.padEnd(52)}${'rows'.padStart(6)}${'bytes'.padStart(9)}${'median ms'.padStart(11)}${'min ms'.padStart(9)}`)
  for (const [name, query] of [
    ['no period (01.01.0001 – today)', ''],
    ['from=01.06.2020&to=30.06.2020', 'from=01.06.2020&to=30.06.2020'],
    ['date=15.06.2020', 'date=15.06.2020'],
    ['from=15.03.2019&to=20.11.2024&mgmt=true&totals=true', 'from=15.03.2019&to=20.11.2024&mgmt=true&totals=true'],
    [
      'from=01.01.2025 (to today)&kind=Наличные&closed=нет',
      `from=01.01.2025&kind=${encodeURIComponent('Наличные')}&closed=${encodeURIComponent('нет')}`,
    ],
  ] as const) {
    const t = await timeRequest(`${server.url}/main/hs/cashflows/get${query ? `?${query}` : ''}`, auth, runs)
    const rows = (JSON.parse(t.body) as { data: unknown[] }).data.length
    console.log(
      `${name.padEnd(52)}${String(rows).padStart(6)}${String(t.bytes).padStart(9)}${t.medianMs.toFixed(1).padStart(11)}${t.minMs.toFixed(1).padStart(9)}`,
    )
  }
  let t0 = process.hrtime.bigint()
  const moves = [1, 2, 3].map((m) => ({
    Период: `2020-06-1${m}T10:00:00`,
    ВидДвижения: 'Приход',
    Организация: accounts[0]!.org,
    БанковскийСчетКасса: { type: accounts[0]!.type, ref: accounts[0]!.ref },
    Сумма: 100 * m,
    СуммаУпр: 90 * m,
  }))
  const replaced = await importEntries(admin, [{ line: 1, value: recordSet(12345, moves) }])
  if (!replaced.ok) throw new Error(JSON.stringify(replaced.invalid))
  console.log(`re-importing one record set (its old and new days, months, years rebuilt): ${(seconds(t0) * 1000).toFixed(1)} ms`)
  t0 = process.hrtime.bigint()
  await admin.transaction(() => cashTurnovers.update(admin, 'all'))
  console.log(`full rebuild of the turnovers from the register: ${seconds(t0).toFixed(1)} s`)
  console.log(
    `the June 2020 statement straight from the register (no turnovers): ${(await directFromRegister(admin, '2020-06-01', '2020-06-30')).toFixed(0)} ms`,
  )
} finally {
  server.child.kill('SIGTERM')
  await admin.close()
  if (dir && !process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true })
}
