// The registry: routing, read models and the import's rebuild step all read this list.
import type { Endpoint, ReadModel } from './define.js'
import { orders } from './orders.js'
import { payments } from './payments.js'
import { receipts } from './receipts.js'
import { sorders } from './sorders.js'
import { warehouses } from './warehouses.js'

export const ENDPOINTS: readonly Endpoint[] = [payments, receipts, orders, sorders, warehouses]

export const endpointByService = new Map<string, Endpoint>(ENDPOINTS.map((e) => [e.service, e]))

export const READ_MODELS: readonly ReadModel[] = ENDPOINTS.flatMap((e) => (e.readModel ? [e.readModel] : []))
