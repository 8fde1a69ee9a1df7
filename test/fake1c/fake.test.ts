// The fake 1C answers as a УПП 1.3 infobase's standard OData interface does (sync.md §3),
// checked over plain HTTP, independently of the connector.
import * as assert from 'node:assert/strict'
import { request } from 'node:http'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { startFake1C } from '../../src/fake1c/index.js'
import type { Fake1C } from '../../src/fake1c/index.js'
import { parseMetadataFile } from '../../src/sync/metadata/parse.js'
import { tempDir } from '../support/stores.js'

const Z = '00000000-0000-0000-0000-000000000000'
const ORG = '10000000-0000-4000-8000-000000000001'
const WH_GROUP = '10000000-0000-4000-8000-000000000002'
const WH = '10000000-0000-4000-8000-000000000003'
const ITEM = '10000000-0000-4000-8000-000000000004'
const ORDER = '10000000-0000-4000-8000-000000000005'
const PAY = '10000000-0000-4000-8000-000000000006'
const ACC = '10000000-0000-4000-8000-000000000007'

const OBJECTS = [
  { type: 'Справочник.Организации', ref: ORG, Код: '001', Наименование: 'ООО "Вектор"' },
  { type: 'Справочник.Склады', ref: WH_GROUP, Код: '1', Наименование: 'Склады', ЭтоГруппа: true },
  { type: 'Справочник.Склады', ref: WH, Код: '2', Наименование: 'Основной', ЭтоГруппа: false, Родитель: WH_GROUP },
  { type: 'Справочник.Номенклатура', ref: ITEM, Код: '3', Наименование: 'Болт', ЭтоГруппа: false, Артикул: 'M8' },
  { type: 'Справочник.Номенклатура', ref: '10000000-0000-4000-8000-000000000008', Код: '4', Наименование: 'Крепёж', ЭтоГруппа: true },
  { type: 'Справочник.БанковскиеСчета', ref: ACC, Код: '5', Наименование: '407…', Владелец: ORG, Закрыт: true },
  {
    type: 'Документ.ЗаказПокупателя',
    ref: ORDER,
    Номер: 'ЗК-1',
    Дата: '2026-03-05T10:00:00',
    Проведен: true,
    Организация: ORG,
    Склад: WH,
    ДатаОплаты: '2026-03-10',
    Товары: [{ Номенклатура: ITEM, Количество: 2, Цена: 590, Сумма: 1180, Коэффициент: 1, СтавкаНДС: '20%' }],
  },
  { type: 'Документ.ПлатежноеПоручениеИсходящее', ref: PAY, Номер: 'ПИ-1', Дата: '2026-03-06T11:00:00', Проведен: true },
  {
    type: 'РегистрНакопления.ДенежныеСредства',
    Регистратор: { type: 'Документ.ПлатежноеПоручениеИсходящее', ref: PAY },
    Движения: [
      {
        Период: '2026-03-06T11:00:00',
        ВидДвижения: 'Расход',
        Организация: ORG,
        БанковскийСчетКасса: { type: 'Справочник.БанковскиеСчета', ref: ACC },
        Сумма: 10,
        СуммаУпр: 10,
      },
    ],
  },
]

interface Res {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json: any
}

function get(url: string, headers: Record<string, string> = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => {
        let body = Buffer.concat(chunks)
        if (res.headers['content-encoding'] === 'gzip') body = gunzipSync(body)
        const text = body.toString('utf8')
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, json })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

const USER = 'Интегратор'
const PASS = 'пароль'
const auth = { authorization: `Basic ${Buffer.from(`${USER}:${PASS}`, 'utf8').toString('base64')}` }

describe('fake 1C', () => {
  let fake: Fake1C
  const q = (path: string) => get(`${fake.url}/${encodeURI(path)}`, auth)
  before(async () => {
    fake = await startFake1C({ objects: OBJECTS, user: USER, password: PASS, today: '2026-11-24' })
  })
  after(() => fake.close())

  test('credentials: UTF-8 Basic, 401 otherwise', async () => {
    assert.equal((await get(`${fake.url}/?$format=json`)).status, 401)
    const wrong = await get(`${fake.url}/?$format=json`, { authorization: `Basic ${Buffer.from(`${USER}:x`).toString('base64')}` })
    assert.equal(wrong.status, 401)
    assert.equal(wrong.headers['www-authenticate'], 'Basic realm="1C:Enterprise"')
    const ok = await q('?$format=json')
    assert.equal(ok.status, 200)
    assert.ok(ok.json.value.some((s: { name: string }) => s.name === 'Document_ЗаказПокупателя'))
  })

  test('$metadata is EDMX with navigation, row types and the register sets', async () => {
    const res = await q('$metadata')
    assert.equal(res.status, 200)
    const file = join(tempDir(), 'm.xml')
    writeFileSync(file, res.text)
    const meta = await parseMetadataFile(file)
    assert.deepEqual(meta.entitySets['Document_ЗаказПокупателя']!.navigation['Организация'], 'Catalog_Организации')
    assert.equal(meta.entitySets['Catalog_Номенклатура']!.navigation['ЕдиницаХраненияОстатков'], 'Catalog_ЕдиницыИзмерения')
    assert.deepEqual(meta.entitySets['AccumulationRegister_ДенежныеСредства_RecordType']!.keys, ['Recorder', 'Recorder_Type', 'LineNumber'])
    assert.ok(meta.complexTypes['Document_ЗаказПокупателя_Товары_RowType'])
    assert.ok(meta.entitySets['Document_ПлатежноеПоручениеИсходящее'])
    assert.equal(
      meta.entitySets['Catalog_Номенклатура']!.properties.some((p) => p.name === 'ОсновнаяСпецификация_Key'),
      false,
    )
  })

  test('УПП shapes: padding, zero GUIDs, composites, Int64 strings, empty dates, enums, nulls on folders', async () => {
    const order = (await q(`Document_ЗаказПокупателя(guid'${ORDER}')?$format=json`)).json
    assert.equal(order['odata.metadata'], `${fake.url}/$metadata#Document_ЗаказПокупателя/@Element`)
    assert.equal(order.Number, 'ЗК-1       ')
    assert.equal(order.Ответственный_Key, Z)
    assert.equal(order.СкладГруппа, WH)
    assert.equal(order.СкладГруппа_Type, 'StandardODATA.Catalog_Склады')
    assert.equal(order.ДатаОплаты, '2026-03-10T00:00:00')
    assert.equal(order.ДатаОтгрузки, '0001-01-01T00:00:00')
    assert.equal(order.DataVersion, 'AAAABwAAAAA=')
    assert.deepEqual(order.Товары[0], {
      Ref_Key: ORDER,
      LineNumber: '1',
      Номенклатура_Key: ITEM,
      ХарактеристикаНоменклатуры_Key: Z,
      Количество: 2,
      Цена: 590,
      Сумма: 1180,
      ЕдиницаИзмерения_Key: Z,
      КоличествоМест: 0,
      Коэффициент: '1',
      ПлановаяСебестоимость: 0,
      СуммаНДС: 0,
      СтавкаНДС: 'НДС20',
      Спецификация_Key: Z,
    })
    const folder = (await q(`Catalog_Номенклатура(guid'10000000-0000-4000-8000-000000000008')?$format=json`)).json
    assert.equal(folder.Code, '4        ')
    assert.equal(folder.IsFolder, true)
    assert.equal(folder.Артикул, null)
    assert.equal(folder.ЕдиницаХраненияОстатков_Key, null)
    const acc = (await q(`Catalog_БанковскиеСчета(guid'${ACC}')?$format=json&$select=Owner,Owner_Type,ДатаЗакрытия`)).json
    assert.deepEqual(acc, {
      'odata.metadata': `${fake.url}/$metadata#Catalog_БанковскиеСчета/@Element`,
      Owner: ORG,
      Owner_Type: 'StandardODATA.Catalog_Организации',
      ДатаЗакрытия: '2026-01-01T00:00:00',
    })
    const set = (
      await q(
        `AccumulationRegister_ДенежныеСредства(Recorder='${PAY}',Recorder_Type='StandardODATA.Document_ПлатежноеПоручениеИсходящее')?$format=json`,
      )
    ).json
    assert.equal(set.RecordSet[0].RecordType, 'Expense')
    assert.equal(set.RecordSet[0].БанковскийСчетКасса_Type, 'StandardODATA.Catalog_БанковскиеСчета')
  })

  test('DataVersion changes on every write, even one that changes nothing', async () => {
    const v1 = (await q(`Catalog_Организации(guid'${ORG}')?$format=json&$select=DataVersion`)).json.DataVersion
    fake.put(OBJECTS[0]!)
    const v2 = (await q(`Catalog_Организации(guid'${ORG}')?$format=json&$select=DataVersion`)).json.DataVersion
    assert.notEqual(v1, v2)
  })

  test('$filter, $orderby in 1C order, $top, $skip, $select', async () => {
    const page = await q(`Catalog_Склады?$format=json&$select=Ref_Key,Description&$orderby=Ref_Key&$top=1&$skip=1`)
    assert.deepEqual(page.json, {
      'odata.metadata': `${fake.url}/$metadata#Catalog_Склады`,
      value: [{ Ref_Key: WH_GROUP, Description: 'Склады' }],
    })
    const window = await q(
      `Document_ПлатежноеПоручениеИсходящее?$format=json&$select=Ref_Key&$filter=Date ge datetime'2026-03-01T00:00:00' and Date lt datetime'2026-04-01T00:00:00'`,
    )
    assert.deepEqual(window.json.value, [{ Ref_Key: PAY }])
    const none = await q(`Document_ПлатежноеПоручениеИсходящее?$format=json&$select=Ref_Key&$filter=Date lt datetime'2026-03-01T00:00:00'`)
    assert.deepEqual(none.json.value, [])
    const keys = await q(`Catalog_Склады?$format=json&$select=Ref_Key&$filter=Ref_Key eq guid'${WH}' or Ref_Key eq guid'${ORG}'`)
    assert.deepEqual(keys.json.value, [{ Ref_Key: WH }])
    const sets = await q(
      `AccumulationRegister_ДенежныеСредства?$format=json&$filter=(Recorder eq '${PAY}' and Recorder_Type eq 'StandardODATA.Document_ПлатежноеПоручениеИсходящее')`,
    )
    assert.equal(sets.json.value.length, 1)
  })

  test('errors as 1C gives them: 500 on ordering refs, 404 code 9, 400 codes 6, 8 and 14, Atom without $format', async () => {
    const gt = await q(`Catalog_Склады?$format=json&$filter=Ref_Key gt guid'${WH}'`)
    assert.equal(gt.status, 500)
    assert.equal(gt.json['odata.error'].code, '-1')
    const missing = await q(`Catalog_Склады(guid'${Z}')?$format=json`)
    assert.equal(missing.status, 404)
    assert.deepEqual(missing.json, { 'odata.error': { code: '9', message: { lang: 'ru', value: 'Объект не найден' } } })
    assert.equal((await q('Catalog_Склады?$format=json&$select=Нет')).json['odata.error'].code, '6')
    assert.equal((await q('Catalog_Нет?$format=json')).json['odata.error'].code, '8')
    assert.equal((await q("Catalog_Склады?$format=json&$filter=Code eq '1")).json['odata.error'].code, '14')
    const atom = await q('Catalog_Склады')
    assert.equal(atom.status, 200)
    assert.match(String(atom.headers['content-type']), /^application\/atom\+xml/)
  })

  test('gzip on request, and the faults', async () => {
    const raw = await get(`${fake.url}/$metadata`, { ...auth, 'accept-encoding': 'gzip' })
    assert.equal(raw.headers['content-encoding'], 'gzip')
    fake.faults = { failSet: { set: 'Catalog_Склады', status: 503, times: 1 } }
    assert.equal((await q('Catalog_Склады?$format=json')).status, 503)
    assert.equal((await q('Catalog_Склады?$format=json')).status, 200)
    fake.faults = { maxPageEntries: 1 }
    assert.equal((await q('Catalog_Склады?$format=json')).status, 500)
    assert.equal((await q('Catalog_Склады?$format=json&$top=1')).status, 200)
    fake.faults = { dropSet: { set: 'Catalog_Склады', times: 1 } }
    await assert.rejects(q('Catalog_Склады?$format=json'))
    fake.faults = { hiddenSets: ['Catalog_Склады'] }
    assert.equal((await q('Catalog_Склады?$format=json')).status, 400)
    assert.equal((await q('$metadata')).text.includes('"Catalog_Склады"'), false)
    fake.faults = {}
    const put = await get(`${fake.url}/Catalog_Склады`, { ...auth })
    assert.equal(put.status, 200)
  })
})
