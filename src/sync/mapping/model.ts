// The docgate side of the mapping: every attribute a synced type has, common keys
// included, as the import model declares it (data-format.md).
import { OBJECT_TYPES, REGISTER_TYPES } from '../../model/objects.js'
import type { Attr, TabularPart } from '../../model/define.js'

export function commonAttributes(cls: 'catalog' | 'document', hierarchical: boolean, type = ''): Attr[] {
  const attrs: Attr[] = [{ name: 'ПометкаУдаления', col: 'deletion_mark', kind: 'boolean' }]
  if (cls === 'catalog') attrs.push({ name: 'Код', col: 'code', kind: 'string' }, { name: 'Наименование', col: 'name', kind: 'string' })
  else
    attrs.push(
      { name: 'Номер', col: 'number', kind: 'string' },
      { name: 'Дата', col: 'date', kind: 'date' },
      { name: 'Проведен', col: 'posted', kind: 'boolean' },
    )
  if (hierarchical)
    attrs.push({ name: 'ЭтоГруппа', col: 'is_group', kind: 'boolean' }, { name: 'Родитель', col: 'parent', kind: 'ref', target: type })
  return attrs
}

export function partsOf(type: string): readonly TabularPart[] {
  return OBJECT_TYPES.find((t) => t.type === type)?.tabular ?? []
}

export function rowAttributesOf(type: string, part: string): readonly Attr[] {
  return partsOf(type).find((p) => p.name === part)?.attrs ?? []
}

export const registerDecl = (type: string) => REGISTER_TYPES.find((t) => t.type === type)

/** R1: `Справочник.X` ↔ `Catalog_X`, `Документ.X` ↔ `Document_X`, `РегистрНакопления.X` ↔ `AccumulationRegister_X`. */
export function entitySetOf(type: string): string {
  if (type.startsWith('Справочник.')) return `Catalog_${type.slice('Справочник.'.length)}`
  if (type.startsWith('Документ.')) return `Document_${type.slice('Документ.'.length)}`
  if (type.startsWith('РегистрНакопления.')) return `AccumulationRegister_${type.slice('РегистрНакопления.'.length)}`
  return type
}

export function typeOfSet(set: string): string | undefined {
  if (set.startsWith('Catalog_')) return `Справочник.${set.slice('Catalog_'.length)}`
  if (set.startsWith('Document_')) return `Документ.${set.slice('Document_'.length)}`
  return undefined
}
