// Running totals of the cash register per (organization, account, account type): for each
// day with movements, the sums of every movement through that day. A balance at any day is
// then one indexed read per account (the last row on or before it), whatever the size of
// the register and however long ago it starts. Kept from the day rows of the calendar
// turnovers (cash-turnovers.ts), in the same update: a changed day rewrites its key's rows
// from that day on, starting from the row before it.
import type { TableDef } from '../../store/table.js'
import type { SqlPort } from '../../store/sql.js'

export const CUMULATIVE = 'cash_cumulative'
/** Every (organization, account, account type) with a movement: the rows a statement starts from. */
const CASH_KEYS = 'cash_keys'
const KEY = ['organization', 'account', 'account_type'] as const
const SUMS = ['receipt', 'expense', 'receipt_mgmt', 'expense_mgmt', 'moves'] as const
const FROM = '_cash_from'

export const cumulativeTables: readonly TableDef[] = [
  {
    name: CUMULATIVE,
    columns: [
      ...KEY.map((name) => ({ name, type: 'text' as const })),
      { name: 'day', type: 'text' },
      { name: 'receipt', type: 'real' },
      { name: 'expense', type: 'real' },
      { name: 'receipt_mgmt', type: 'real' },
      { name: 'expense_mgmt', type: 'real' },
      { name: 'moves', type: 'int' },
    ],
    primaryKey: [...KEY, 'day'],
  },
  { name: CASH_KEYS, columns: KEY.map((name) => ({ name, type: 'text' as const })), primaryKey: [...KEY] },
]

const keyMatch = (a: string, b: string) => KEY.map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ')
const running = (base?: string) => SUMS.map((s) => `${base ? `COALESCE(${base}.${s}, 0) + ` : ''}SUM(c.${s}) OVER w`).join(', ')
const WINDOW = `WINDOW w AS (PARTITION BY ${KEY.map((k) => `c.${k}`).join(', ')} ORDER BY c.start ROWS UNBOUNDED PRECEDING)`
const COLUMNS = [...KEY, 'day', ...SUMS].join(', ')

/** Rebuilds every row from the day turnovers `turnovers` (level 'd'). */
export async function rebuildCumulative(sql: SqlPort, turnovers: string): Promise<void> {
  await sql.run(`DELETE FROM ${CUMULATIVE}`)
  await sql.run(
    `INSERT INTO ${CUMULATIVE} (${COLUMNS}) SELECT ${KEY.map((k) => `c.${k}`).join(', ')}, c.start, ${running()} ` +
      `FROM ${turnovers} c WHERE c.level = 'd' ${WINDOW}`,
  )
  await sql.run(`DELETE FROM ${CASH_KEYS}`)
  await sql.run(`INSERT INTO ${CASH_KEYS} (${KEY.join(', ')}) SELECT DISTINCT ${KEY.join(', ')} FROM ${CUMULATIVE}`)
}

/** Rewrites the rows of each key from its earliest changed day on; `from` holds `[organization, account, type, day]`. */
export async function updateCumulative(
  sql: SqlPort,
  turnovers: string,
  from: readonly (readonly [string, string, string, string])[],
): Promise<void> {
  if (from.length === 0) return
  await sql.exec(
    `CREATE TEMP TABLE IF NOT EXISTS ${FROM} (${[...KEY, 'day'].map((c) => `${c} TEXT NOT NULL`).join(', ')}, PRIMARY KEY (${KEY.join(', ')}));`,
  )
  await sql.run(`DELETE FROM ${FROM}`)
  await sql.insertRows(FROM, [...KEY, 'day'], from)
  const keys = KEY.join(', ')
  // CROSS JOIN keeps the changed keys the outer loop in SQLite: each is one range of the key.
  await sql.run(
    `DELETE FROM ${CUMULATIVE} WHERE (${keys}, day) IN (SELECT ${KEY.map((k) => `c.${k}`).join(', ')}, c.day ` +
      `FROM ${FROM} f CROSS JOIN ${CUMULATIVE} c WHERE ${keyMatch('c', 'f')} AND c.day >= f.day)`,
  )
  await sql.run(
    `INSERT INTO ${CUMULATIVE} (${COLUMNS}) SELECT ${KEY.map((k) => `c.${k}`).join(', ')}, c.start, ${running('b')} ` +
      `FROM ${FROM} f CROSS JOIN ${turnovers} c ` +
      `LEFT JOIN ${CUMULATIVE} b ON ${keyMatch('b', 'f')} AND b.day = ` +
      `(SELECT MAX(x.day) FROM ${CUMULATIVE} x WHERE ${keyMatch('x', 'f')} AND x.day < f.day) ` +
      `WHERE ${keyMatch('c', 'f')} AND c.level = 'd' AND c.start >= f.day ${WINDOW}`,
  )
  await sql.run(`DELETE FROM ${CASH_KEYS} WHERE (${keys}) IN (SELECT ${keys} FROM ${FROM})`)
  await sql.run(
    `INSERT INTO ${CASH_KEYS} (${keys}) SELECT ${KEY.map((k) => `f.${k}`).join(', ')} FROM ${FROM} f ` +
      `WHERE EXISTS (SELECT 1 FROM ${CUMULATIVE} c WHERE ${keyMatch('c', 'f')})`,
  )
}
