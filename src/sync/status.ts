// `docgate sync --status` (sync.md §2): the saved state, from the store alone.
import type { Sink } from './output.js'
import type { SyncStore } from './state/store.js'

const pad2 = (n: number) => String(n).padStart(2, '0')

/** An ISO instant as local `YYYY-MM-DD HH:MM:SS`; '' stays ''. */
export function localTime(iso: string): string {
  if (!iso) return ''
  const d = new Date(iso)
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`
}

export async function printStatus(state: SyncStore, sink: Sink): Promise<void> {
  const source = await state.meta('source')
  const cycles = await state.sql.all<{ started_at: string; ended_at: string; status: string; sets: number; failed: number }>(
    'SELECT started_at, ended_at, status, sets, failed FROM sync_cycles ORDER BY id DESC LIMIT 1',
  )
  const sets = await state.setRows()
  if (!source && cycles.length === 0 && sets.length === 0) {
    sink.out('no sync has run on this store')
    return
  }
  sink.out(`source: ${source ?? '—'}`)
  const c = cycles[0]
  if (c) {
    const outcome = c.status === 'failed' ? `failed (${Number(c.failed)} of ${Number(c.sets)})` : c.status
    sink.out(`last cycle: ${localTime(c.started_at)} → ${c.ended_at ? localTime(c.ended_at) : '…'}, ${outcome}`)
  } else sink.out('last cycle: never')
  // Columns are separated by at least two spaces (register names are longer than the usual 41).
  const width = Math.max(41, ...sets.map((s) => s.entity_set.length + 2))
  sink.out(
    `${'entity set'.padEnd(width)}${'last complete scan'.padEnd(22)}${'last full scan'.padEnd(22)}${'objects'.padStart(7)}  last error`,
  )
  for (const s of sets) {
    const scan = s.last_complete_scan ? localTime(s.last_complete_scan) : 'never'
    const full = s.last_full_scan ? localTime(s.last_full_scan) : 'never'
    const error = s.last_error && s.last_error_at > s.last_complete_scan ? `${localTime(s.last_error_at)} ${s.last_error}` : '—'
    sink.out(`${s.entity_set.padEnd(width)}${scan.padEnd(22)}${full.padEnd(22)}${String(Number(s.objects)).padStart(7)}  ${error}`)
  }
}
