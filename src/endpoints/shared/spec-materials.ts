// The specification pieces that look inside its tabular parts: the `material`/`ngroup`
// row filters, the delivery-stage range of `year`/`month`, and the full Материалы array
// (spec § Nomenclature specification, § GET /main/hs/specifications/get).
import { round2 } from '../../values/printed.js'
import { isoDay, validDay } from '../../values/dates.js'
import { fold } from '../../values/fold.js'
import { messages } from '../../values/messages.js'
import type { Condition } from '../../store/plan.js'
import type { Dialect, SqlPort, SqlValue } from '../../store/sql.js'
import { containsSql } from '../../store/trigram.js'
import { isWordPart, vocabularyTable, wordsTable } from '../../store/words.js'
import { readByOwner } from '../../store/by-owner.js'
import type { ByOwner } from '../../store/by-owner.js'
import { splitRecords } from '../../store/records.js'
import { ReadyJson } from '../../views/json-stream.js'
import { NOMENCLATURE_SEARCH } from './nomenclature-search.js'
import { FIELD_SEPARATOR, ROW_SEPARATOR, SPEC_MATERIAL_ROWS, materialRow } from './spec-material-rows.js'

/** A predicate on one materials row `m` joined to its item's search columns `x`. */
export interface RowFilter {
  readonly text: string
  readonly params: readonly SqlValue[]
}

/** `material`: code or name of the row's item; `ngroup`: name of the item's nomenclature group. */
export function rowFilter(d: Dialect, material: string | undefined, ngroup: string | undefined): RowFilter | undefined {
  const parts: string[] = []
  const params: SqlValue[] = []
  const contains = (column: string, value: string): string => {
    const found = containsSql(d, { table: NOMENCLATURE_SEARCH, column, qualifier: 'x', indexed: true }, fold(value))
    params.push(...found.params)
    return found.text
  }
  if (material !== undefined) parts.push(`(${contains('code_f', material)} OR ${contains('name_f', material)})`)
  if (ngroup !== undefined) parts.push(contains('ngroup_f', ngroup))
  return parts.length === 0 ? undefined : { text: parts.join(' AND '), params }
}

/** The specification has at least one materials row that satisfies `filter`. */
export const hasRow = (filter: RowFilter): Condition => ({
  kind: 'sql',
  text:
    // CROSS JOIN: the specification's own rows first, as in readMaterials.
    `EXISTS (SELECT 1 FROM cat_specifications_materials m CROSS JOIN ${NOMENCLATURE_SEARCH} x ` +
    `WHERE m.owner = api_specifications.ref AND x.ref = m.nomenclature AND ${filter.text})`,
  params: filter.params,
})

/**
 * Some row's `material` (code or name) or `ngroup` text contains `value`, tested on the
 * rows' texts joined per specification (api_specifications `materials_f`, `ngroups_f`):
 * one substring test per specification instead of an EXISTS over its rows and their items.
 * A scan, not the trigram index: a list's pages walk the sort index, and on SQLite the
 * index's phrase match (5–9 ms for a common word at scale 100) would be paid again on each
 * page, where the scan of a page's own specifications costs about 3 ms (decision
 * "Specifications' ready Материалы rows"). Undefined for a needle that could match across
 * two joined texts (it holds a separator) or that matches the empty text of a
 * specification without rows.
 */
export function rowsContain(d: Dialect, own: 'material' | 'ngroup', value: string): { text: string; params: SqlValue[] } | undefined {
  const needle = fold(value)
  if (needle === '' || needle.includes(ROW_SEPARATOR) || needle.includes(FIELD_SEPARATOR)) return undefined
  const column = own === 'material' ? 'materials_f' : 'ngroups_f'
  return containsSql(d, { table: 'api_specifications', column, qualifier: 'api_specifications', indexed: false }, needle)
}

/**
 * The folded `material` when it may be looked up through the index of the ready rows'
 * `material_f` (spec-material-rows.ts): a row's code and name joined by FIELD_SEPARATOR, so
 * a needle without it is in that text exactly when it is in the code or in the name (the
 * rows `material` prints). Undefined for an empty needle (every row holds it) or one that
 * holds the separator.
 */
export function materialNeedle(material: string | undefined): string | undefined {
  if (material === undefined) return undefined
  const needle = fold(material)
  return needle === '' || needle.includes(FIELD_SEPARATOR) ? undefined : needle
}

/** The ready rows `r` whose code or name holds `needle` (materialNeedle): through the trigram index for 3+ characters, else a scan. */
const rowsHolding = (d: Dialect, needle: string): { text: string; params: SqlValue[] } =>
  containsSql(d, { table: SPEC_MATERIAL_ROWS, column: 'material_f', qualifier: 'r', indexed: true }, needle)

/** Some ready row of the specification holds `needle` (materialNeedle): its rows as the index names them. */
export function holdsMaterial(d: Dialect, needle: string): Condition {
  const rows = rowsHolding(d, needle)
  return {
    kind: 'sql',
    text: `api_specifications.ref IN (SELECT r.ref FROM ${SPEC_MATERIAL_ROWS} r WHERE ${rows.text})`,
    params: rows.params,
  }
}

/** The specifications (refs, in order) that have a materials row whose code or name holds `material`, as the index names them. */
export async function specsWithMaterial(sql: SqlPort, material: string): Promise<string[]> {
  const needle = materialNeedle(material)
  if (needle === undefined) throw new RangeError(`"${material}" is not looked up through the index`)
  const rows = rowsHolding(sql.dialect, needle)
  const found = await sql.all<{ ref: string }>(
    `SELECT DISTINCT r.ref FROM ${SPEC_MATERIAL_ROWS} r WHERE ${rows.text} ORDER BY r.ref`,
    rows.params,
  )
  return found.map((r) => r.ref)
}

/** Conditions all of which must hold, as one. */
export function allOf(parts: readonly { text: string; params: readonly SqlValue[] }[]): Condition {
  return { kind: 'sql', text: parts.map((p) => `(${p.text})`).join(' AND '), params: parts.flatMap((p) => p.params) }
}

/**
 * Rules 1–2: the stage dates of `year` (2 digits: 20XX), or of `month` 1–12 inside it.
 * An invalid year drops the filter; an invalid month widens it to the year; both with
 * an `errors` entry.
 */
export function deliveryInRange(year: string, month: string | undefined, issues: string[]): Condition | undefined {
  const y = /^\d{2}$/.test(year) ? 2000 + Number(year) : /^\d{4}$/.test(year) && Number(year) > 0 ? Number(year) : undefined
  if (y === undefined) {
    issues.push(messages.badYear(year))
    return undefined
  }
  let m: number | undefined
  if (month !== undefined) {
    if (/^\d{1,2}$/.test(month) && Number(month) >= 1 && Number(month) <= 12) m = Number(month)
    else issues.push(messages.badMonth(month))
  }
  const first = { year: y, month: m ?? 1, day: 1 }
  const last = { year: y, month: m ?? 12, day: 31 }
  while (!validDay(last.year, last.month, last.day)) last.day--
  // Stored dates are `YYYY-MM-DDTHH:MM:SS`, so the last second bounds the range inclusively.
  return {
    kind: 'sql',
    text:
      'EXISTS (SELECT 1 FROM cat_specifications_stages st WHERE st.owner = api_specifications.ref ' +
      'AND st.delivery_date >= ? AND st.delivery_date <= ?)',
    params: [isoDay(first), `${isoDay(last)}T23:59:59`],
  }
}

interface MaterialRow {
  readonly owner: string
  readonly code: string | null
  readonly name: string | null
  readonly quantity: number
  readonly unit: string | null
  readonly price: number
  readonly amount: number
  readonly ngroup: string | null
}

/** The materials rows of each specification of `owners` in the stored order, or only those `filter` keeps. */
export function readMaterials(sql: SqlPort, owners: readonly string[], filter?: RowFilter): Promise<ByOwner<MaterialRow>> {
  const query = (list: string) =>
    'SELECT m.owner, n.code, n.name, m.quantity, u.presentation AS unit, m.price, m.amount, g.presentation AS ngroup ' +
    'FROM cat_specifications_materials m LEFT JOIN cat_nomenclature n ON n.ref = m.nomenclature ' +
    'LEFT JOIN objects u ON u.ref = m.unit LEFT JOIN objects g ON g.ref = n.ngroup' +
    // CROSS JOIN keeps the specifications' rows outer on SQLite (it never reorders one): given
    // the index on m.nomenclature it would otherwise test the filter on every nomenclature item
    // and probe the rows of each (620 ms a page at scale 100 instead of under 10).
    (filter ? ` CROSS JOIN ${NOMENCLATURE_SEARCH} x` : '') +
    ` WHERE m.owner IN (${list})` +
    (filter ? ` AND x.ref = m.nomenclature AND ${filter.text}` : '') +
    ' ORDER BY m.owner, m.line'
  return readByOwner<MaterialRow>(sql, query, owners, filter?.params)
}

/** Материалы[] and СуммаМатериалов: Σ of Сумма where non-zero, else Количество × Цена (rounded once, at the end). */
export function materialsForm(rows: readonly MaterialRow[]): { Материалы: unknown[]; СуммаМатериалов: number } {
  let total = 0
  const list = rows.map((r) => {
    const { row, contribution } = materialRow(r)
    total += contribution
    return row
  })
  return { Материалы: list, СуммаМатериалов: round2(total) }
}

/** One specification's ready Материалы rows joined by the store: `list` the objects with commas, `parts` their shares. */
export interface JoinedMaterials {
  readonly owner: string
  readonly list: Buffer | null
  readonly parts: Buffer | null
}

/**
 * The ready rows (spec-material-rows.ts) of each specification of `owners` that match
 * `material` and `ngroup` (the rows of the query join, rule 6), joined in line order.
 */
export function readJoinedMaterials(
  sql: SqlPort,
  owners: readonly string[],
  material: string | undefined,
  ngroup: string | undefined,
): Promise<ByOwner<JoinedMaterials>> {
  const d = sql.dialect
  const tests: string[] = []
  const params: SqlValue[] = []
  // The page's own rows only: a scan of a few thousand short texts beats a trigram read per page.
  if (material !== undefined) {
    tests.push(`(${d.contains('r.code_f')} OR ${d.contains('r.name_f')})`)
    params.push(fold(material), fold(material))
  }
  if (ngroup !== undefined) {
    tests.push(d.contains('r.ngroup_f'))
    params.push(fold(ngroup))
  }
  // The rows in key order, grouped as they come (concatPage): an ORDER BY inside SQLite's
  // aggregate would sort each owner's rows again, though the table keeps them in line order.
  const query = (list: string) =>
    `SELECT owner, ${d.concatPage('short', 'line')} AS list, ${d.concatPage('part', 'line')} AS parts FROM (` +
    `SELECT r.ref AS owner, r.line, r.short, r.part FROM ${SPEC_MATERIAL_ROWS} r ` +
    `WHERE r.ref IN (${list})${tests.map((t) => ` AND ${t}`).join('')} ORDER BY r.ref, r.line) AS r GROUP BY owner`
  return readByOwner<JoinedMaterials>(sql, query, owners, params)
}

/** The words of the materials rows' vocabulary that contain `needle` (a word part, store/words.ts isWordPart). */
export async function wordsHolding(sql: SqlPort, needle: string): Promise<string[]> {
  const words = await sql.all<{ word: string }>(
    `SELECT word FROM ${vocabularyTable(SPEC_MATERIAL_ROWS)} WHERE ${sql.dialect.contains('word')}`,
    [needle],
  )
  return words.map((w) => w.word)
}

const COMMA = Buffer.from(',')

/**
 * The item a request for one word prints for a specification (its short form's bytes and
 * its materials rows holding the word, in line order): joinedForm's bytes over those rows,
 * kept ready by the specifications' word items (store/words.ts WordItemsIndex).
 */
export function materialsItem(short: Buffer, rows: readonly Readonly<Record<string, SqlValue>>[]): Buffer {
  const list = Buffer.concat(rows.flatMap((r, i) => (i === 0 ? [r.short as Buffer] : [COMMA, r.short as Buffer])))
  const parts = Buffer.from(rows.map((r) => (r.part as Buffer).toString('latin1')).join(','), 'latin1')
  return Buffer.concat(joinedForm(short, { owner: '', list, parts }).parts)
}

/**
 * The ready rows whose code or name holds `needle` (materialNeedle), as `owner`, `line`,
 * `short`, `part`, each once, ordered by owner and line. A needle of one word's characters
 * reads the words index (store/words.ts): the entries under the words that contain it, one
 * range each; any other through the trigram index of the rows.
 */
async function matchingRows(sql: SqlPort, needle: string, holding?: readonly string[]): Promise<{ text: string; params: SqlValue[] }> {
  const d = sql.dialect
  if (isWordPart(needle)) {
    const words = holding ?? (await wordsHolding(sql, needle))
    const entries = `SELECT ref AS owner, line, short, part FROM ${wordsTable(SPEC_MATERIAL_ROWS)}`
    // One word: its range is in the key's order already. Several: a row holding two of them
    // has an entry under each.
    if (words.length === 1) return { text: `${entries} WHERE word = ? ORDER BY ref, line`, params: [...words] }
    const any = d.inList('word', words)
    return { text: `SELECT DISTINCT * FROM (${entries} WHERE ${any.text}) AS w ORDER BY owner, line`, params: any.params }
  }
  const rows = rowsHolding(d, needle)
  return {
    text: `SELECT r.ref AS owner, r.line, r.short, r.part FROM ${SPEC_MATERIAL_ROWS} r WHERE ${rows.text} ORDER BY r.ref, r.line`,
    params: rows.params,
  }
}

/**
 * Every ready row whose code or name holds `needle` (materialNeedle), joined per
 * specification in line order as readJoinedMaterials joins them, by the specification's ref:
 * one statement for a whole list, whose keys are also the specifications it selects
 * (specifications.ts `readFirst`). `holding`: the vocabulary's words that contain a word
 * part, when the request has read them already (wordsHolding).
 */
export async function readMatchingMaterials(
  sql: SqlPort,
  needle: string,
  holding?: readonly string[],
): Promise<ReadonlyMap<string, JoinedMaterials>> {
  const d = sql.dialect
  const rows = await matchingRows(sql, needle, holding)
  const grouped = `SELECT owner, ${d.concatPage('short', 'line')} AS list, ${d.concatPage('part', 'line')} AS parts FROM (${rows.text}) AS r GROUP BY owner`
  const found = new Map<string, JoinedMaterials>()
  if (d.concatRecords) {
    // One value for the whole read: a value per specification cost more than its rows' reads.
    const records = d.concatRecords([{ text: 'owner' }, { bytes: 'list' }, { bytes: 'parts' }])
    const [read] = await sql.all<{ body: unknown }>(`SELECT ${d.bytes.select(records)} AS body FROM (${grouped}) AS g`, rows.params)
    for (const [ref, list, parts] of splitRecords(d.bytes.value(read?.body), 3)) {
      const owner = ref!.toString('latin1')
      found.set(owner, { owner, list: list!, parts: parts! })
    }
    return found
  }
  const read = await sql.all<{ owner: string; list: unknown; parts: unknown }>(
    `SELECT owner, ${d.bytes.select('list')} AS list, ${d.bytes.select('parts')} AS parts FROM (${grouped}) AS g`,
    rows.params,
  )
  for (const r of read) found.set(r.owner, { owner: r.owner, list: d.bytes.value(r.list), parts: d.bytes.value(r.parts) })
  return found
}

const LIST_KEY = Buffer.from(',"Материалы":')
const OPEN = Buffer.from(',"Материалы":[')
const TOTAL_KEY = Buffer.from('],"СуммаМатериалов":')
const CLOSE = Buffer.from('}')

/**
 * The bytes `{ ...short, ...materialsForm(rows) }` prints, from the short form's bytes
 * (Материалы, its summary string, is its last key) and the joined rows, as pieces printed
 * one after another. The total is summed here, share by share in line order, as
 * materialsForm sums it.
 */
export function joinedForm(short: Buffer, joined: JoinedMaterials | undefined): ReadyJson {
  const cut = short.lastIndexOf(LIST_KEY)
  if (cut < 0) throw new Error('the short form has no Материалы')
  let total = 0
  const parts = joined?.parts ? joined.parts.toString('latin1') : ''
  if (parts !== '') for (const p of parts.split(',')) total += Number(p)
  const list = joined?.list
  return new ReadyJson([
    short.subarray(0, cut),
    OPEN,
    ...(list ? [list] : []),
    TOTAL_KEY,
    Buffer.from(JSON.stringify(round2(total)), 'latin1'),
    CLOSE,
  ])
}
