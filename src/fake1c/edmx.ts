// `$metadata` as 1C writes it for its standard OData interface (EDMX, OData v3, namespace
// StandardODATA): entity and complex types first, associations, then the container.
import type { Prop } from './upp.js'

export interface EntityDecl {
  readonly set: string
  readonly keys: readonly string[]
  readonly props: readonly Prop[]
  /** Tabular parts / record sets: property name → complex row type name and its properties. */
  readonly collections: readonly { readonly name: string; readonly rowType: string; readonly props: readonly Prop[] }[]
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

export function edmx(decls: readonly EntityDecl[]): string {
  const published = new Set(decls.map((d) => d.set))
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<edmx:Edmx xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" Version="1.0">',
    '<edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="3.0" m:MaxDataServiceVersion="3.0">',
    '<Schema xmlns="http://schemas.microsoft.com/ado/2009/11/edm" Namespace="StandardODATA">',
  ]
  const associations: string[] = []
  const associationSets: string[] = []
  const prop = (p: Prop) => `<Property Name="${esc(p.name)}" Type="${esc(p.type)}" Nullable="true"/>`
  for (const d of decls) {
    out.push(`<EntityType Name="${esc(d.set)}">`, `<Key>${d.keys.map((k) => `<PropertyRef Name="${esc(k)}"/>`).join('')}</Key>`)
    for (const p of d.props) out.push(prop(p))
    for (const c of d.collections)
      out.push(`<Property Name="${esc(c.name)}" Type="Collection(StandardODATA.${esc(c.rowType)})" Nullable="false"/>`)
    for (const p of d.props) {
      if (!p.nav || !published.has(p.nav[1])) continue
      const name = `${d.set}_${p.nav[0]}`
      out.push(`<NavigationProperty Name="${esc(p.nav[0])}" Relationship="StandardODATA.${esc(name)}" FromRole="Begin" ToRole="End"/>`)
      associations.push(
        `<Association Name="${esc(name)}"><End Role="Begin" Type="StandardODATA.${esc(d.set)}" Multiplicity="*"/><End Role="End" Type="StandardODATA.${esc(p.nav[1])}" Multiplicity="0..1"/></Association>`,
      )
      associationSets.push(
        `<AssociationSet Name="${esc(name)}" Association="StandardODATA.${esc(name)}"><End Role="Begin" EntitySet="${esc(d.set)}"/><End Role="End" EntitySet="${esc(p.nav[1])}"/></AssociationSet>`,
      )
    }
    out.push('</EntityType>')
    for (const c of d.collections) out.push(`<ComplexType Name="${esc(c.rowType)}">`, ...c.props.map(prop), '</ComplexType>')
  }
  out.push(...associations)
  out.push('<EntityContainer Name="InfoBase" m:IsDefaultEntityContainer="true">')
  for (const d of decls) out.push(`<EntitySet Name="${esc(d.set)}" EntityType="StandardODATA.${esc(d.set)}"/>`)
  out.push(...associationSets, '</EntityContainer>', '</Schema>', '</edmx:DataServices>', '</edmx:Edmx>')
  return out.join('\n')
}
