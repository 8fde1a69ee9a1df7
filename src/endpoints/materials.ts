// GET /main/hs/materials/get — spec § Nomenclature tree node, § GET /main/hs/materials/get.
// The read model holds every nomenclature object with its node JSON ready; a request
// selects the matching elements in one query (sorted by name), then their parent groups
// level by level (one batched query per hierarchy level), and writes the tree as bytes.
// A request without parameters streams the whole tree kept ready in the store instead
// (views/ready-answers.ts), which the same build wrote at import.
// Decisions where the spec is silent: siblings are groups first (by name), then elements
// (by name); a group marked for deletion still carries its unmarked elements (the mark
// excludes elements, groups are only the path to them); an element or group whose
// parent is not a stored group of this catalogue is a root.
import { type MaterialElement, type MaterialGroup, MaterialNode } from './responses.js'
import type { Static } from '@sinclair/typebox'
import { m } from './meanings.js'
import { fold, sortKey } from '../values/fold.js'
import { planQuery } from './plan.js'
import { compilePage } from '../store/select.js'
import type { Row, SqlPort, SqlValue } from '../store/sql.js'
import type { ComputedEndpoint, ListEndpoint, Param } from './define.js'
import type { ReadModel } from '../views/define.js'
import { hasReady, readReady } from '../views/ready-bytes.js'
import { treeJson } from './shared/tree.js'
import type { ReadyAnswer } from '../views/define.js'
import type { TreeElement, TreeGroup } from './shared/tree.js'

/**
 * What the model keeps of a MaterialNode: an element whole, a group without `Дети`, which
 * the tree adds when it prints the group (shared/tree.ts).
 */
type StoredNode = Omit<Static<typeof MaterialGroup>, 'Дети'> | Static<typeof MaterialElement>

const readModel: ReadModel<StoredNode> = {
  table: 'api_materials',
  version: 1,
  source: 'cat_nomenclature',
  columns: [
    { name: 'role', type: 'text' },
    { name: 'parent', type: 'text' },
    { name: 'sort_name', type: 'text' },
    { name: 'code_f', type: 'text' },
    { name: 'name_f', type: 'text' },
    { name: 'group_f', type: 'text' },
    { name: 'kind_f', type: 'text' },
    { name: 'ngroup_f', type: 'text' },
    { name: 'article_f', type: 'text' },
    { name: 'supplier_f', type: 'text' },
    { name: 'is_service', type: 'int' },
  ],
  indexes: [['role', 'sort_name', 'ref']],
  select:
    "s.ref, s.code, s.name, s.is_group, s.deletion_mark, s.article, s.is_service, COALESCE(p.ref, '') AS parent, " +
    "COALESCE(p.name, '') AS parent_name, COALESCE(u.presentation, '') AS unit, COALESCE(k.presentation, '') AS kind, " +
    "COALESCE(g.presentation, '') AS ngroup, COALESCE(v.presentation, '') AS supplier FROM cat_nomenclature s " +
    'LEFT JOIN cat_nomenclature p ON p.ref = s.parent AND p.is_group = 1 LEFT JOIN objects u ON u.ref = s.unit ' +
    'LEFT JOIN objects k ON k.ref = s.kind LEFT JOIN objects g ON g.ref = s.ngroup LEFT JOIN objects v ON v.ref = s.main_supplier',
  build: (r) => {
    const group = r.is_group === 1
    const text = (v: unknown) => String(v ?? '')
    return {
      values: {
        role: group ? 'group' : r.deletion_mark === 1 ? 'deleted' : 'element',
        parent: text(r.parent),
        sort_name: sortKey(text(r.name)),
        code_f: fold(text(r.code)),
        name_f: fold(text(r.name)),
        group_f: fold(text(r.parent_name)),
        kind_f: fold(text(r.kind)),
        ngroup_f: fold(text(r.ngroup)),
        article_f: fold(text(r.article)),
        supplier_f: fold(text(r.supplier)),
        is_service: r.is_service === 1 ? 1 : 0,
      },
      short: group
        ? { Код: text(r.code), Наименование: text(r.name), ЭтоГруппа: true }
        : {
            Код: text(r.code),
            Наименование: text(r.name),
            Артикул: text(r.article),
            ЭтоГруппа: false,
            Услуга: r.is_service === 1,
            ЕдиницаИзмерения: text(r.unit),
            ВидНоменклатуры: text(r.kind),
            НоменклатурнаяГруппа: text(r.ngroup),
            ОсновнойПоставщик: text(r.supplier),
          },
    }
  },
}

const contains = (name: string, column: string): Param => ({ name, stage: 'database', match: 'contains', column })

const params: readonly Param[] = [
  contains('code', 'code_f'),
  contains('name', 'name_f'),
  // The immediate parent group's name only, not the whole hierarchy.
  contains('group', 'group_f'),
  contains('type', 'kind_f'),
  contains('ngroup', 'ngroup_f'),
  contains('article', 'article_f'),
  contains('supplier', 'supplier_f'),
  // True: `1`, `true`, `да`; any other given value means false (so `yes` is false here).
  { name: 'service', stage: 'database', match: 'flag', column: 'is_service', truthy: ['1', 'true', 'да'] },
]

const returns = 'Nomenclature catalogue as a tree (elements, not groups, not marked for deletion; parent groups added automatically)'
const meanings = {
  code: m('Код (подстрока)', 'Code (substring)'),
  name: m('Наименование (подстрока)', 'Name (substring)'),
  group: m(
    'Наименование непосредственной родительской группы, не всей иерархии (подстрока)',
    'Name of the immediate parent group only, not the whole hierarchy (substring)',
  ),
  type: m('Вид номенклатуры (подстрока)', 'Nomenclature kind (substring)'),
  ngroup: m('Номенклатурная группа (подстрока)', 'Nomenclature group (substring)'),
  article: m('Артикул (подстрока)', 'Article (substring)'),
  supplier: m('Основной поставщик (подстрока)', 'Main supplier (substring)'),
  service: m(
    'Отбор по признаку услуги; любое другое заданное значение означает ложь',
    'Filter by the service flag; any other given value means false',
  ),
}

/** The element selection, as a list over the read model (its conditions and name sort). */
const selection: ListEndpoint = {
  kind: 'list',
  service: 'materials',
  operationId: 'GetMaterials',
  returns,
  response: { short: MaterialNode },
  meanings,
  readModel,
  params,
  sort: [{ column: 'sort_name', dir: 'asc' }],
}

const BATCH = 500
const GROUPS_SQL = `SELECT ref, parent, sort_name, short FROM ${readModel.table} WHERE role = 'group' AND ref IN (${Array(BATCH).fill('?').join(', ')})`

/** The groups on the parent chains of `parents`, one batched query per hierarchy level. */
async function groupsAbove(sql: SqlPort, parents: Iterable<string>): Promise<TreeGroup[]> {
  const found = new Map<string, TreeGroup>()
  const seen = new Set<string>([''])
  let level = [...new Set(parents)].filter((r) => !seen.has(r))
  while (level.length > 0) {
    level.forEach((r) => seen.add(r))
    const next: string[] = []
    for (let i = 0; i < level.length; i += BATCH) {
      // A fixed number of placeholders (padded with NULL) keeps one prepared statement.
      const chunk: SqlValue[] = level.slice(i, i + BATCH)
      while (chunk.length < BATCH) chunk.push(null)
      for (const g of await sql.all<Row>(GROUPS_SQL, chunk)) {
        const group = { ref: String(g.ref), parent: String(g.parent), sortKey: String(g.sort_name), json: g.short as Buffer }
        found.set(group.ref, group)
        if (!seen.has(group.parent)) next.push(group.parent)
      }
    }
    level = [...new Set(next)].filter((r) => !seen.has(r))
  }
  return [...found.values()]
}

/** The tree of the elements a request selects (the selection's conditions), as bytes. */
async function selectedTree(
  sql: SqlPort,
  values: ReadonlyMap<string, string>,
  flags: ReadonlyMap<string, boolean>,
  issues: string[],
): Promise<Buffer> {
  const req = { values, flags, options: {}, ranges: [], issues }
  const { plan } = planQuery(selection, req, sql.dialect)
  // One query: the whole result is held anyway, so pages would only add seeks.
  const found = {
    ...plan,
    columns: ['parent', 'short'],
    where: [{ kind: 'equals', column: 'role', value: 'element' } as const, ...plan.where],
  }
  const query = compilePage(found, sql.dialect, Number.MAX_SAFE_INTEGER)
  const rows = await sql.all<{ parent: string; short: Buffer }>(query.sql, query.params)
  const elements: TreeElement[] = rows.map((r) => ({ parent: r.parent, json: r.short }))
  const groups = await groupsAbove(
    sql,
    elements.map((e) => e.parent),
  )
  return treeJson(groups, elements)
}

/**
 * The unfiltered tree kept ready in the store (views/ready-answers.ts): built by the same code as
 * a request's, so its bytes are the same. It prints the read model's rows only, so it can
 * change only when nomenclature or what its nodes print (the referenced presentations)
 * changes.
 */
export const wholeMaterialsTree: ReadyAnswer = {
  name: 'materials',
  version: 1,
  readModel: readModel.table,
  source: { table: readModel.source, type: 'Справочник.Номенклатура', columns: ['unit', 'kind', 'ngroup', 'main_supplier'] },
  build: (sql) => selectedTree(sql, new Map(), new Map(), []),
}

export const materials: ComputedEndpoint = {
  kind: 'computed',
  service: 'materials',
  operationId: 'GetMaterials',
  returns,
  response: { short: MaterialNode },
  meanings,
  readModel,
  params,
  // The ready tree, not one a sync dropped until the end of its set (computed then, in a worker).
  loopWhen: async (values, sql) => values.size === 0 && (await hasReady(sql, wholeMaterialsTree.name)),
  tree: { children: 'Дети', open: 'group' },
  async compute(ctx, issues) {
    if (ctx.values.size === 0) {
      const ready = await readReady(ctx.sql, wholeMaterialsTree.name)
      if (ready) return ready
    }
    return selectedTree(ctx.sql, ctx.values, ctx.flags, issues)
  },
}
