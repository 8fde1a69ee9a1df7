// GET /main/hs/specifications/get — spec § Nomenclature specification, § GET /main/hs/specifications/get.
// Catalogue elements only: groups and entries marked for deletion have no read-model row.
// Sort (the spec: "not shown"): Наименование ascending (case-insensitive, ё beside е), then Код.
//
// Rule 6, what each mode returns:
// - with `full=true`, `material` and `ngroup` are each a subquery over the whole materials
//   table: a specification is selected when some row matches `material` and some row
//   (not necessarily the same one) matches `ngroup`; Материалы lists ALL its rows and
//   СуммаМатериалов sums them all;
// - without `full`, they filter the rows of the query join: a specification is selected
//   when one row matches every given row filter, and Материалы lists ONLY those matching
//   rows, with СуммаМатериалов summed over them.
import { Specification, SpecificationFull } from './responses.js'
import { m } from './meanings.js'
import { rowsSummary } from '../values/plural.js'
import { dmy } from '../values/dates.js'
import { fold, sortKey } from '../values/fold.js'
import { messages } from '../values/messages.js'
import type { Condition } from '../store/plan.js'
import type { Dialect } from '../store/sql.js'
import { YES, printing } from './define.js'
import type { ListEndpoint, ParamContext } from './define.js'
import type { RequestContext } from '../views/define.js'
import {
  allOf,
  deliveryInRange,
  hasRow,
  holdsMaterial,
  joinedForm,
  materialNeedle,
  materialsForm,
  materialsItem,
  readJoinedMaterials,
  readMatchingMaterials,
  readMaterials,
  rowFilter,
  rowsContain,
  wordsHolding,
} from './shared/spec-materials.js'
import { isWordPart, readWordItems } from '../store/words.js'
import type { WordItemsIndex } from '../store/words.js'
import type { JoinedMaterials, RowFilter } from './shared/spec-materials.js'
import { refsOf } from '../store/by-owner.js'
import type { ByOwner } from '../store/by-owner.js'
import { ROW_SEPARATOR, SPEC_MATERIAL_ROWS } from './shared/spec-material-rows.js'
import { shortOf, tryPart } from './shared/tabular.js'
import { orEmpty } from './shared/row.js'

const KEYS = ['code', 'name', 'material', 'ngroup']
/** Filters that narrow the specifications `material` selects (`month` counts only with `year`). */
const NARROWING = ['code', 'name', 'year']

/** Without `full`, the rows of the query join: one row must satisfy every given row filter. */
const joinedRows = (dialect: Dialect, ctx: Pick<RequestContext, 'options' | 'values'>): RowFilter | undefined =>
  ctx.options.full === true ? undefined : rowFilter(dialect, ctx.values.get('material'), ctx.values.get('ngroup'))

/**
 * `material` alone without `full` (the rows it prints are its matches): its folded needle
 * when the index of the ready rows finds them (shared/spec-materials.ts materialNeedle).
 */
const indexedMaterial = (ctx: Pick<RequestContext, 'options' | 'values'>): string | undefined =>
  ctx.options.full === true || ctx.values.has('ngroup') ? undefined : materialNeedle(ctx.values.get('material'))

/**
 * `material` alone, not narrowed by other filters: its needle, when the matching ready rows
 * are read before the selection (`readFirst`), which then selects their specifications by
 * ref instead of looking the rows up again inside the selection.
 */
const readsFirst = (ctx: Pick<RequestContext, 'options' | 'values'>): string | undefined =>
  NARROWING.some((k) => ctx.values.has(k)) ? undefined : indexedMaterial(ctx)

/**
 * Refs above which `readFirst`'s selection tests the list's index entries in order rather
 * than looking each ref up: a lookup costs a few times an entry of the scan, and the scan
 * needs no sort (docs/perf/history.md "Specifications by material in one value each").
 */
const SCAN_REFS = 1000

/** The conditions through the index that `readFirst` replaces by the refs it read. */
const throughIndex = new WeakSet<Condition>()
/** The vocabulary's words that contain a request's needle, as `readyItems` read them. */
const wordsRead = new WeakMap<RequestContext, string[]>()
/** What `readFirst` read for a request, for its `fullPage`. */
const readRows = new WeakMap<RequestContext, ReadonlyMap<string, JoinedMaterials>>()

/**
 * Rule 6: the selection made by `material` or `ngroup` (whichever `own` is). One of them
 * alone (or each with `full`) is "some row's text contains it", tested on the rows' joined
 * texts; without `full`, both together need one row matching both, which those texts
 * narrow and an EXISTS over the rows decides.
 */
function rowsCondition(own: 'material' | 'ngroup', value: string, ctx: ParamContext): Condition | undefined {
  const needle = own === 'material' ? indexedMaterial(ctx) : undefined
  if (needle !== undefined) {
    const held = holdsMaterial(ctx.dialect, needle)
    throughIndex.add(held)
    return held
  }
  const both = ctx.options.full !== true && ctx.values.has('material') && ctx.values.has('ngroup')
  // Without `full`, `material` emits the one joined-row condition for both.
  if (both && own === 'ngroup') return undefined
  if (!both) {
    const fast = rowsContain(ctx.dialect, own, value)
    if (fast) return allOf([fast])
  }
  const filter =
    joinedRows(ctx.dialect, ctx) ??
    (own === 'material' ? rowFilter(ctx.dialect, value, undefined) : rowFilter(ctx.dialect, undefined, value))
  if (!filter) return undefined
  const narrow = both ? [rowsContain(ctx.dialect, 'material', value), rowsContain(ctx.dialect, 'ngroup', ctx.values.get('ngroup')!)] : []
  const exists = hasRow(filter)
  if (exists.kind !== 'sql') return exists
  return allOf([...narrow.filter((n) => n !== undefined), exists])
}

/**
 * `material` alone of one word's characters, found inside one word of the rows' vocabulary:
 * each specification holding that word is one ready item (its rows holding the word), kept
 * in the list's order, so the answer is one range of the index.
 */
export const MATERIAL_ITEMS: WordItemsIndex = {
  column: 'materials_f',
  order: ['sort_name', 'code'],
  rows: { table: SPEC_MATERIAL_ROWS, key: 'line', column: 'material_f', read: ['short', 'part'] },
  item: materialsItem,
}

export const specifications: ListEndpoint = {
  kind: 'list',
  service: 'specifications',
  operationId: 'GetSpecifications',
  returns: 'Nomenclature specifications (catalogue elements, not groups, not marked for deletion)',
  response: { short: Specification, full: SpecificationFull },
  meanings: {
    code: m('Код спецификации (подстрока)', 'Specification code (substring)'),
    name: m('Наименование (подстрока)', 'Name (substring)'),
    material: m(
      'Код или наименование материала в строках материалов (подстрока)',
      'Material code or name in the materials rows (substring)',
    ),
    ngroup: m('Номенклатурная группа строк материалов (подстрока)', 'Nomenclature group of the material rows (substring)'),
    year: m(
      'Год плановой даты поставки этапа поставки; двузначный год читается как 20XX',
      'Year of the planned delivery date of a delivery stage; a 2-digit year is read as 20XX',
    ),
    month: m('Месяц 1–12 внутри года `year`; требует `year`', 'Month 1–12 inside `year`; requires `year`'),
    full: m(
      'Расширенный режим; требует хотя бы один из `code`, `name`, `material`, `ngroup`',
      'Extended mode; requires at least one of `code`, `name`, `material`, `ngroup`',
    ),
  },
  readModel: printing(Specification, {
    table: 'api_specifications',
    version: 1,
    source: 'cat_specifications',
    columns: [
      { name: 'code', type: 'text' },
      { name: 'code_f', type: 'text' },
      { name: 'name_f', type: 'text' },
      { name: 'sort_name', type: 'text' },
      // The folded code and name (`material`) and group name (`ngroup`) of every materials
      // row, joined (shared/spec-material-rows.ts, rebuilt before this model): see rowsContain.
      { name: 'materials_f', type: 'text' },
      { name: 'ngroups_f', type: 'text' },
    ],
    // The list's order carrying the short forms: a list selected by many refs (readFirst) is
    // read from the index alone, never from rows that hold the full forms as well.
    indexes: [{ columns: ['sort_name', 'code', 'ref'], carry: ['short'] }],
    wordItems: MATERIAL_ITEMS,
    select:
      's.ref, s.code, s.name, s.approval_date, rsp.presentation AS responsible, s.cost_works, s.cost_transport, ' +
      's.cost_overhead, s.cost_equipment, s.cost_connections, s.cost_design, ' +
      '(SELECT COUNT(*) FROM cat_specifications_materials m WHERE m.owner = s.ref) AS materials, ' +
      "(SELECT MIN(st.delivery_date) FROM cat_specifications_stages st WHERE st.owner = s.ref AND st.delivery_date <> '') AS delivery, " +
      // string_agg is the same on both engines (SQLite since 3.44); the order does not matter to a substring test.
      `(SELECT string_agg(r.material_f, '${ROW_SEPARATOR}') FROM ${SPEC_MATERIAL_ROWS} r WHERE r.ref = s.ref) AS materials_f, ` +
      `(SELECT string_agg(r.ngroup_f, '${ROW_SEPARATOR}') FROM ${SPEC_MATERIAL_ROWS} r WHERE r.ref = s.ref) AS ngroups_f ` +
      // The derived table keeps groups and marked entries out of the read model.
      'FROM (SELECT * FROM cat_specifications WHERE is_group = 0 AND deletion_mark = 0) s ' +
      'LEFT JOIN objects rsp ON rsp.ref = s.responsible',
    build: (r) => ({
      values: {
        code: orEmpty(r.code),
        code_f: fold(orEmpty(r.code)),
        name_f: fold(orEmpty(r.name)),
        sort_name: sortKey(orEmpty(r.name)),
        materials_f: orEmpty(r.materials_f),
        ngroups_f: orEmpty(r.ngroups_f),
      },
      short: {
        Код: orEmpty(r.code),
        ДатаУтверждения: dmy(orEmpty(r.approval_date)),
        Ответственный: orEmpty(r.responsible),
        Наименование: orEmpty(r.name),
        // MIN over no stages is NULL: the empty string.
        ДатаПоставки: dmy(orEmpty(r.delivery)),
        СтоимостьРабот: Number(r.cost_works),
        СтоимостьТранспорт: Number(r.cost_transport),
        СтоимостьНакладные: Number(r.cost_overhead),
        СтоимостьАрендаСпецТехники: Number(r.cost_equipment),
        СтоимостьТехнологическиеПрисоединения: Number(r.cost_connections),
        СтоимостьПроектныеРаботы: Number(r.cost_design),
        Материалы: rowsSummary(Number(r.materials)),
      },
    }),
  }),
  params: [
    { name: 'code', stage: 'database', match: 'contains', column: 'code_f', identifier: true },
    { name: 'name', stage: 'database', match: 'contains', column: 'name_f', slash: true },
    { name: 'material', stage: 'database', match: 'custom', slash: true, condition: (value, ctx) => rowsCondition('material', value, ctx) },
    { name: 'ngroup', stage: 'database', match: 'custom', condition: (value, ctx) => rowsCondition('ngroup', value, ctx) },
    {
      name: 'year',
      stage: 'database',
      match: 'custom',
      condition: (value, ctx) => deliveryInRange(value, ctx.values.get('month'), ctx.issues),
    },
    { name: 'month', stage: 'raw' },
    { name: 'full', stage: 'option', truthy: YES },
  ],
  rules: [
    // Rule 4: `full` alone is ignored (summary strings) with an entry in `errors`.
    { when: 'full', needsAnyOf: KEYS, message: messages.requires('full', KEYS), then: 'drop-option' },
    // Rule 5: `month` without `year` is ignored (no date selection) with an entry in `errors`.
    { when: 'month', needsAnyOf: ['year'], message: messages.requires('month', ['year']), then: 'keep' },
  ],
  sort: [
    { column: 'sort_name', dir: 'asc' },
    { column: 'code', dir: 'asc' },
  ],
  // Rule 3: the array form with `full` and `code`/`name`, or whenever `material`/`ngroup` is given.
  fullWhen: (ctx) =>
    (ctx.options.full === true && (ctx.values.has('code') || ctx.values.has('name'))) ||
    ctx.values.has('material') ||
    ctx.values.has('ngroup'),
  // The stored form lists every materials row; without `full`, `material`/`ngroup` keep only
  // the matching rows, which fullPage builds per request.
  fullStored: (ctx) => ctx.options.full === true,
  // The index names the matching rows of the whole list at once: read in one statement, not
  // one per page of 500 (each would look them up again).
  onePage: (ctx) => indexedMaterial(ctx) !== undefined,
  // A needle inside one word alone: that word's ready items, the whole answer in one range.
  readyItems: async (ctx) => {
    const needle = readsFirst(ctx)
    if (needle === undefined || !isWordPart(needle)) return undefined
    const words = await wordsHolding(ctx.sql, needle)
    wordsRead.set(ctx, words)
    return words.length === 1 ? readWordItems(ctx.sql, 'api_specifications', MATERIAL_ITEMS, words[0]!) : undefined
  },
  // The matching rows through the index, once: their refs select the list (a JSON parameter,
  // not the index's lookup inside the selection) and the same rows print its Материалы.
  readFirst: async (ctx, where) => {
    const needle = readsFirst(ctx)
    if (needle === undefined) return where
    const rows = await readMatchingMaterials(ctx.sql, needle, wordsRead.get(ctx))
    readRows.set(ctx, rows)
    const refs: Condition = { kind: 'sql', ...ctx.sql.dialect.inList('api_specifications.ref', [...rows.keys()], rows.size > SCAN_REFS) }
    return where.map((c) => (throughIndex.has(c) ? refs : c))
  },
  // НоменклатурнаяГруппа of a row is the group of the row's nomenclature.
  fullTraces: [
    {
      types: ['Справочник.НоменклатурныеГруппы'],
      sql:
        'SELECT m.owner AS ref FROM cat_specifications_materials m JOIN cat_nomenclature n ON n.ref = m.nomenclature ' +
        'WHERE n.ngroup IN (SELECT ref FROM _touched)',
    },
  ],
  // A failed read keeps the specification with its summary string (as demands do) and an `errors` entry.
  fullPage: async (ctx, rows) => {
    // A request's matching rows: the ready rows joined by the store, the form spliced as bytes.
    // The import's form (all rows, the stored full form) stays a value built from the rows,
    // as full-forms.ts `readyForm` stores values.
    if (ctx.options.full !== true) {
      // `material` alone: the rows `readFirst` read for the whole list. Narrowed by other
      // filters (or beyond the index): each page's own rows, tested.
      const needle = readsFirst(ctx)
      const first =
        needle === undefined ? undefined : (readRows.get(ctx) ?? (await readMatchingMaterials(ctx.sql, needle, wordsRead.get(ctx))))
      const joined: ByOwner<JoinedMaterials> = first
        ? (ref) => {
            const found = first.get(ref)
            return found ? [found] : []
          }
        : await readJoinedMaterials(ctx.sql, refsOf(rows), ctx.values.get('material'), ctx.values.get('ngroup'))
      return (row) => {
        let found: JoinedMaterials | undefined
        try {
          found = joined(String(row.ref))[0]
        } catch (err) {
          const short = shortOf(row)
          const what = `Спецификация номенклатуры ${orEmpty(short.Код)} ${orEmpty(short.Наименование)}`
          return {
            value: short,
            issue: tryPart(
              () => {
                throw err
              },
              what,
              'Материалы',
            ).issue!,
          }
        }
        // Ready JSON bytes: json-stream's serialize prints a Buffer as it is.
        return { value: joinedForm(row.short as Buffer, found) }
      }
    }
    const parts = await readMaterials(ctx.sql, refsOf(rows), joinedRows(ctx.sql.dialect, ctx))
    return (row) => {
      const short = shortOf(row)
      const what = `Спецификация номенклатуры ${orEmpty(short.Код)} ${orEmpty(short.Наименование)}`
      const part = tryPart(() => parts(String(row.ref)), what, 'Материалы')
      if (part.rows === undefined) return { value: short, issue: part.issue }
      return { value: { ...short, ...materialsForm(part.rows) } }
    }
  },
}
