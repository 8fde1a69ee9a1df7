// A validated line as it crosses from the checking thread (check-thread.ts) to the writer:
// plain data only, as tuples, since structured cloning writes and reads an object's keys
// anew for every object (the scale-10 demo's messages: 0.48 s to read as objects, 0.36 s
// as tuples). What both threads know — the type's declaration and its column lists — is
// left out and looked up again by type name, so the declarations keep their identity.
import { objectType, registerType } from '../model/objects.js'
import type { SqlValue } from '../store/sql.js'
import { layoutOf, registerLayoutOf } from './validate.js'
import type { Validated } from './validate.js'

type Invalid = Extract<Validated, { ok: false }>
type UnknownKeys = readonly string[] | null

export type ValidatedMessage =
  | readonly [
      kind: 'upsert',
      type: string,
      ref: string,
      values: readonly SqlValue[],
      presentation: string,
      date: string,
      /** Each tabular part's rows, in the declaration's order. */
      parts: readonly (readonly SqlValue[][])[],
      /** Structured cloning turns a Buffer into a plain Uint8Array. */
      blobs: ReadonlyMap<string, Uint8Array> | null,
      refs: readonly string[],
      unknownKeys: UnknownKeys,
    ]
  | readonly [
      kind: 'records',
      type: string,
      recorder: string,
      recorderType: string,
      rows: readonly SqlValue[][],
      refs: readonly string[],
      unknownKeys: UnknownKeys,
    ]
  | readonly [kind: 'delete', type: string, ref: string]
  | readonly [kind: 'invalid', invalid: Invalid]

const NO_KEYS: readonly string[] = []

export function toMessage(v: Validated): ValidatedMessage {
  if (!v.ok) return ['invalid', v]
  const op = v.operation
  const unknownKeys = v.unknownKeys.length > 0 ? v.unknownKeys : null
  switch (op.op) {
    case 'delete':
      return ['delete', op.type, op.ref]
    case 'records':
      return ['records', op.decl.type, op.recorder, op.recorderType, op.rows, op.refs, unknownKeys]
    case 'upsert':
      return [
        'upsert',
        op.type,
        op.ref,
        op.values,
        op.presentation,
        op.date,
        op.tabular.map((t) => t.rows),
        op.blobs.size > 0 ? ownBytes(op.blobs) : null,
        op.refs,
        unknownKeys,
      ]
  }
}

/**
 * A small Buffer is a view into a shared 8 KiB pool, and cloning a view copies all of its
 * buffer: each ~2.5 KB attachment of the demo went as 8 KiB. Copied to bytes of its own.
 */
function ownBytes(blobs: ReadonlyMap<string, Buffer>): Map<string, Uint8Array> {
  const own = new Map<string, Uint8Array>()
  for (const [col, data] of blobs) own.set(col, data.byteLength === data.buffer.byteLength ? data : new Uint8Array(data))
  return own
}

export function fromMessage(m: ValidatedMessage): Validated {
  switch (m[0]) {
    case 'invalid':
      return m[1]
    case 'delete':
      return { ok: true, unknownKeys: NO_KEYS, operation: { op: 'delete', type: m[1], ref: m[2] } }
    case 'records': {
      const [, type, recorder, recorderType, rows, refs, unknownKeys] = m
      const decl = registerType(type)!
      const operation = { op: 'records', decl, recorder, recorderType, columns: registerLayoutOf(decl).columns, rows, refs } as const
      return { ok: true, unknownKeys: unknownKeys ?? NO_KEYS, operation }
    }
    case 'upsert': {
      const [, type, ref, values, presentation, date, parts, data, refs, unknownKeys] = m
      const decl = objectType(type)!
      const layout = layoutOf(decl, type)
      const tabular = layout.parts.map(({ part, columns }, i) => ({ table: part.table, columns, rows: parts[i]! }))
      const blobs = new Map<string, Buffer>()
      if (data) for (const [col, bytes] of data) blobs.set(col, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
      const operation = {
        op: 'upsert',
        decl,
        type,
        ref,
        columns: layout.columns,
        values,
        presentation,
        date,
        tabular,
        blobs,
        refs,
      } as const
      return { ok: true, unknownKeys: unknownKeys ?? NO_KEYS, operation }
    }
  }
}
