// The registry: routing, read models and the import's rebuild step all read this list.
import { cashflows } from './cashflows.js'
import type { Endpoint, ReadModel } from './define.js'
import { materials } from './materials.js'
import { warehouses } from './warehouses.js'

export const ENDPOINTS: readonly Endpoint[] = [warehouses, materials, cashflows]

export const endpointByService = new Map<string, Endpoint>(ENDPOINTS.map((e) => [e.service, e]))

export const READ_MODELS: readonly ReadModel[] = ENDPOINTS.flatMap((e) => (e.readModel ? [e.readModel] : []))
