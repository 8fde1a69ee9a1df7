// GET /main/hs/warehouses/get — spec § Warehouse, § GET /main/hs/warehouses/get.
// A flat list sorted by name; records marked for deletion are included (no such filter).
import { Warehouse } from './responses.js'
import { m } from './meanings.js'
import { fold, sortKey } from '../values/fold.js'
import { printing } from './define.js'
import type { ListEndpoint } from './define.js'
import { text } from './shared/row.js'

export const warehouses: ListEndpoint = {
  kind: 'list',
  service: 'warehouses',
  operationId: 'GetWarehouses',
  returns: 'Warehouses catalogue as a flat list',
  response: { short: Warehouse },
  meanings: {
    code: m('Код (подстрока)', 'Code, Код (substring)'),
    name: m('Наименование (подстрока)', 'Name, Наименование (substring)'),
    group: m(
      'Истина — только группы; любое другое заданное значение — только элементы (не группы)',
      'True: only groups; any other given value: only elements (non-groups)',
    ),
  },
  readModel: printing(Warehouse, {
    table: 'api_warehouses',
    version: 1,
    source: 'cat_warehouses',
    columns: [
      { name: 'code_f', type: 'text' },
      { name: 'name_f', type: 'text' },
      { name: 'sort_name', type: 'text' },
      { name: 'is_group', type: 'int' },
    ],
    indexes: [['sort_name', 'ref']],
    select: 's.ref, s.code, s.name, s.is_group FROM cat_warehouses s',
    build: (r) => ({
      values: {
        code_f: fold(String(r.code)),
        name_f: fold(String(r.name)),
        sort_name: sortKey(String(r.name)),
        is_group: Number(r.is_group),
      },
      short: { Код: text(r.code), Наименование: text(r.name), ЭтоГруппа: r.is_group === 1 },
    }),
  }),
  params: [
    { name: 'code', stage: 'database', match: 'contains', column: 'code_f', identifier: true },
    { name: 'name', stage: 'database', match: 'contains', column: 'name_f' },
    // `true`, `1`, `да`: only groups; any other given value: only elements.
    { name: 'group', stage: 'database', match: 'flag', column: 'is_group', truthy: ['true', '1', 'да'] },
  ],
  sort: [{ column: 'sort_name', dir: 'asc' }],
}
