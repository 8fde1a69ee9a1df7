// How УПП 1.3 publishes each docgate object through its standard OData interface: the
// inverse of sync.md §4, written from the 1C side (its names, its types, its padding),
// independently of the connector's mapping so that tests of the one check the other.

type Edm = 'Edm.Guid' | 'Edm.String' | 'Edm.Double' | 'Edm.Int64' | 'Edm.Boolean' | 'Edm.DateTime'
export type Obj = Record<string, unknown>

const ZERO = '00000000-0000-0000-0000-000000000000'
export const EMPTY_DATE = '0001-01-01T00:00:00'

export interface Prop {
  readonly name: string
  readonly type: Edm | string
  /** Navigation property name → target entity set (for `_Key` properties). */
  readonly nav?: readonly [string, string]
}

interface Part {
  readonly name: string
  readonly props: readonly Prop[]
  readonly rows: (object: Obj) => Obj[]
}

export interface Shape {
  readonly set: string
  readonly kind: 'catalog' | 'document' | 'register'
  readonly props: readonly Prop[]
  readonly parts: readonly Part[]
  /** The entity without Ref_Key/DataVersion/parts, from the docgate object. */
  readonly fields: (object: Obj) => Obj
}

const setOf = (type: string): string =>
  type.startsWith('Справочник.') ? `Catalog_${type.slice(11)}` : type.startsWith('Документ.') ? `Document_${type.slice(9)}` : type

export const date = (v: unknown): string => {
  if (typeof v !== 'string' || v === '') return EMPTY_DATE
  return v.length === 10 ? `${v}T00:00:00` : v
}
const guid = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : ZERO)
const text = (v: unknown): string => (typeof v === 'string' ? v : '')
const num = (v: unknown): number => (typeof v === 'number' ? v : 0)

/** One attribute: its properties and how its value is published. */
interface Field {
  readonly props: readonly Prop[]
  readonly put: (o: Obj, out: Obj) => void
}

const key = (attr: string, target: string, P = attr): Field => ({
  props: [{ name: `${P}_Key`, type: 'Edm.Guid', nav: [P, target] }],
  put: (o, out) => void (out[`${P}_Key`] = guid(o[attr])),
})

/** A composite reference: `P` + `P_Type`; a single-type value gets `single`'s type. */
const pair = (attr: string, P = attr, single?: string): Field => ({
  props: [
    { name: P, type: 'Edm.String' },
    { name: `${P}_Type`, type: 'Edm.String' },
  ],
  put: (o, out) => {
    const v = o[attr]
    if (v && typeof v === 'object' && typeof (v as Obj).ref === 'string' && (v as Obj).ref !== '') {
      out[P] = (v as Obj).ref
      out[`${P}_Type`] = `StandardODATA.${setOf(String((v as Obj).type))}`
    } else if (typeof v === 'string' && v !== '' && single) {
      out[P] = v
      out[`${P}_Type`] = `StandardODATA.${single}`
    } else {
      out[P] = ''
      out[`${P}_Type`] = 'StandardODATA.Undefined'
    }
  },
})
const str = (attr: string, P = attr): Field => ({
  props: [{ name: P, type: 'Edm.String' }],
  put: (o, out) => void (out[P] = text(o[attr])),
})
const dbl = (attr: string, P = attr): Field => ({ props: [{ name: P, type: 'Edm.Double' }], put: (o, out) => void (out[P] = num(o[attr])) })
/** Edm.Int64 arrives as a JSON string. */
const int64 = (attr: string, P = attr): Field => ({
  props: [{ name: P, type: 'Edm.Int64' }],
  put: (o, out) => void (out[P] = String(Math.trunc(num(o[attr])))),
})
const bool = (attr: string, P = attr): Field => ({
  props: [{ name: P, type: 'Edm.Boolean' }],
  put: (o, out) => void (out[P] = o[attr] === true),
})
const day = (attr: string, P = attr): Field => ({
  props: [{ name: P, type: 'Edm.DateTime' }],
  put: (o, out) => void (out[P] = date(o[attr])),
})

const VAT_ENUM: Record<string, string> = {
  '18%': 'НДС18',
  '18% / 118%': 'НДС18_118',
  '10%': 'НДС10',
  '10% / 110%': 'НДС10_110',
  '0%': 'НДС0',
  'Без НДС': 'БезНДС',
  '20%': 'НДС20',
  '20% / 120%': 'НДС20_120',
}
const vat = (attr: string): Field => ({
  props: [{ name: attr, type: 'Edm.String' }],
  put: (o, out) => void (out[attr] = VAT_ENUM[text(o[attr])] ?? text(o[attr])),
})

const C = (name: string) => `Catalog_${name}`

/** Codes and numbers are fixed-length strings in 1C: padded with spaces. */
const pad = (v: unknown, n: number) => {
  const s = text(v)
  return s.length >= n ? s : s + ' '.repeat(n - s.length)
}

function catalog(name: string, fields: readonly Field[], o: { hierarchical?: boolean; code?: boolean; itemOnly?: boolean } = {}): Shape {
  const set = C(name)
  const common: Field[] = [
    bool('ПометкаУдаления', 'DeletionMark'),
    { props: [{ name: 'Predefined', type: 'Edm.Boolean' }], put: (_o, out) => void (out.Predefined = false) },
  ]
  if (o.code !== false)
    common.push({ props: [{ name: 'Code', type: 'Edm.String' }], put: (src, out) => void (out.Code = pad(src['Код'], 9)) })
  common.push(str('Наименование', 'Description'))
  if (o.hierarchical) {
    common.push(
      { props: [{ name: 'IsFolder', type: 'Edm.Boolean' }], put: (src, out) => void (out.IsFolder = src['ЭтоГруппа'] === true) },
      key('Родитель', set, 'Parent'),
    )
  }
  return {
    set,
    kind: 'catalog',
    props: [...common, ...fields].flatMap((f) => f.props),
    parts: [],
    fields: (src) => {
      const out: Obj = {}
      for (const f of common) f.put(src, out)
      // Item-only attributes do not apply to folders: 1C answers null (§3).
      const folder = o.hierarchical && src['ЭтоГруппа'] === true
      for (const f of fields) {
        if (folder && o.itemOnly !== false) for (const p of f.props) out[p.name] = null
        else f.put(src, out)
      }
      return out
    },
  }
}

const rowsOf =
  (attr: string, fields: readonly Field[], owner: (o: Obj) => string) =>
  (o: Obj): Obj[] => {
    const rows = Array.isArray(o[attr]) ? (o[attr] as Obj[]) : []
    return rows.map((r, i) => {
      const out: Obj = { Ref_Key: owner(o), LineNumber: String(typeof r['НомерСтроки'] === 'number' ? r['НомерСтроки'] : i + 1) }
      for (const f of fields) f.put(r, out)
      return out
    })
  }

function part(name: string, fields: readonly Field[]): Part {
  return {
    name,
    props: [{ name: 'Ref_Key', type: 'Edm.Guid' }, { name: 'LineNumber', type: 'Edm.Int64' }, ...fields.flatMap((f) => f.props)],
    rows: rowsOf(name, fields, (o) => String(o.ref)),
  }
}

function document(name: string, fields: readonly Field[], parts: readonly Part[] = [], head = true): Shape {
  const common: Field[] = [
    bool('ПометкаУдаления', 'DeletionMark'),
    { props: [{ name: 'Number', type: 'Edm.String' }], put: (src, out) => void (out.Number = pad(src['Номер'], 11)) },
    day('Дата', 'Date'),
    bool('Проведен', 'Posted'),
  ]
  if (head) common.push(key('Организация', C('Организации')), key('Ответственный', C('Пользователи')), str('Комментарий'))
  const all = [...common, ...fields]
  return {
    set: `Document_${name}`,
    kind: 'document',
    props: all.flatMap((f) => f.props),
    parts,
    fields: (src) => {
      const out: Obj = {}
      for (const f of all) f.put(src, out)
      return out
    },
  }
}

const goodsRows = (withVat: boolean): Field[] => [
  key('Номенклатура', C('Номенклатура')),
  key('ХарактеристикаНоменклатуры', C('ХарактеристикиНоменклатуры')),
  dbl('Количество'),
  dbl('Цена'),
  dbl('Сумма'),
  key('ЕдиницаИзмерения', C('ЕдиницыИзмерения')),
  dbl('КоличествоМест'),
  int64('Коэффициент'),
  dbl('ПлановаяСебестоимость'),
  dbl('СуммаНДС'),
  ...(withVat ? [vat('СтавкаНДС')] : []),
  key('Спецификация', C('СпецификацииНоменклатуры')),
]
const simple = [key('Номенклатура', C('Номенклатура')), dbl('Количество'), key('ЕдиницаИзмерения', C('ЕдиницыИзмерения'))]

/** Every shape the fake publishes; `custom` adds sync.md's optional attributes under their docgate names (R7). */
export function shapes(custom: boolean, today: string): Shape[] {
  const closedOn = (o: Obj, out: Obj) =>
    void (out['ДатаЗакрытия'] = o['Закрыт'] === true ? `${today.slice(0, 4)}-01-01T00:00:00` : EMPTY_DATE)
  return [
    catalog('Организации', []),
    catalog('Контрагенты', [str('ИНН')]),
    catalog('ФизическиеЛица', []),
    catalog('Пользователи', []),
    catalog('ДоговорыКонтрагентов', [key('Владелец', C('Контрагенты'), 'Owner')]),
    catalog('Склады', [], { hierarchical: true }),
    catalog('ЕдиницыИзмерения', [key('_none', C('Номенклатура'), 'Owner')]),
    catalog('ХарактеристикиНоменклатуры', [key('_none', C('Номенклатура'), 'Owner')]),
    catalog('ВидыНоменклатуры', []),
    catalog('НоменклатурныеГруппы', []),
    catalog(
      'Номенклатура',
      [
        str('Артикул'),
        bool('Услуга'),
        key('ЕдиницаИзмерения', C('ЕдиницыИзмерения'), 'ЕдиницаХраненияОстатков'),
        key('ВидНоменклатуры', C('ВидыНоменклатуры')),
        key('НоменклатурнаяГруппа', C('НоменклатурныеГруппы')),
        key('ОсновнойПоставщик', C('Контрагенты')),
        ...(custom ? [key('ОсновнаяСпецификация', C('СпецификацииНоменклатуры'))] : []),
      ],
      { hierarchical: true },
    ),
    catalog('Банки', []),
    catalog('Валюты', []),
    catalog('БанковскиеСчета', [
      pair('Владелец', 'Owner', C('Организации')),
      key('Банк', C('Банки')),
      str('ВидСчета'),
      key('ВалютаДенежныхСредств', C('Валюты')),
      { props: [{ name: 'ДатаЗакрытия', type: 'Edm.DateTime' }], put: closedOn },
    ]),
    catalog('Кассы', [key('Владелец', C('Организации'), 'Owner'), key('ВалютаДенежныхСредств', C('Валюты'))]),
    (() => {
      const shape = catalog(
        'СпецификацииНоменклатуры',
        [
          day('ДатаУтверждения'),
          key('Ответственный', C('Пользователи')),
          ...(custom
            ? [
                'СтоимостьРабот',
                'СтоимостьТранспорт',
                'СтоимостьНакладные',
                'СтоимостьАрендаСпецТехники',
                'СтоимостьТехнологическиеПрисоединения',
                'СтоимостьПроектныеРаботы',
              ].map((n) => dbl(n))
            : []),
        ],
        { hierarchical: true },
      )
      if (!custom) return shape
      return {
        ...shape,
        parts: [
          part('Материалы', [
            key('Номенклатура', C('Номенклатура')),
            dbl('Количество'),
            key('ЕдиницаИзмерения', C('ЕдиницыИзмерения')),
            dbl('Цена'),
            dbl('Сумма'),
          ]),
          part('ЭтапыПоставки', [day('ДатаПоставки')]),
        ],
      }
    })(),
    catalog(
      'ХранилищеДополнительнойИнформации',
      [
        pair('Объект'),
        str('ИмяФайла'),
        {
          props: [
            { name: 'Хранилище_Type', type: 'Edm.String' },
            { name: 'Хранилище_Base64Data', type: 'Edm.String' },
          ],
          put: (o, out) => {
            const name = text(o['ИмяФайла']).toLowerCase()
            out['Хранилище_Type'] = /\.jpe?g$/.test(name) ? 'image/jpeg' : name.endsWith('.png') ? 'image/png' : 'application/octet-stream'
            // 1C writes Base64 in lines of 76 characters.
            out['Хранилище_Base64Data'] = (text(o['Данные']).match(/.{1,76}/g) ?? []).join('\r\n')
          },
        },
      ],
      { code: false },
    ),
    document('ЗаявкаНаРасходованиеСредств', [
      day('ДатаРасхода'),
      pair('Получатель'),
      key('Контрагент', C('Контрагенты')),
      pair('Касса', 'БанковскийСчетКасса'),
      dbl('СуммаДокумента'),
      pair('ДокументОснование'),
      ...(custom ? [str('Статус'), key('КтоИзменилСтатус', C('Пользователи')), day('ДатаСменыСтатуса')] : []),
    ]),
    document(
      'ПоступлениеТоваровУслуг',
      [key('Контрагент', C('Контрагенты')), pair('СкладОрдер', 'СкладОрдер', C('Склады')), dbl('СуммаДокумента'), pair('Сделка')],
      [
        part('Товары', [
          key('Номенклатура', C('Номенклатура')),
          key('ХарактеристикаНоменклатуры', C('ХарактеристикиНоменклатуры')),
          key('ЕдиницаИзмерения', C('ЕдиницыИзмерения')),
          dbl('Количество'),
          dbl('Цена'),
          dbl('Сумма'),
          vat('СтавкаНДС'),
          dbl('СуммаНДС'),
        ]),
        part('Услуги', [str('Содержание'), key('Номенклатура', C('Номенклатура'))]),
      ],
    ),
    document(
      'ЗаказПокупателя',
      [
        key('Контрагент', C('Контрагенты')),
        key('ДоговорКонтрагента', C('ДоговорыКонтрагентов')),
        bool('ИспользоватьПлановуюСебестоимость'),
        dbl('ИтогПлановаяСебестоимость'),
        dbl('СуммаДокумента'),
        pair('Склад', 'СкладГруппа', C('Склады')),
        day('ДатаОплаты'),
        day('ДатаОтгрузки'),
      ],
      [part('Товары', goodsRows(true))],
    ),
    document(
      'ЗаказПоставщику',
      [key('Контрагент', C('Контрагенты')), dbl('СуммаДокумента'), key('Склад', C('Склады')), day('ДатаОплаты'), day('ДатаПоступления')],
      [part('Товары', goodsRows(true))],
    ),
    document(
      'ПеремещениеТоваров',
      [key('СкладОтправитель', C('Склады')), key('СкладПолучатель', C('Склады'))],
      [
        part('Товары', [
          key('Номенклатура', C('Номенклатура')),
          key('ХарактеристикаНоменклатуры', C('ХарактеристикиНоменклатуры')),
          key('ЕдиницаИзмерения', C('ЕдиницыИзмерения')),
          dbl('Количество'),
        ]),
      ],
    ),
    document('ЗаказНаПроизводство', [], [part('Продукция', simple), part('Материалы', simple)]),
    document('ТребованиеНакладная', [key('Склад', C('Склады'))], [part('Материалы', simple)]),
    // Published but holding nothing docgate syncs: targets of composites that §4 empties.
    catalog('ГруппыДоступностиСкладов', []),
    document('ПриходныйОрдерНаТовары', []),
  ]
}

/** Any other document: its common keys only. */
export function otherDocument(name: string): Shape {
  return document(name, [], [], false)
}

export interface RegisterShape {
  readonly set: string
  readonly type: string
  readonly props: readonly Prop[]
  readonly rows: (set: Obj, recorderDate: string) => Obj[]
}

const recorderProps: Prop[] = [
  { name: 'Recorder', type: 'Edm.String' },
  { name: 'Recorder_Type', type: 'Edm.String' },
]

export const REGISTERS: readonly RegisterShape[] = [
  {
    set: 'AccumulationRegister_ДенежныеСредства',
    type: 'РегистрНакопления.ДенежныеСредства',
    props: [
      ...recorderProps,
      { name: 'Period', type: 'Edm.DateTime' },
      { name: 'LineNumber', type: 'Edm.Int64' },
      { name: 'Active', type: 'Edm.Boolean' },
      { name: 'RecordType', type: 'Edm.String' },
      { name: 'Организация_Key', type: 'Edm.Guid', nav: ['Организация', C('Организации')] },
      { name: 'БанковскийСчетКасса', type: 'Edm.String' },
      { name: 'БанковскийСчетКасса_Type', type: 'Edm.String' },
      { name: 'Сумма', type: 'Edm.Double' },
      { name: 'СуммаУпр', type: 'Edm.Double' },
    ],
    rows: (o) =>
      (o['Движения'] as Obj[]).map((m, i) => {
        const out: Obj = {
          Period: date(m['Период']),
          LineNumber: String(i + 1),
          Active: true,
          RecordType: m['ВидДвижения'] === 'Приход' ? 'Receipt' : 'Expense',
          Организация_Key: guid(m['Организация']),
        }
        pair('БанковскийСчетКасса').put(m, out)
        out['Сумма'] = num(m['Сумма'])
        out['СуммаУпр'] = num(m['СуммаУпр'])
        return out
      }),
  },
  {
    set: 'AccumulationRegister_ЗаявкиНаРасходованиеСредств',
    type: 'РегистрНакопления.ЗаявкиНаРасходованиеСредств',
    props: [
      ...recorderProps,
      { name: 'Period', type: 'Edm.DateTime' },
      { name: 'LineNumber', type: 'Edm.Int64' },
      { name: 'Active', type: 'Edm.Boolean' },
      { name: 'RecordType', type: 'Edm.String' },
      { name: 'ЗаявкаНаРасходование_Key', type: 'Edm.Guid', nav: ['ЗаявкаНаРасходование', 'Document_ЗаявкаНаРасходованиеСредств'] },
      { name: 'Сумма', type: 'Edm.Double' },
    ],
    rows: (o, recorderDate) =>
      (o['Движения'] as Obj[]).map((m, i) => ({
        Period: recorderDate,
        LineNumber: String(i + 1),
        Active: true,
        RecordType: typeof m['ВидДвижения'] === 'string' ? m['ВидДвижения'] : 'Expense',
        ЗаявкаНаРасходование_Key: guid(m['ЗаявкаНаРасходование']),
        Сумма: num(m['Сумма']),
      })),
  },
]

export { setOf }
