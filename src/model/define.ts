// The vocabulary of the import object model (data-format.md): each object type is a
// declaration from which the schema, the validator and the writer are all derived.

type ValueKind = 'string' | 'number' | 'boolean' | 'date'

export type Attr =
  | {
      readonly name: string
      readonly col: string
      readonly kind: ValueKind
      readonly required?: boolean
      /** Longest accepted string, in UTF-16 code units (JS string length). */
      readonly maxLength?: number
    }
  | { readonly name: string; readonly col: string; readonly kind: 'ref'; readonly target: string; readonly required?: boolean }
  | {
      readonly name: string
      readonly col: string
      readonly kind: 'composite'
      /** Allowed types; a trailing `.*` (e.g. `Документ.*`) allows a whole class. */
      readonly targets: readonly string[]
      readonly required?: boolean
    }
  | { readonly name: string; readonly col: string; readonly kind: 'base64'; readonly required?: boolean }
  | {
      readonly name: string
      readonly col: string
      readonly kind: 'choice'
      readonly values: readonly string[]
      readonly required?: boolean
    }

export interface TabularPart {
  readonly name: string
  readonly table: string
  readonly attrs: readonly Attr[]
}

export interface ObjectType {
  /** Full metadata name as in data-format.md, e.g. `Справочник.Склады`. */
  readonly type: string
  readonly table: string
  readonly class: 'catalog' | 'document'
  readonly hierarchical?: boolean
  readonly attrs: readonly Attr[]
  readonly tabular?: readonly TabularPart[]
}

/** A record set keyed by its recorder (`РегистрНакопления.*`). */
export interface RegisterType {
  readonly type: string
  readonly table: string
  readonly attrs: readonly Attr[]
}

export const str = (name: string, col: string): Attr => ({ name, col, kind: 'string' })
export const num = (name: string, col: string): Attr => ({ name, col, kind: 'number' })
export const bool = (name: string, col: string): Attr => ({ name, col, kind: 'boolean' })
export const date = (name: string, col: string): Attr => ({ name, col, kind: 'date' })
export const ref = (name: string, col: string, target: string): Attr => ({ name, col, kind: 'ref', target })
export const composite = (name: string, col: string, targets: readonly string[]): Attr => ({
  name,
  col,
  kind: 'composite',
  targets,
})

/** Whether `type` is allowed by a composite attribute's target list. */
export function allowsType(targets: readonly string[], type: string): boolean {
  return targets.some((t) => (t.endsWith('.*') ? type.startsWith(t.slice(0, -1)) : t === type))
}
