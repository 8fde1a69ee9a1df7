// The strong entity tag of a data answer (conditional GET, decision "Answers tagged by the
// store's generation"). An answer is a pure function of the stored data, the request and
// the day it is asked on (serving/answer-cache.ts), so its tag is made of exactly those —
// the store's answers generation (views/generation.ts), the service, the day of the
// request's clock and the raw query — never of the body, which may be streamed and is not
// read again. The user is not part of it: what a user may ask is decided before the answer
// (grants), and the answer itself is the same for everyone granted the service.
import { hash } from 'node:crypto'
import { isoDay, today } from '../values/dates.js'
import type { Coding, DataRequest } from './executor.js'

/** The tag of `request`'s answer under the generation `gen`, as the `ETag` header spells it. */
export function answerTag(gen: string, request: DataRequest): string {
  const key = `${gen}\n${request.service}\n${isoDay(today(request.now))}\n${request.query}${request.format ? `\n${request.format}` : ''}`
  // The one-shot hash: a third of createHash's cost for a key this short, on every answer.
  return `"${hash('sha256', key, 'base64url').slice(0, 27)}"`
}

/** The tag of the answer's bytes in `coding` (a strong tag names one representation). */
export const codedTag = (tag: string, coding: Coding | undefined): string => (coding === undefined ? tag : `${tag.slice(0, -1)}-${coding}"`)

/**
 * The tag of an `If-None-Match` list that names the answer `tag`, in whatever coding it was
 * sent (strongly: this server issues only strong tags, so a weak one is not one of its own),
 * or undefined.
 */
export function matchingTag(ifNoneMatch: string | undefined, tag: string): string | undefined {
  if (ifNoneMatch === undefined || ifNoneMatch.length > 4096) return undefined
  const stem = tag.slice(0, -1)
  for (const raw of ifNoneMatch.split(',')) {
    const sent = raw.trim()
    if (sent === tag || sent === `${stem}-br"` || sent === `${stem}-gzip"`) return sent
  }
  return undefined
}
