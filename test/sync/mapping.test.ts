// The mapping rules of sync.md §4–§6 with literal values, against the `$metadata` that
// УПП 1.3 publishes (as the fake writes it) and entities of the shapes of §3.
import * as assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { edmx } from '../../src/fake1c/edmx.js'
import { REGISTERS, shapes } from '../../src/fake1c/upp.js'
import {
  MapFileError,
  attachmentContent,
  defaultMapFile,
  mapEntity,
  mapRecordSet,
  parseMapFile,
  recorderOf,
  resolveMap,
} from '../../src/sync/mapping/index.js'
import type { MapFile, SetPlan } from '../../src/sync/mapping/index.js'
import type { Metadata, StructuredType } from '../../src/sync/metadata/model.js'
import { parseMetadataFile } from '../../src/sync/metadata/parse.js'
import { tempDir } from '../support/stores.js'

/** `partSets`: also the `<Set>_<Part>` entity types on which real 1C declares a row's navigation properties. */
async function metadataOf(custom: boolean, partSets = false): Promise<Metadata> {
  const decls = shapes(custom, '2026-11-24').map((s) => ({
    set: s.set,
    keys: ['Ref_Key'],
    props: [{ name: 'Ref_Key', type: 'Edm.Guid' }, { name: 'DataVersion', type: 'Edm.String' }, ...s.props],
    collections: s.parts.map((p) => ({ name: p.name, rowType: `${s.set}_${p.name}_RowType`, props: p.props })),
  }))
  if (partSets) {
    for (const s of shapes(custom, '2026-11-24')) {
      for (const p of s.parts) {
        decls.push({
          set: `${s.set}_${p.name}`,
          keys: ['Ref_Key', 'LineNumber'],
          props: [{ name: 'Ref_Key', type: 'Edm.Guid' }, { name: 'LineNumber', type: 'Edm.Int64' }, ...p.props],
          collections: [],
        })
      }
    }
  }
  for (const r of REGISTERS) {
    decls.push({
      set: r.set,
      keys: ['Recorder', 'Recorder_Type'],
      props: r.props.slice(0, 2),
      collections: [{ name: 'RecordSet', rowType: `${r.set}_RowType`, props: [...r.props.slice(2)] }],
    })
    decls.push({ set: `${r.set}_RecordType`, keys: ['Recorder', 'Recorder_Type', 'LineNumber'], props: [...r.props], collections: [] })
  }
  for (const other of ['Document_ПлатежноеПоручениеИсходящее']) {
    decls.push({
      set: other,
      keys: ['Ref_Key'],
      props: [
        { name: 'Ref_Key', type: 'Edm.Guid' },
        { name: 'Number', type: 'Edm.String' },
      ],
      collections: [],
    })
  }
  const file = join(tempDir(), 'metadata.xml')
  writeFileSync(file, edmx(decls))
  return parseMetadataFile(file)
}

const standard = await metadataOf(false)
const custom = await metadataOf(true)

const plan = (meta: Metadata, set: string, map: MapFile = defaultMapFile(), others: string[] = []): SetPlan => {
  const p = resolveMap(meta, map, others).plans.find((x) => x.entitySet === set)
  assert.ok(p, `no plan for ${set}`)
  return p
}

/** A copy of the metadata with one entity type edited. */
function edited(meta: Metadata, set: string, edit: (t: StructuredType) => StructuredType): Metadata {
  return { ...meta, entitySets: { ...meta.entitySets, [set]: edit(meta.entitySets[set]!) } }
}

const ctx = { today: '2026-11-24' }
const Z = '00000000-0000-0000-0000-000000000000'

test('§4.5: the example entity is written exactly as its import line', () => {
  const entity = {
    Ref_Key: 'D1000000-0000-4000-8000-000000000001',
    DataVersion: 'AAAAAgAAAAA=',
    DeletionMark: false,
    Number: 'ЗП-000012  ',
    Date: '2026-03-05T10:00:00',
    Posted: true,
    Организация_Key: 'a0000000-0000-4000-8000-000000000002',
    Ответственный_Key: Z,
    Контрагент_Key: 'c0000000-0000-4000-8000-000000000003',
    ДоговорКонтрагента_Key: 'c0000000-0000-4000-8000-000000000004',
    СкладГруппа: 'e0000000-0000-4000-8000-000000000005',
    СкладГруппа_Type: 'StandardODATA.Catalog_ГруппыДоступностиСкладов',
    СуммаДокумента: 1180,
    ДатаОплаты: '0001-01-01T00:00:00',
    Комментарий: '',
    Товары: [
      {
        Ref_Key: 'd1000000-0000-4000-8000-000000000001',
        LineNumber: '1',
        Номенклатура_Key: 'f0000000-0000-4000-8000-000000000006',
        Количество: 2,
        Цена: 590,
        Сумма: 1180,
        Коэффициент: '1',
        СтавкаНДС: 'НДС18',
      },
    ],
    'Контрагент@navigationLinkUrl': "Document_ЗаказПокупателя(guid'd1')/Контрагент",
  }
  const m = mapEntity(plan(standard, 'Document_ЗаказПокупателя'), entity, ctx)
  assert.equal(m.ok, true)
  if (!m.ok) return
  assert.deepEqual(m.object, {
    type: 'Документ.ЗаказПокупателя',
    ref: 'd1000000-0000-4000-8000-000000000001',
    ПометкаУдаления: false,
    Номер: 'ЗП-000012',
    Дата: '2026-03-05T10:00:00',
    Проведен: true,
    Организация: 'a0000000-0000-4000-8000-000000000002',
    Ответственный: '',
    Комментарий: '',
    Контрагент: 'c0000000-0000-4000-8000-000000000003',
    ДоговорКонтрагента: 'c0000000-0000-4000-8000-000000000004',
    ИспользоватьПлановуюСебестоимость: false,
    ИтогПлановаяСебестоимость: 0,
    СуммаДокумента: 1180,
    Склад: '',
    ДатаОплаты: '0001-01-01T00:00:00',
    ДатаОтгрузки: '',
    Товары: [
      {
        НомерСтроки: 1,
        Номенклатура: 'f0000000-0000-4000-8000-000000000006',
        ХарактеристикаНоменклатуры: '',
        Количество: 2,
        Цена: 590,
        Сумма: 1180,
        ЕдиницаИзмерения: '',
        КоличествоМест: 0,
        Коэффициент: 1,
        ПлановаяСебестоимость: 0,
        СуммаНДС: 0,
        СтавкаНДС: '18%',
        Спецификация: '',
      },
    ],
  })
  // The warehouse-availability group is a type outside the targets: empty, with a warning (R6).
  assert.deepEqual(m.warnings, [
    {
      ref: 'd1000000-0000-4000-8000-000000000001',
      attribute: 'Склад',
      reason: 'StandardODATA.Catalog_ГруппыДоступностиСкладов is not kept; empty reference',
    },
  ])
})

test('R3: only trailing U+0020 leave Code and Number; other strings keep their padding', () => {
  const p = plan(standard, 'Catalog_Контрагенты')
  const m = mapEntity(
    p,
    {
      Ref_Key: 'A'.repeat(8) + '-0000-4000-8000-000000000001',
      Code: '00012\u00a0  ',
      Description: '  ООО Ромашка  ',
      ИНН: '7701 ',
      DeletionMark: false,
    },
    ctx,
  )
  assert.ok(m.ok)
  assert.deepEqual(m.object, {
    type: 'Справочник.Контрагенты',
    ref: 'aaaaaaaa-0000-4000-8000-000000000001',
    ПометкаУдаления: false,
    Код: '00012\u00a0',
    Наименование: '  ООО Ромашка  ',
    ИНН: '7701 ',
  })
})

test('R3: numbers from JSON numbers or decimal strings; anything else is a mapping error naming the attribute', () => {
  const p = plan(standard, 'Document_ЗаказНаПроизводство')
  const row = (LineNumber: unknown, Количество: unknown) => ({ LineNumber, Номенклатура_Key: Z, Количество, ЕдиницаИзмерения_Key: Z })
  const base = {
    Ref_Key: 'b0000000-0000-4000-8000-000000000001',
    Number: 'ЗН-1',
    Date: '2026-01-01T00:00:00',
    Posted: true,
    DeletionMark: false,
    Организация_Key: Z,
    Ответственный_Key: Z,
    Комментарий: '',
  }
  const ok = mapEntity(p, { ...base, Продукция: [row('2', '12.50'), row('10', 3), row('1', '-1e2')], Материалы: [] }, ctx)
  assert.ok(ok.ok)
  assert.deepEqual(
    (ok.object['Продукция'] as { НомерСтроки: number; Количество: number }[]).map((r) => [r.НомерСтроки, r.Количество]),
    [
      [1, -100],
      [2, 12.5],
      [10, 3],
    ],
  )
  const bad = mapEntity(p, { ...base, Продукция: [row('1', 'двенадцать')], Материалы: [] }, ctx)
  assert.deepEqual(bad, {
    ok: false,
    skip: 'error',
    warnings: [
      { ref: 'b0000000-0000-4000-8000-000000000001', attribute: 'Продукция.Количество', reason: 'expected a number, got "двенадцать"' },
    ],
  })
})

test('R3/R4: null on a folder is the empty value; the folder keeps ЭтоГруппа and Родитель', () => {
  const p = plan(standard, 'Catalog_Номенклатура')
  const m = mapEntity(
    p,
    {
      Ref_Key: 'c1000000-0000-4000-8000-000000000001',
      DeletionMark: false,
      Code: '000000001',
      Description: 'Материалы',
      IsFolder: true,
      Parent_Key: Z,
      Артикул: null,
      Услуга: null,
      ЕдиницаХраненияОстатков_Key: null,
      ВидНоменклатуры_Key: null,
      НоменклатурнаяГруппа_Key: null,
      ОсновнойПоставщик_Key: null,
    },
    ctx,
  )
  assert.ok(m.ok)
  assert.deepEqual(m.object, {
    type: 'Справочник.Номенклатура',
    ref: 'c1000000-0000-4000-8000-000000000001',
    ПометкаУдаления: false,
    Код: '000000001',
    Наименование: 'Материалы',
    ЭтоГруппа: true,
    Родитель: '',
    Артикул: '',
    Услуга: false,
    ЕдиницаИзмерения: '',
    ВидНоменклатуры: '',
    НоменклатурнаяГруппа: '',
    ОсновнойПоставщик: '',
  })
})

test('R4: a folder of any other catalogue is not synced', () => {
  const m = mapEntity(
    plan(standard, 'Catalog_Контрагенты'),
    { Ref_Key: 'c2000000-0000-4000-8000-000000000001', IsFolder: true, Description: 'Покупатели' },
    ctx,
  )
  assert.deepEqual(m, { ok: false, skip: 'not-synced', warnings: [] })
})

test('R6: composite pairs keep catalogue and document targets only; the rest is empty, most with a warning', () => {
  const p = plan(standard, 'Document_ЗаявкаНаРасходованиеСредств')
  const ref = 'e1000000-0000-4000-8000-000000000001'
  const head = {
    Ref_Key: ref,
    Number: '1',
    Date: '2026-01-01T00:00:00',
    Posted: true,
    DeletionMark: false,
    Организация_Key: Z,
    Ответственный_Key: Z,
    Комментарий: '',
    ДатаРасхода: '0001-01-01T00:00:00',
    Контрагент_Key: Z,
    СуммаДокумента: 0,
  }
  const cases: [string, string, unknown, string | undefined][] = [
    [
      'StandardODATA.Catalog_Контрагенты',
      'ABCDEF00-0000-4000-8000-000000000009',
      { type: 'Справочник.Контрагенты', ref: 'abcdef00-0000-4000-8000-000000000009' },
      undefined,
    ],
    [
      'StandardODATA.Catalog_ФизическиеЛица',
      'abcdef00-0000-4000-8000-000000000009',
      { type: 'Справочник.ФизическиеЛица', ref: 'abcdef00-0000-4000-8000-000000000009' },
      undefined,
    ],
    ['StandardODATA.Undefined', '', null, undefined],
    ['StandardODATA.Catalog_Контрагенты', Z, null, undefined],
    [
      'StandardODATA.Catalog_Кассы',
      'abcdef00-0000-4000-8000-000000000009',
      null,
      'StandardODATA.Catalog_Кассы is not kept; empty reference',
    ],
    [
      'UnavailableEntities.UnavailableEntity_5e3c6f2a-0000-4000-8000-000000000000',
      'abcdef00-0000-4000-8000-000000000009',
      null,
      'UnavailableEntities.UnavailableEntity_5e3c6f2a-0000-4000-8000-000000000000 is not kept; empty reference',
    ],
    ['StandardODATA.ВидыДвиженийДенежныхСредств', 'Оплата', null, 'StandardODATA.ВидыДвиженийДенежныхСредств is not kept; empty reference'],
    ['Edm.String', 'текст', null, 'Edm.String is not kept; empty reference'],
  ]
  for (const [type, value, expected, warning] of cases) {
    const m = mapEntity(
      p,
      {
        ...head,
        Получатель: value,
        Получатель_Type: type,
        БанковскийСчетКасса: '',
        БанковскийСчетКасса_Type: 'StandardODATA.Undefined',
        ДокументОснование: '',
        ДокументОснование_Type: 'StandardODATA.Undefined',
      },
      ctx,
    )
    assert.ok(m.ok)
    assert.deepEqual(m.object['Получатель'], expected, type)
    assert.deepEqual(m.warnings, warning ? [{ ref, attribute: 'Получатель', reason: warning }] : [], type)
  }
  const cash = mapEntity(
    p,
    {
      ...head,
      Получатель: '',
      Получатель_Type: 'StandardODATA.Undefined',
      БанковскийСчетКасса: 'abcdef00-0000-4000-8000-000000000001',
      БанковскийСчетКасса_Type: 'StandardODATA.Catalog_Кассы',
      ДокументОснование: 'abcdef00-0000-4000-8000-000000000002',
      ДокументОснование_Type: 'StandardODATA.Document_СчетНаОплатуПоставщика',
    },
    ctx,
  )
  assert.ok(cash.ok)
  assert.deepEqual(cash.object['Касса'], { type: 'Справочник.Кассы', ref: 'abcdef00-0000-4000-8000-000000000001' })
  assert.deepEqual(cash.object['ДокументОснование'], {
    type: 'Документ.СчетНаОплатуПоставщика',
    ref: 'abcdef00-0000-4000-8000-000000000002',
  })
})

test('R8: VAT enumeration members become the stored strings; others pass as received', () => {
  const p = plan(standard, 'Document_ПоступлениеТоваровУслуг')
  const rates = ['НДС18', 'НДС18_118', 'НДС10', 'НДС10_110', 'НДС0', 'БезНДС', 'НДС20', 'НДС20_120', '', 'НДС22']
  const m = mapEntity(
    p,
    {
      Ref_Key: 'f1000000-0000-4000-8000-000000000001',
      Number: '1',
      Date: '2026-01-01T00:00:00',
      Товары: rates.map((r, i) => ({ LineNumber: String(i + 1), СтавкаНДС: r })),
      Услуги: [],
      СкладОрдер: '',
      СкладОрдер_Type: 'StandardODATA.Undefined',
      Сделка: '',
      Сделка_Type: 'StandardODATA.Undefined',
    },
    ctx,
  )
  assert.ok(m.ok)
  assert.deepEqual(
    (m.object['Товары'] as { СтавкаНДС: string }[]).map((r) => r.СтавкаНДС),
    ['18%', '18% / 118%', '10%', '10% / 110%', '0%', 'Без НДС', '20%', '20% / 120%', '', 'НДС22'],
  )
})

test('§4.2: a bank account is closed from ДатаЗакрытия up to the cycle day; a counterparty-owned account has no Владелец', () => {
  const p = plan(standard, 'Catalog_БанковскиеСчета')
  const account = (ДатаЗакрытия: string, Owner_Type: string) => ({
    Ref_Key: 'a1000000-0000-4000-8000-000000000001',
    Description: '40702810…',
    Owner: 'a2000000-0000-4000-8000-000000000002',
    Owner_Type,
    Банк_Key: Z,
    ВидСчета: 'Расчетный',
    ВалютаДенежныхСредств_Key: Z,
    ДатаЗакрытия,
  })
  const closed = (d: string) => {
    const m = mapEntity(p, account(d, 'StandardODATA.Catalog_Организации'), ctx)
    assert.ok(m.ok)
    return m.object['Закрыт']
  }
  assert.equal(closed('2026-11-24T00:00:00'), true)
  assert.equal(closed('2026-11-25T00:00:00'), false)
  assert.equal(closed('0001-01-01T00:00:00'), false)
  const own = mapEntity(p, account('0001-01-01T00:00:00', 'StandardODATA.Catalog_Организации'), ctx)
  assert.ok(own.ok)
  assert.equal(own.object['Владелец'], 'a2000000-0000-4000-8000-000000000002')
  const theirs = mapEntity(p, account('0001-01-01T00:00:00', 'StandardODATA.Catalog_Контрагенты'), ctx)
  assert.ok(theirs.ok)
  assert.equal(theirs.object['Владелец'], '')
  const cash = mapEntity(
    plan(standard, 'Catalog_Кассы'),
    { Ref_Key: 'a3000000-0000-4000-8000-000000000001', Owner_Key: Z, ВалютаДенежныхСредств_Key: Z },
    ctx,
  )
  assert.ok(cash.ok)
  assert.equal(cash.object['Закрыт'], false)
})

test('§4.2 attachments: only the three owners; the content without whitespace, only for files', () => {
  const p = plan(standard, 'Catalog_ХранилищеДополнительнойИнформации')
  assert.equal(p.select.includes('Хранилище_Base64Data'), false)
  const entry = (Объект_Type: string) => ({
    Ref_Key: 'a4000000-0000-4000-8000-000000000001',
    Description: 'Счёт',
    Объект: 'a5000000-0000-4000-8000-000000000001',
    Объект_Type,
    ИмяФайла: 'счёт.pdf',
  })
  const kept = mapEntity(p, entry('StandardODATA.Document_ЗаказПоставщику'), ctx)
  assert.ok(kept.ok)
  assert.deepEqual(kept.object['Объект'], { type: 'Документ.ЗаказПоставщику', ref: 'a5000000-0000-4000-8000-000000000001' })
  assert.equal(mapEntity(p, entry('StandardODATA.Document_ЗаказПокупателя'), ctx).ok, false)
  assert.deepEqual(attachmentContent({ Хранилище_Type: 'image/jpeg', Хранилище_Base64Data: 'QUJD\r\nREVG\n' }), {
    ok: true,
    data: 'QUJDREVG',
  })
  assert.deepEqual(attachmentContent({ Хранилище_Type: 'application/octet-stream', Хранилище_Base64Data: 'QUJD' }), {
    ok: true,
    data: 'QUJD',
  })
  assert.deepEqual(attachmentContent({ Хранилище_Type: 'application/xml+xdto', Хранилище_Base64Data: 'PHg+' }), {
    ok: false,
    reason: 'stored value of type "application/xml+xdto" is not a file; not synced',
  })
  assert.deepEqual(attachmentContent({ Хранилище_Type: 'application/octet-stream', Хранилище_Base64Data: '' }), {
    ok: false,
    reason: 'empty storage; not synced',
  })
})

test('§4.4 registers: Receipt/Expense, inactive rows dropped, LineNumber order, required-empty rows dropped with a warning', () => {
  const cash = plan(standard, 'AccumulationRegister_ДенежныеСредства')
  const recorder = recorderOf(cash, {
    Recorder: 'A6000000-0000-4000-8000-000000000001',
    Recorder_Type: 'StandardODATA.Document_ПлатежноеПоручениеИсходящее',
  })!
  assert.deepEqual(recorder, { ref: 'a6000000-0000-4000-8000-000000000001', set: 'Document_ПлатежноеПоручениеИсходящее' })
  const row = (LineNumber: string, RecordType: string, Active: boolean, account: string) => ({
    Period: '2026-03-05T10:00:00',
    LineNumber,
    Active,
    RecordType,
    Организация_Key: 'a7000000-0000-4000-8000-000000000001',
    БанковскийСчетКасса: account,
    БанковскийСчетКасса_Type: account ? 'StandardODATA.Catalog_БанковскиеСчета' : 'StandardODATA.Undefined',
    Сумма: '1000.5',
    СуммаУпр: 1000.5,
  })
  const m = mapRecordSet(cash, recorder, [
    row('3', 'Receipt', true, 'a8000000-0000-4000-8000-000000000001'),
    row('1', 'Expense', true, 'a8000000-0000-4000-8000-000000000002'),
    row('2', 'Expense', false, 'a8000000-0000-4000-8000-000000000003'),
    row('4', 'Expense', true, ''),
  ])
  assert.ok(m.ok)
  assert.deepEqual(m.object, {
    type: 'РегистрНакопления.ДенежныеСредства',
    Регистратор: { type: 'Документ.ПлатежноеПоручениеИсходящее', ref: 'a6000000-0000-4000-8000-000000000001' },
    Движения: [
      {
        Период: '2026-03-05T10:00:00',
        ВидДвижения: 'Расход',
        Организация: 'a7000000-0000-4000-8000-000000000001',
        БанковскийСчетКасса: { type: 'Справочник.БанковскиеСчета', ref: 'a8000000-0000-4000-8000-000000000002' },
        Сумма: 1000.5,
        СуммаУпр: 1000.5,
      },
      {
        Период: '2026-03-05T10:00:00',
        ВидДвижения: 'Приход',
        Организация: 'a7000000-0000-4000-8000-000000000001',
        БанковскийСчетКасса: { type: 'Справочник.БанковскиеСчета', ref: 'a8000000-0000-4000-8000-000000000001' },
        Сумма: 1000.5,
        СуммаУпр: 1000.5,
      },
    ],
  })
  assert.deepEqual(m.warnings, [
    { ref: 'a6000000-0000-4000-8000-000000000001', attribute: 'БанковскийСчетКасса', reason: 'empty in row 4; row dropped' },
  ])

  const requests = plan(standard, 'AccumulationRegister_ЗаявкиНаРасходованиеСредств')
  assert.deepEqual(requests.skipRecorderTypes, ['Document_ЗаявкаНаРасходованиеСредств'])
  const paid = mapRecordSet(requests, { ref: 'a9000000-0000-4000-8000-000000000001', set: 'Document_ПлатежноеПоручениеИсходящее' }, [
    {
      Period: '2026-03-05T10:00:00',
      LineNumber: '1',
      Active: true,
      RecordType: 'Receipt',
      ЗаявкаНаРасходование_Key: 'aa000000-0000-4000-8000-000000000001',
      Сумма: 5,
    },
    {
      Period: '2026-03-05T10:00:00',
      LineNumber: '2',
      Active: true,
      RecordType: 'Expense',
      ЗаявкаНаРасходование_Key: 'aa000000-0000-4000-8000-000000000001',
      Сумма: 7,
    },
  ])
  assert.ok(paid.ok)
  assert.deepEqual(paid.object['Движения'], [{ ЗаявкаНаРасходование: 'aa000000-0000-4000-8000-000000000001', Сумма: 7 }])
  const odd = mapRecordSet(cash, { ref: 'ab000000-0000-4000-8000-000000000001', set: 'UnavailableEntities.UnavailableEntity_1' }, [])
  assert.equal(odd.ok, false)
})

test('§6 report: found, renamed and not in this infobase for standard УПП; the result line', () => {
  const r = resolveMap(standard, defaultMapFile(), [])
  assert.ok(
    r.lines.includes(
      'Справочник.Номенклатура ← Catalog_Номенклатура: found 11; renamed: ЕдиницаИзмерения ← ЕдиницаХраненияОстатков; not in this infobase: ОсновнаяСпецификация',
    ),
  )
  assert.ok(
    r.lines.includes(
      'Документ.ЗаявкаНаРасходованиеСредств ← Document_ЗаявкаНаРасходованиеСредств: found 13; renamed: Касса ← БанковскийСчетКасса; not in this infobase: Статус, КтоИзменилСтатус, ДатаСменыСтатуса',
    ),
  )
  assert.equal(r.lines.at(-1), 'result: OK')
  assert.equal(r.missing, 0)
  // A customised base publishes the optional attributes: they are found, not reported.
  const c = resolveMap(custom, defaultMapFile(), [])
  assert.ok(
    c.lines.includes('Справочник.Номенклатура ← Catalog_Номенклатура: found 12; renamed: ЕдиницаИзмерения ← ЕдиницаХраненияОстатков'),
  )
})

test('§6 report: a tabular row reference is "not published" only when its target set is absent', async () => {
  const specs = (meta: Metadata) =>
    resolveMap(meta, defaultMapFile(), []).lines.find((l) => l.startsWith('Справочник.СпецификацииНоменклатуры ← '))!
  // Row types declare no navigation property: the target sets are published, nothing is listed.
  assert.equal(specs(custom), 'Справочник.СпецификацииНоменклатуры ← Catalog_СпецификацииНоменклатуры: found 21')
  // As real 1C does: the row's navigation properties on the `<Set>_<Part>` entity type.
  const withParts = await metadataOf(true, true)
  assert.equal(withParts.entitySets['Catalog_СпецификацииНоменклатуры_Материалы']?.navigation['Номенклатура'], 'Catalog_Номенклатура')
  assert.equal(specs(withParts), 'Справочник.СпецификацииНоменклатуры ← Catalog_СпецификацииНоменклатуры: found 21')
  // A target set that is not published is listed.
  const { Catalog_ЕдиницыИзмерения: _gone, ...rest } = withParts.entitySets
  const hidden: Metadata = { ...withParts, entitySets: rest }
  assert.match(specs(hidden), /; targets not published: Материалы\.ЕдиницаИзмерения → Catalog_ЕдиницыИзмерения$/)
})

test('§6 report: a missing required reference and a kind mismatch do not resolve', () => {
  let meta = edited(standard, 'Document_ЗаказПоставщику', (t) => ({ ...t, properties: t.properties.filter((p) => p.name !== 'Склад_Key') }))
  meta = edited(meta, 'Catalog_Номенклатура', (t) => ({
    ...t,
    properties: t.properties.map((p) => (p.name === 'Артикул' ? { ...p, type: 'Edm.Double' } : p)),
  }))
  const r = resolveMap(meta, defaultMapFile(), [])
  assert.equal(r.missing, 2)
  assert.ok(
    r.missingLines.some(
      (l) =>
        l.startsWith('Документ.ЗаказПоставщику ← Document_ЗаказПоставщику: found ') &&
        l.endsWith('; MISSING: Склад (no Склад_Key, no Склад + Склад_Type)'),
    ),
    r.missingLines.join('\n'),
  )
  assert.ok(
    r.missingLines.some((l) => l.endsWith('MISSING: Артикул (Артикул is Edm.Double, expected Edm.String)')),
    r.missingLines.join('\n'),
  )
  assert.equal(r.lines.at(-1), 'result: 2 missing-required — the map does not resolve')
  assert.equal(
    r.plans.some((p) => p.entitySet === 'Document_ЗаказПоставщику'),
    false,
  )
})

test('§5: the complete example parses; the map renames, converts, trims, nulls and stops syncing types', () => {
  const map = parseMapFile(
    JSON.stringify({
      options: { concurrency: 2, registerRescanDays: 60 },
      types: {
        'Документ.ЗаявкаНаРасходованиеСредств': {
          attributes: {
            Статус: { from: 'СтатусЗаявки', enum: { НаСогласовании: 'На согласовании', Утверждена: 'Утверждена' } },
            КтоИзменилСтатус: 'АвторСтатуса',
            ДатаСменыСтатуса: null,
          },
        },
        'Справочник.СпецификацииНоменклатуры': {
          tabularParts: {
            Материалы: {
              from: 'ИсходныеКомплектующие',
              attributes: { Номенклатура: { from: 'Номенклатура', keepTypes: ['Catalog_Номенклатура'] }, Цена: null, Сумма: null },
            },
            ЭтапыПоставки: null,
          },
        },
        'Справочник.Номенклатура': {
          attributes: { ОсновнаяСпецификация: { sliceLast: 'InformationRegister_ОсновныеСпецификацииНоменклатуры' } },
        },
        'Справочник.БанковскиеСчета': { attributes: { ВидСчета: { from: 'ВидСчета', trim: true } } },
        'Справочник.Кассы': { attributes: { Закрыт: 'Закрыта' } },
        'РегистрНакопления.ЗаявкиНаРасходованиеСредств': {
          skipRecorderTypes: ['Document_ЗаявкаНаРасходованиеСредств', 'Document_ЗакрытиеЗаявокНаРасходованиеСредств'],
        },
        'Документ.ПлатежноеПоручениеИсходящее': {},
      },
    }),
  )
  assert.deepEqual(map.options, {
    concurrency: 2,
    maxDeletePercent: 2,
    registerRescanDays: 60,
    readTimeoutSeconds: 300,
    recentMonths: 3,
    fullScanHours: 24,
  })
  assert.deepEqual(
    { ...parseMapFile(JSON.stringify({ options: { recentMonths: 1, fullScanHours: 0 } })).options },
    { concurrency: 1, maxDeletePercent: 2, registerRescanDays: 45, readTimeoutSeconds: 300, recentMonths: 1, fullScanHours: 0 },
  )
  const meta = edited(standard, 'Document_ЗаявкаНаРасходованиеСредств', (t) => ({
    ...t,
    properties: [...t.properties, { name: 'СтатусЗаявки', type: 'Edm.String' }, { name: 'АвторСтатуса_Key', type: 'Edm.Guid' }],
  }))
  const p = plan(meta, 'Document_ЗаявкаНаРасходованиеСредств', map)
  const m = mapEntity(
    p,
    {
      Ref_Key: 'ac000000-0000-4000-8000-000000000001',
      СтатусЗаявки: 'НаСогласовании',
      АвторСтатуса_Key: 'AD000000-0000-4000-8000-000000000001',
      Получатель_Type: 'StandardODATA.Undefined',
      БанковскийСчетКасса_Type: 'StandardODATA.Undefined',
      ДокументОснование_Type: 'StandardODATA.Undefined',
    },
    ctx,
  )
  assert.ok(m.ok)
  assert.equal(m.object['Статус'], 'На согласовании')
  assert.equal(m.object['КтоИзменилСтатус'], 'ad000000-0000-4000-8000-000000000001')
  assert.equal('ДатаСменыСтатуса' in m.object, false)
  const r = resolveMap(meta, parseMapFile('{"types": {"Справочник.Кассы": null}}'), [])
  assert.ok(r.lines.includes('Справочник.Кассы: not synced (map)'))
  assert.equal(
    r.plans.some((x) => x.entitySet === 'Catalog_Кассы'),
    false,
  )
  const trimmed = mapEntity(
    plan(standard, 'Catalog_БанковскиеСчета', map),
    { Ref_Key: 'ae000000-0000-4000-8000-000000000001', ВидСчета: '  Расчетный  ' },
    ctx,
  )
  assert.ok(trimmed.ok)
  assert.equal(trimmed.object['ВидСчета'], 'Расчетный')
})

test('§5: errors name the JSON path', () => {
  const cases: [unknown, string][] = [
    [{ option: {} }, '$.option: unknown member'],
    [{ options: { concurrency: 3 } }, 'options.concurrency: expected a number from 1 to 2'],
    [{ options: { recentMonths: 0 } }, 'options.recentMonths: expected a number from 1'],
    [{ options: { recentMonths: 1.5 } }, 'options.recentMonths: expected a number from 1'],
    [{ options: { fullScanHours: -1 } }, 'options.fullScanHours: expected a number from 0'],
    [{ types: { 'Справочник.Склад': null } }, 'types.Справочник.Склад: unknown docgate type'],
    [{ types: { 'Справочник.Кассы': { attributes: { Закрыта: 'x' } } } }, 'types.Справочник.Кассы.attributes.Закрыта: unknown member'],
    [
      { types: { 'Справочник.Кассы': { attributes: { Закрыт: { form: 'x' } } } } },
      'types.Справочник.Кассы.attributes.Закрыт: unknown form',
    ],
    [
      { types: { 'Справочник.Кассы': { attributes: { Закрыт: { from: 'X', keepTypes: 'Catalog_X' } } } } },
      'types.Справочник.Кассы.attributes.Закрыт.keepTypes: expected an array of strings',
    ],
    [
      { types: { 'Справочник.Кассы': { attributes: { Владелец: { sliceLast: 'R' } } } } },
      'types.Справочник.Кассы.attributes.Владелец: sliceLast is only for ОсновнаяСпецификация of Справочник.Номенклатура',
    ],
    [
      { types: { 'РегистрНакопления.ДенежныеСредства': { recordTypes: ['Expence'] } } },
      'types.РегистрНакопления.ДенежныеСредства.recordTypes: expected ["Expense"], ["Receipt"] or both',
    ],
    [
      { types: { 'Документ.ЗаказПокупателя': { tabularParts: { Услуги: null } } } },
      'types.Документ.ЗаказПокупателя.tabularParts.Услуги: unknown member',
    ],
  ]
  for (const [json, message] of cases) {
    assert.throws(
      () => parseMapFile(JSON.stringify(json)),
      (err: Error) => err instanceof MapFileError && err.message === message,
      message,
    )
  }
})
