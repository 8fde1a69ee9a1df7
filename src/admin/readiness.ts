// GET /ready: may a balancer send this instance traffic? Not while it drains, not while
// its store does not answer, and — on a store a sync keeps — not when the data is staler
// than the operator allows.
import type { SqlPort } from '../store/sql.js'
import { readSyncState } from './sync-state.js'

export interface ReadinessOptions {
  readonly sql: SqlPort
  readonly draining: () => boolean
  /** Oldest acceptable end of the last complete sync cycle, in ms (`--max-lag`). */
  readonly maxLagMs: number
  readonly now?: () => number
  /** A store that takes longer than this to answer counts as away. */
  readonly timeoutMs?: number
}

export type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: string }

const MESSAGE_LIMIT = 200

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').slice(0, MESSAGE_LIMIT)

export async function checkReadiness(options: ReadinessOptions): Promise<Readiness> {
  if (options.draining()) return { ready: false, reason: 'draining' }
  const timeoutMs = options.timeoutMs ?? 2000
  let sync: Awaited<ReturnType<typeof readSyncState>>
  try {
    await within(options.sql.all('SELECT 1 AS ok'), timeoutMs)
    sync = await within(readSyncState(options.sql), timeoutMs)
  } catch (err) {
    return { ready: false, reason: `store not answering: ${messageOf(err)}` }
  }
  if (sync === null) return { ready: true }
  if (sync.lastComplete === null) return { ready: false, reason: 'sync has run on this store but no cycle has completed' }
  const now = options.now?.() ?? Date.now()
  const ageMs = now - Date.parse(sync.lastComplete)
  if (!(ageMs <= options.maxLagMs)) {
    return {
      ready: false,
      reason: `last complete sync cycle ended ${Math.round(ageMs / 1000)} s ago (max lag ${Math.round(options.maxLagMs / 1000)} s)`,
    }
  }
  return { ready: true }
}
