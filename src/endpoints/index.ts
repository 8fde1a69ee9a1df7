// The registry: routing, read models and the import's rebuild step all read this list.
import { cashflows } from './cashflows.js'
import type { Endpoint } from './define.js'
import type { ReadModel, StoredFull } from '../views/define.js'
import { demands } from './demands.js'
import { materials, wholeMaterialsTree as materialsTree } from './materials.js'
import { morders } from './morders.js'
import { orders } from './orders.js'
import { payments } from './payments.js'
import { receipts } from './receipts.js'
import { nomenclatureSearch } from './shared/nomenclature-search.js'
import { specMaterialRows } from './shared/spec-material-rows.js'
import { pagedList } from './define.js'
import { identityOf } from './changes.js'
import { cashTurnovers } from '../views/cash/turnovers.js'
import type { ViewCatalog } from '../views/define.js'
import { sorders } from './sorders.js'
import { specifications } from './specifications.js'
import { transfers } from './transfers.js'
import { warehouses } from './warehouses.js'

export const ENDPOINTS: readonly Endpoint[] = [
  payments,
  receipts,
  orders,
  sorders,
  specifications,
  transfers,
  morders,
  demands,
  cashflows,
  materials,
  warehouses,
]

export const endpointByService = new Map<string, Endpoint>(ENDPOINTS.map((e) => [e.service, e]))

/**
 * Read models that serve filters and forms of endpoints rather than one endpoint's rows.
 * They are rebuilt before the endpoints' models, which may read them (api_specifications
 * joins its ready Материалы rows' search text).
 */
const SUPPORT_MODELS: readonly ReadModel[] = [nomenclatureSearch, specMaterialRows]

/**
 * The folded columns the substring filters of `ep` look in: its database `contains`
 * parameters, and the post-filter ones of a list, which the planner turns into database
 * conditions when the value can use the index (endpoints/plan.ts).
 */
function searchedColumns(ep: Endpoint): string[] {
  return ep.params.flatMap((p) =>
    (p.stage === 'database' || (p.stage === 'post-filter' && ep.kind === 'list')) && p.match === 'contains' ? [p.column] : [],
  )
}

/**
 * Bumped when the way full forms are kept changes for every model; a change of one
 * endpoint's full form bumps that model's own `version`.
 */
const FULL_FORMS_VERSION = 1

/** The parameter-independent full form of a list endpoint, kept ready by the import. */
function storedFull(ep: Endpoint): StoredFull | undefined {
  if (ep.kind !== 'list' || !ep.fullPage) return undefined
  const traces = ep.fullTraces ?? []
  return {
    service: ep.service,
    page: ep.fullPage,
    traces,
    signature: JSON.stringify([FULL_FORMS_VERSION, traces]),
  }
}

/** The columns of `ep`'s `identifier` parameters (endpoints/define.ts), kept in suffix indexes. */
const identifierColumns = (ep: Endpoint): string[] =>
  ep.params.flatMap((p) => (p.stage === 'database' && p.match === 'contains' && p.identifier ? [p.column] : []))

const withSearch = (model: ReadModel, ep: Endpoint): ReadModel => {
  const full = storedFull(ep)
  const suffixed = identifierColumns(ep)
  return {
    ...model,
    search: [...new Set([...(model.search ?? []), ...searchedColumns(ep)])],
    ...(suffixed.length > 0 ? { suffixed } : {}),
    ...(full ? { full } : {}),
    ...(ep.kind === 'list' ? { pages: pagedList(ep), identity: identityOf(ep) } : {}),
  }
}

export const READ_MODELS: readonly ReadModel[] = [
  ...SUPPORT_MODELS,
  ...ENDPOINTS.flatMap((e) => (e.readModel ? [withSearch(e.readModel, e)] : [])),
]

/** Every view the store keeps, handed down to migrate, import and sync (views/define.ts). */
export const VIEWS: ViewCatalog = {
  models: READ_MODELS,
  support: SUPPORT_MODELS,
  derived: [cashTurnovers],
  answers: [materialsTree],
}
