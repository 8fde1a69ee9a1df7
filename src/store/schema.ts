// DDL derived from the object model (model/objects.ts) plus the read models the API
// serves from (projections) and the gateway's own tables. One schema for both engines;
// only the column type names differ (Dialect.types).
import { ALL_TABLE_TYPES, OWNER_LINKS, REGISTER_TYPES } from '../model/objects.js'
import type { Attr, ObjectType } from '../model/define.js'
import { chunkTableDef } from './blobs.js'
import type { Dialect } from './sql.js'
import { indexColumns } from './table.js'
import type { ColumnDef, TableDef } from './table.js'

export const SCHEMA_VERSION = 2

const text = (name: string): ColumnDef => ({ name, type: 'text' })
const int = (name: string): ColumnDef => ({ name, type: 'int' })

export function attrColumns(attr: Attr): ColumnDef[] {
  switch (attr.kind) {
    case 'number':
      return [{ name: attr.col, type: 'real' }]
    case 'boolean':
      return [int(attr.col)]
    case 'base64':
      // The content lives in chunks (store/blobs.ts); the object keeps its size.
      return [int(`${attr.col}_size`)]
    case 'composite':
      return [text(attr.col), text(`${attr.col}_type`)]
    default:
      return [text(attr.col)]
  }
}

/** Columns every object of a class has, before its own attributes. */
export function commonColumns(decl: ObjectType): ColumnDef[] {
  const cols = [text('ref'), int('deletion_mark')]
  if (decl.class === 'catalog') cols.push(text('code'), text('name'))
  else cols.push(text('number'), text('date'), int('posted'))
  if (decl.hierarchical) cols.push(int('is_group'), text('parent'))
  if (decl.table === 'doc_other') cols.push(text('type'))
  return cols
}

// Only the links the API follows from the referenced side get an index (an attachment's
// document, a payment record's request); every other index would be paid at each import.
function refIndexes(table: string): string[][] {
  return [...(OWNER_LINKS[table] ?? []), ...(TRACED_LINKS[table] ?? [])].map((col) => [col])
}

/** Whether a source table's `column` has an index of its own: its `ref`, or a link given one above. */
export const indexedColumn = (table: string, column: string): boolean =>
  column === 'ref' || (OWNER_LINKS[table] ?? []).includes(column) || (TRACED_LINKS[table] ?? []).includes(column)

/**
 * Links the import follows backwards: to the orders whose planned cost a changed
 * specification reaches (endpoints/shared/order-goods.ts plannedCostTrace), one index
 * lookup per step of its recursion instead of a scan; and the references to any document
 * (a request's basis, a receipt's deal), which every batch of documents traces for the
 * forms that print them (views/rebuild.ts): without an index each batch scanned the
 * whole table (~2 ms a batch at scale 10, ten times that at scale 100).
 */
const TRACED_LINKS: Readonly<Record<string, readonly string[]>> = {
  cat_nomenclature: ['main_spec'],
  cat_specifications_materials: ['nomenclature'],
  doc_expense_requests: ['basis'],
  doc_receipts: ['deal'],
}

export function modelTables(): TableDef[] {
  const tables: TableDef[] = [
    {
      name: 'objects',
      columns: [text('ref'), text('type'), text('presentation'), text('date')],
      primaryKey: ['ref'],
      clustered: true,
    },
  ]
  for (const decl of ALL_TABLE_TYPES) {
    for (const a of decl.attrs) if (a.kind === 'base64') tables.push(chunkTableDef(decl.table, a.col))
    tables.push({
      name: decl.table,
      columns: [...commonColumns(decl), ...decl.attrs.flatMap(attrColumns)],
      primaryKey: ['ref'],
      indexes: [...refIndexes(decl.table), ...(decl.hierarchical ? [['parent']] : [])],
    })
    for (const part of decl.tabular ?? []) {
      tables.push({
        name: part.table,
        columns: [text('owner'), int('line'), text('row_number'), ...part.attrs.flatMap(attrColumns)],
        primaryKey: ['owner', 'line'],
        clustered: true,
        indexes: refIndexes(part.table),
      })
    }
  }
  for (const reg of REGISTER_TYPES) {
    tables.push({
      name: reg.table,
      columns: [text('recorder'), text('recorder_type'), int('line'), ...reg.attrs.flatMap(attrColumns)],
      primaryKey: ['recorder', 'line'],
      indexes: refIndexes(reg.table),
    })
  }
  tables.push(
    {
      name: 'users',
      columns: [text('name'), text('hash'), text('methods'), text('created_at')],
      primaryKey: ['name'],
    },
    { name: 'meta', columns: [text('key'), text('value')], primaryKey: ['key'] },
  )
  return tables
}

const defaults: Record<ColumnDef['type'], string> = {
  text: "NOT NULL DEFAULT ''",
  real: 'NOT NULL DEFAULT 0',
  int: 'NOT NULL DEFAULT 0',
  blob: '',
}

export function tableDdl(table: TableDef, dialect: Dialect): string {
  const cols = table.columns.map((c) => `  ${c.name} ${dialect.types[c.type]} ${defaults[c.type]}`.trimEnd())
  const suffix = table.clustered ? dialect.clusteredTable : ''
  const lines = [
    `CREATE TABLE IF NOT EXISTS ${table.name} (\n${cols.join(',\n')},\n  PRIMARY KEY (${table.primaryKey.join(', ')})\n)${suffix};`,
  ]
  for (const index of table.indexes ?? []) {
    const idx = indexColumns(index, dialect.indexCarries)
    const where = 'columns' in index ? index.where : undefined
    lines.push(
      where === undefined
        ? `CREATE INDEX IF NOT EXISTS ${table.name}__${idx.join('_')} ON ${table.name} (${idx.join(', ')});`
        : `CREATE INDEX IF NOT EXISTS ${table.name}__${idx.join('_')}__partial ON ${table.name} (${idx.join(', ')}) WHERE ${where};`,
    )
  }
  return lines.join('\n')
}
