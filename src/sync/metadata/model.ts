// The part of a 1C standard OData `$metadata` (EDMX, OData v3) that sync needs: entity
// sets with their properties and navigation targets, and the row types of tabular parts
// and record sets. Plain data, so that it can be cached in the store as JSON.

export interface Property {
  readonly name: string
  /** EDM type as written, e.g. `Edm.String`, `Edm.Guid`, `Collection(StandardODATA.Document_X_Товары_RowType)`. */
  readonly type: string
}

export interface StructuredType {
  /** Type name without namespace, e.g. `Document_ЗаказПокупателя` or `Document_ЗаказПокупателя_Товары_RowType`. */
  readonly name: string
  /** Key property names in `$metadata` order (empty for complex types). */
  readonly keys: readonly string[]
  /** Properties in `$metadata` order. */
  readonly properties: readonly Property[]
  /** Navigation property name → target entity-set name (only where the target is published). */
  readonly navigation: Readonly<Record<string, string>>
}

export interface Metadata {
  /** Entity-set name → its entity type. */
  readonly entitySets: Readonly<Record<string, StructuredType>>
  /** Complex-type name without namespace → its type (tabular-part rows, record-set rows). */
  readonly complexTypes: Readonly<Record<string, StructuredType>>
}

/** The property `name` of `type`, if it has one. */
export function propertyOf(type: StructuredType, name: string): Property | undefined {
  return type.properties.find((p) => p.name === name)
}

/** The row type of a `Collection(StandardODATA.X)` property, if it is one and X is known. */
export function rowTypeOf(meta: Metadata, property: Property): StructuredType | undefined {
  const m = /^Collection\((?:[^.()]+\.)?([^()]+)\)$/.exec(property.type)
  return m ? meta.complexTypes[m[1]!] : undefined
}
