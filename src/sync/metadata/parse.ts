// `$metadata` (EDMX, OData v3) → the Metadata model, read as a stream: a real infobase's
// document is tens of megabytes (sync.md §6.2), so it is never held whole in memory.
import { createReadStream } from 'node:fs'
import { SaxesParser } from 'saxes'
import type { SaxesTagPlain } from 'saxes'
import type { Metadata, Property, StructuredType } from './model.js'

const local = (name: string): string => name.slice(name.lastIndexOf(':') + 1)
const unqualified = (name: string): string => name.slice(name.lastIndexOf('.') + 1)

interface Building {
  name: string
  entity: boolean
  keys: string[]
  properties: Property[]
  /** navigation name → [relationship, toRole] */
  nav: [string, string, string][]
}

class MetadataError extends Error {}

export async function parseMetadataFile(file: string): Promise<Metadata> {
  const parser = new SaxesParser({ xmlns: false })
  const types = new Map<string, Building>()
  const associations = new Map<string, Map<string, string>>() // association → role → type
  const sets = new Map<string, string>() // set → entity type (unqualified)
  let current: Building | undefined
  let association: Map<string, string> | undefined
  let inKey = false
  let sawEdmx = false
  let failure: Error | undefined

  parser.on('error', (err) => {
    failure ??= err
  })
  parser.on('opentag', (tag: SaxesTagPlain) => {
    const a = tag.attributes as Record<string, string>
    switch (local(tag.name)) {
      case 'Edmx':
        sawEdmx = true
        break
      case 'EntityType':
      case 'ComplexType':
        current = { name: a.Name ?? '', entity: local(tag.name) === 'EntityType', keys: [], properties: [], nav: [] }
        types.set(current.name, current)
        break
      case 'Key':
        inKey = true
        break
      case 'PropertyRef':
        if (inKey && current) current.keys.push(a.Name ?? '')
        break
      case 'Property':
        current?.properties.push({ name: a.Name ?? '', type: a.Type ?? '' })
        break
      case 'NavigationProperty':
        current?.nav.push([a.Name ?? '', unqualified(a.Relationship ?? ''), a.ToRole ?? ''])
        break
      case 'Association':
        association = new Map()
        associations.set(a.Name ?? '', association)
        break
      case 'End':
        if (association && a.Type) association.set(a.Role ?? '', unqualified(a.Type))
        break
      case 'EntitySet':
        sets.set(a.Name ?? '', unqualified(a.EntityType ?? ''))
        break
    }
  })
  parser.on('closetag', (tag) => {
    switch (local(tag.name)) {
      case 'EntityType':
      case 'ComplexType':
        current = undefined
        break
      case 'Key':
        inKey = false
        break
      case 'Association':
        association = undefined
        break
    }
  })

  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    parser.write(chunk as string)
    if (failure) break
  }
  if (!failure) parser.close()
  if (failure || !sawEdmx)
    throw new MetadataError(`$metadata unreadable: ${failure ? failure.message.split('\n')[0] : 'not an EDMX document'}`)

  const setOfType = new Map<string, string>()
  for (const [set, type] of sets) if (!setOfType.has(type)) setOfType.set(type, set)
  const finish = (b: Building): StructuredType => {
    const navigation: Record<string, string> = {}
    for (const [name, relationship, toRole] of b.nav) {
      const target = associations.get(relationship)?.get(toRole)
      const set = target === undefined ? undefined : setOfType.get(target)
      if (set !== undefined) navigation[name] = set
    }
    return { name: b.name, keys: b.keys, properties: b.properties, navigation }
  }
  const entitySets: Record<string, StructuredType> = {}
  for (const [set, type] of sets) {
    const b = types.get(type)
    if (b?.entity) entitySets[set] = finish(b)
  }
  const complexTypes: Record<string, StructuredType> = {}
  for (const b of types.values()) if (!b.entity) complexTypes[b.name] = finish(b)
  return { entitySets, complexTypes }
}
