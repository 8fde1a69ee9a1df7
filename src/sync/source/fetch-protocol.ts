// Messages between the source client (client.ts) and its HTTP thread (fetch-worker.ts).

export interface FetchInit {
  /** At most this many requests in flight (sync.md §8: 1 or 2). */
  readonly concurrency: number
}

export interface FetchRequest {
  readonly type: 'get'
  readonly id: number
  readonly url: string
  readonly headers: Record<string, string>
  readonly timeoutMs: number
  /** A 200 answer is streamed (inflated) into this file instead of being sent back. */
  readonly file?: string
}

interface Head {
  readonly id: number
  readonly status: number
  readonly type: string
}

export type FetchReply =
  /** `body`: a 200 answer inflated, any other as sent; `raw`: its length on the wire. */
  | (Head & { readonly body: Uint8Array; readonly raw: number })
  | (Head & { readonly saved: { readonly bytes: number; readonly sha256: string } })
  | { readonly id: number; readonly error: { readonly name: string; readonly code?: string; readonly message: string } }
