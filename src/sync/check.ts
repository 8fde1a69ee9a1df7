// The start-up check (sync.md §6): warm the source up, read `$metadata` as a stream (cached
// by its SHA-256 in the store), resolve the effective map against it and report.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SEVEN } from './context.js'
import { resolveMap } from './mapping/index.js'
import type { MapFile, Resolution } from './mapping/index.js'
import type { Metadata } from './metadata/model.js'
import { parseMetadataFile } from './metadata/parse.js'
import { SourceError } from './source/client.js'
import type { Source } from './source/client.js'
import type { SyncStore } from './state/store.js'

const WARM_UP_MS = 120_000
const METADATA_MS = 600_000

export class CheckFailed extends Error {}

export interface Checked {
  readonly meta: Metadata
  readonly resolution: Resolution
  /** `source: … — $metadata 16.8 MB, sha256 3f9a…c21e, 4237 entity sets` */
  readonly sourceLine: string
}

/** A 404 at the root or `$metadata`, whatever its body: one wording, and the likely cause. */
const noInterface = (url: string) => new CheckFailed(`no OData interface at ${url}: HTTP 404 — is the publication path right?`)

async function warmUp(source: Source): Promise<void> {
  try {
    await source.json(() => source.url('', { $format: 'json' }), { timeoutMs: WARM_UP_MS })
  } catch (err) {
    if (!(err instanceof SourceError)) throw err
    if (err.kind === 'unreachable') throw new CheckFailed(`source unreachable: ${err.message}`)
    if (err.kind === 'not-json') throw new CheckFailed('not an OData root')
    if (err.status === 404) throw noInterface(source.root)
    throw new CheckFailed(err.kind === 'credentials' ? err.message : `source unreachable: ${err.message}`)
  }
}

const megabytes = (n: number) => `${(n / 1e6).toFixed(1)} MB`

/** `$metadata`, from the cache when its hash is unchanged; `writeCache` false for `--check`. */
async function metadata(
  source: Source,
  state: SyncStore | undefined,
  writeCache: boolean,
): Promise<{ meta: Metadata; bytes: number; sha256: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'docgate-metadata-'))
  try {
    const file = join(dir, 'metadata.xml')
    let got: { bytes: number; sha256: string }
    try {
      got = await source.download(() => `${source.root}/$metadata`, file, { timeoutMs: METADATA_MS })
    } catch (err) {
      if (err instanceof SourceError && err.kind === 'credentials') throw new CheckFailed(err.message)
      if (err instanceof SourceError && err.status === 404) throw noInterface(`${source.root}/$metadata`)
      throw new CheckFailed(`$metadata unreadable: ${err instanceof Error ? err.message : String(err)}`)
    }
    const cachedHash = await state?.meta('metadata_sha256')
    if (cachedHash === got.sha256) {
      const model = await state?.meta('metadata_model')
      if (model) return { meta: JSON.parse(model) as Metadata, ...got }
    }
    let meta: Metadata
    try {
      meta = await parseMetadataFile(file)
    } catch (err) {
      throw new CheckFailed(err instanceof Error ? err.message : String(err))
    }
    if (writeCache && state) {
      await state.sql.transaction(async () => {
        await state.setMeta('metadata_model', JSON.stringify(meta))
        await state.setMeta('metadata_sha256', got.sha256)
      })
    }
    return { meta, ...got }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Other-document sets the store's sync state already knows (§7.3). */
export async function knownOtherDocuments(state: SyncStore | undefined): Promise<string[]> {
  if (!state) return []
  return (await state.setRows()).map((r) => r.entity_set).filter((s) => s.startsWith('Document_') && !SEVEN.has(s))
}

export async function startupCheck(source: Source, map: MapFile, state: SyncStore | undefined, writeCache: boolean): Promise<Checked> {
  await warmUp(source)
  const { meta, bytes, sha256 } = await metadata(source, state, writeCache)
  const resolution = resolveMap(meta, map, await knownOtherDocuments(state))
  const sets = Object.keys(meta.entitySets).length
  const sourceLine = `source: ${source.root} — $metadata ${megabytes(bytes)}, sha256 ${sha256.slice(0, 4)}…${sha256.slice(-4)}, ${sets} entity sets`
  return { meta, resolution, sourceLine }
}
