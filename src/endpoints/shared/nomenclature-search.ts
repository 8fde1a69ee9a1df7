// Folded search columns of every nomenclature item, for filters that look through a
// tabular part at the items its rows name (specifications `material`, `ngroup`).
// A read model of its own (not of an endpoint) so that it is rebuilt whenever an item or
// its nomenclature group changes; a copy inside the specification read model would go
// stale, because row references do not trigger a rebuild of the owner.
import { fold } from '../../values/fold.js'
import type { ReadModel } from '../../views/define.js'

export const NOMENCLATURE_SEARCH = 'api_nomenclature_search'

export const nomenclatureSearch: ReadModel = {
  table: NOMENCLATURE_SEARCH,
  version: 1,
  source: 'cat_nomenclature',
  columns: [
    { name: 'code_f', type: 'text' },
    { name: 'name_f', type: 'text' },
    { name: 'ngroup_f', type: 'text' },
  ],
  search: ['code_f', 'name_f', 'ngroup_f'],
  select: 's.ref, s.code, s.name, g.presentation AS ngroup FROM cat_nomenclature s LEFT JOIN objects g ON g.ref = s.ngroup',
  build: (r) => ({
    values: { code_f: fold(String(r.code ?? '')), name_f: fold(String(r.name ?? '')), ngroup_f: fold(String(r.ngroup ?? '')) },
    short: null,
  }),
}
