// One typed call per docgate endpoint, on openapi-fetch. Every type here comes from the
// generated src/schema.ts, so a parameter or field changed in docgate changes the client's
// types when the schema is regenerated (the schema test fails until it is).
import createClient from 'openapi-fetch'
import type { Client } from 'openapi-fetch'
import { basicAuthorization } from './credentials.js'
import { EnvelopeStream } from './envelope-stream.js'
import type { components, paths } from './schema.js'

type DataPath = Extract<keyof paths, `/main/hs/${string}/get`>
/** The endpoints' service names: `payments`, `receipts`, … */
export type Service = DataPath extends `/main/hs/${infer S}/get` ? S : never
type Operation<S extends Service> = paths[`/main/hs/${S}/get`]['get']
/** The query parameters of an endpoint, aliases included, as the document declares them. */
export type Query<S extends Service> = NonNullable<Operation<S>['parameters']['query']>
/** What a call takes: the query, where `full` may also be a boolean. */
export type Params<S extends Service> = { [K in keyof Query<S>]?: K extends 'full' ? Query<S>[K] | boolean : Query<S>[K] }
/** The 200 answer: `data` and the problems that did not stop the request. */
export type Envelope<S extends Service> = Operation<S>['responses'][200]['content']['application/json']
/** One `data` item: the short form, or with `full` the full form. */
export type Item<S extends Service> = Envelope<S>['data'][number]
export type Health = components['schemas']['Health']
export type Schemas = components['schemas']

/** The services, at run time; the checks below keep the list equal to the document's. */
export const SERVICES = [
  'payments',
  'receipts',
  'orders',
  'sorders',
  'specifications',
  'transfers',
  'morders',
  'demands',
  'cashflows',
  'materials',
  'warehouses',
] as const satisfies readonly Service[]
type Unlisted = Exclude<Service, (typeof SERVICES)[number]>
// A compile error here names a service the document has and SERVICES lacks.
const everyServiceListed: [Unlisted] extends [never] ? true : Unlisted = true
void everyServiceListed

/** A non-200 answer: 401 (credentials or grant), 500, 404 on an unknown route, 400 or 410 to a paging or changes parameter. */
export class DocgateError extends Error {
  override readonly name = 'DocgateError'
  constructor(
    readonly status: number,
    /** The answer's `error` text, or its body when that is not docgate's JSON error. */
    readonly detail: string,
    /** Seconds to wait, when docgate throttles failed logins (`Retry-After`). */
    readonly retryAfterSeconds?: number,
  ) {
    super(`docgate answered ${status}: ${detail}`)
  }
}

export interface CallOptions {
  readonly signal?: AbortSignal
}

/** An answer with the store's change position it was given at (a list's `X-Changes-Token`). */
export interface Tokened<S extends Service> {
  readonly answer: Envelope<S>
  /** Send it back as `changed_since` for what changed since; undefined for a tree or a statement, which are not lists. */
  readonly token: string | undefined
}

export interface Call<S extends Service> {
  /** The whole answer, parsed. */
  (params?: Params<S>, options?: CallOptions): Promise<Envelope<S>>
  /**
   * The whole answer and its change token: a replica loads a list once, then asks with
   * `changed_since` set to the last token for the rows changed since and the identities
   * `removed` since (applied first). A token the store no longer reaches is a DocgateError 410: load again.
   */
  withToken(params?: Params<S>, options?: CallOptions): Promise<Tokened<S>>
  /** The answer's items as they arrive (`for await`), then its `errors`: for large `full` answers. */
  stream(params?: Params<S>, options?: CallOptions): Promise<EnvelopeStream<Item<S>>>
}

export type DocgateClient = { readonly [S in Service]: Call<S> } & {
  /** GET /main/hs/health: `{ Статус: 'API доступен' }` when the store answers. */
  health(options?: CallOptions): Promise<Health>
  /** The underlying openapi-fetch client, typed by the same schema (raw `Response`, `parseAs: 'stream'`, middleware). */
  readonly raw: Client<paths>
}

export interface ClientOptions {
  /** Where docgate answers, e.g. `https://erp.example.com` (the `/main/hs/…` paths are added). */
  readonly baseUrl: string
  readonly user: string
  readonly password: string
  /** Another fetch (a proxy agent, a test double); the global one by default. */
  readonly fetch?: (request: Request) => Promise<Response>
}

type Answer = { data?: unknown; error?: unknown; response: Response }
type LooseGet = (
  path: string,
  init: { params: { query: Record<string, unknown> }; parseAs?: 'stream'; signal?: AbortSignal },
) => Promise<Answer>

function query(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params }
  if (out.full === true) out.full = 'true'
  else if (out.full === false) delete out.full
  return out
}

function failure({ error, response }: Answer): DocgateError {
  const detail =
    typeof error === 'object' && error !== null && typeof (error as { error?: unknown }).error === 'string'
      ? (error as { error: string }).error
      : String(error ?? '')
  const retry = Number(response.headers.get('retry-after') ?? NaN)
  return new DocgateError(response.status, detail, Number.isFinite(retry) ? retry : undefined)
}

export function createDocgateClient(options: ClientOptions): DocgateClient {
  const raw = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: basicAuthorization(options.user, options.password) },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
  // The per-service generics are enforced by the Call types; one untyped path serves them all.
  const get = raw.GET as unknown as LooseGet
  const call = (service: Service): Call<Service> => {
    const path = `/main/hs/${service}/get`
    const whole = async (params?: Record<string, unknown>, opts: CallOptions = {}) => {
      const answer = await get(path, { params: { query: query(params) }, signal: opts.signal })
      if (answer.error !== undefined || !answer.response.ok) throw failure(answer)
      return answer.data as Envelope<Service>
    }
    const withToken = async (params?: Record<string, unknown>, opts: CallOptions = {}) => {
      const answer = await get(path, { params: { query: query(params) }, signal: opts.signal })
      if (answer.error !== undefined || !answer.response.ok) throw failure(answer)
      return { answer: answer.data as Envelope<Service>, token: answer.response.headers.get('x-changes-token') ?? undefined }
    }
    const stream = async (params?: Record<string, unknown>, opts: CallOptions = {}) => {
      const answer = await get(path, { params: { query: query(params) }, parseAs: 'stream', signal: opts.signal })
      if (answer.error !== undefined || !answer.response.ok) throw failure(answer)
      return new EnvelopeStream<Item<Service>>(answer.data as ReadableStream<Uint8Array>)
    }
    return Object.assign(whole, { stream, withToken }) as unknown as Call<Service>
  }
  const calls = Object.fromEntries(SERVICES.map((s) => [s, call(s)])) as { [S in Service]: Call<S> }
  return {
    ...calls,
    raw,
    async health(opts: CallOptions = {}) {
      const answer = await raw.GET('/main/hs/health', { signal: opts.signal })
      if (answer.error !== undefined || !answer.response.ok) throw failure(answer)
      return answer.data
    },
  }
}
