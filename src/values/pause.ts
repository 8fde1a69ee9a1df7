import { setTimeout as delay } from 'node:timers/promises'

/** Waits `ms`; a stop through `signal` ends the wait early without failing (the caller looks at the signal). */
export const pause = (ms: number, signal?: AbortSignal): Promise<void> =>
  delay(ms, undefined, { signal }).catch((err: unknown) => {
    if ((err as { name?: string }).name !== 'AbortError') throw err
  })
