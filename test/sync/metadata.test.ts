// The streaming $metadata reader on an EDMX written the way 1C writes it: types before the
// container, navigation through associations, row types as complex types.
import * as assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { parseMetadataFile } from '../../src/sync/metadata/parse.js'
import { rowTypeOf } from '../../src/sync/metadata/model.js'
import { tempDir } from '../support/stores.js'

const EDMX = `<?xml version="1.0" encoding="UTF-8"?>
<edmx:Edmx xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" Version="1.0">
<edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="3.0">
<Schema xmlns="http://schemas.microsoft.com/ado/2009/11/edm" Namespace="StandardODATA">
<EntityType Name="Document_ЗаказПокупателя">
  <Key><PropertyRef Name="Ref_Key"/></Key>
  <Property Name="Ref_Key" Type="Edm.Guid" Nullable="false"/>
  <Property Name="DataVersion" Type="Edm.String"/>
  <Property Name="Контрагент_Key" Type="Edm.Guid"/>
  <Property Name="СкладГруппа" Type="Edm.String"/>
  <Property Name="СкладГруппа_Type" Type="Edm.String"/>
  <Property Name="Товары" Type="Collection(StandardODATA.Document_ЗаказПокупателя_Товары_RowType)" Nullable="false"/>
  <NavigationProperty Name="Контрагент" Relationship="StandardODATA.Document_ЗаказПокупателя_Контрагент" FromRole="Begin" ToRole="End"/>
</EntityType>
<EntityType Name="Catalog_Контрагенты">
  <Key><PropertyRef Name="Ref_Key"/></Key>
  <Property Name="Ref_Key" Type="Edm.Guid" Nullable="false"/>
</EntityType>
<EntityType Name="AccumulationRegister_ДенежныеСредства_RecordType">
  <Key><PropertyRef Name="Recorder"/><PropertyRef Name="Recorder_Type"/><PropertyRef Name="LineNumber"/></Key>
  <Property Name="Recorder" Type="Edm.String"/>
  <Property Name="Recorder_Type" Type="Edm.String"/>
  <Property Name="LineNumber" Type="Edm.Int64"/>
</EntityType>
<ComplexType Name="Document_ЗаказПокупателя_Товары_RowType">
  <Property Name="LineNumber" Type="Edm.Int64"/>
  <Property Name="Номенклатура_Key" Type="Edm.Guid"/>
</ComplexType>
<Association Name="Document_ЗаказПокупателя_Контрагент">
  <End Role="Begin" Type="StandardODATA.Document_ЗаказПокупателя" Multiplicity="*"/>
  <End Role="End" Type="StandardODATA.Catalog_Контрагенты" Multiplicity="0..1"/>
</Association>
<EntityContainer Name="InfoBase" m:IsDefaultEntityContainer="true">
  <EntitySet Name="Document_ЗаказПокупателя" EntityType="StandardODATA.Document_ЗаказПокупателя"/>
  <EntitySet Name="Catalog_Контрагенты" EntityType="StandardODATA.Catalog_Контрагенты"/>
  <EntitySet Name="AccumulationRegister_ДенежныеСредства_RecordType" EntityType="StandardODATA.AccumulationRegister_ДенежныеСредства_RecordType"/>
</EntityContainer>
</Schema>
</edmx:DataServices>
</edmx:Edmx>`

test('entity sets, keys in order, properties, navigation targets and row types', async () => {
  const file = join(tempDir(), 'm.xml')
  writeFileSync(file, EDMX)
  const meta = await parseMetadataFile(file)
  assert.deepEqual(Object.keys(meta.entitySets).sort(), [
    'AccumulationRegister_ДенежныеСредства_RecordType',
    'Catalog_Контрагенты',
    'Document_ЗаказПокупателя',
  ])
  const order = meta.entitySets['Document_ЗаказПокупателя']!
  assert.deepEqual(order.keys, ['Ref_Key'])
  assert.deepEqual(order.navigation, { Контрагент: 'Catalog_Контрагенты' })
  assert.deepEqual(
    order.properties.map((p) => p.name),
    ['Ref_Key', 'DataVersion', 'Контрагент_Key', 'СкладГруппа', 'СкладГруппа_Type', 'Товары'],
  )
  assert.deepEqual(meta.entitySets['AccumulationRegister_ДенежныеСредства_RecordType']!.keys, ['Recorder', 'Recorder_Type', 'LineNumber'])
  const rows = rowTypeOf(meta, order.properties[5]!)
  assert.deepEqual(rows?.properties, [
    { name: 'LineNumber', type: 'Edm.Int64' },
    { name: 'Номенклатура_Key', type: 'Edm.Guid' },
  ])
})

test('a document that is not EDMX, or not XML, is refused with one line', async () => {
  const dir = tempDir()
  writeFileSync(join(dir, 'a.xml'), '<html><body>login</body></html>')
  writeFileSync(join(dir, 'b.xml'), '{"odata.metadata": 1}')
  await assert.rejects(parseMetadataFile(join(dir, 'a.xml')), /^Error: \$metadata unreadable: not an EDMX document$/)
  await assert.rejects(
    parseMetadataFile(join(dir, 'b.xml')),
    (err: Error) => err.message.startsWith('$metadata unreadable: ') && !err.message.includes('\n'),
  )
})
