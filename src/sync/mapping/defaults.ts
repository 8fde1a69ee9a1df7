// The default mapping for УПП 1.3 / КА 1.1 (sync.md §4) as data: where it differs from
// "the same name", which attributes are optional (R7), which reference targets are kept,
// and which tabular columns carry the VAT enumeration (R8). A map file overrides it entry
// by entry.
import type { SourceForm } from './mapfile.js'

export interface AttrDefault {
  readonly from?: SourceForm
  /** R7: not in standard УПП; read only where the base has it. */
  readonly opt?: boolean
  /** Absent without a report (a catalogue without codes). */
  readonly quiet?: boolean
  /** R8: the value is a VAT enumeration member. */
  readonly vat?: boolean
}

export interface TypeDefault {
  readonly attributes?: Readonly<Record<string, AttrDefault>>
  readonly parts?: Readonly<Record<string, { readonly opt?: boolean; readonly rows?: Readonly<Record<string, AttrDefault>> }>>
  readonly skipRecorderTypes?: readonly string[]
  readonly recordTypes?: readonly ('Expense' | 'Receipt')[]
}

const OPT = { opt: true } as const
const from = (p: string, extra: Omit<Extract<SourceForm, { from: string }>, 'from'> = {}): AttrDefault => ({ from: { from: p, ...extra } })

/** Order-goods rows: the VAT rate is an enumeration in УПП. */
const GOODS = { Товары: { rows: { СтавкаНДС: { vat: true } } } }

export const COMMON: Readonly<Record<string, AttrDefault>> = {
  ПометкаУдаления: from('DeletionMark'),
  Код: { from: { from: 'Code' }, quiet: true },
  Наименование: from('Description'),
  ЭтоГруппа: from('IsFolder'),
  Родитель: from('Parent'),
  Номер: from('Number'),
  Дата: from('Date'),
  Проведен: from('Posted'),
}

export const TYPE_DEFAULTS: Readonly<Record<string, TypeDefault>> = {
  'Справочник.ДоговорыКонтрагентов': { attributes: { Владелец: from('Owner') } },
  'Справочник.Номенклатура': { attributes: { ЕдиницаИзмерения: from('ЕдиницаХраненияОстатков'), ОсновнаяСпецификация: OPT } },
  'Справочник.БанковскиеСчета': {
    attributes: { Владелец: from('Owner', { keepTypes: ['Catalog_Организации'] }), Закрыт: { from: { closedFromDate: 'ДатаЗакрытия' } } },
  },
  'Справочник.Кассы': { attributes: { Владелец: from('Owner'), Закрыт: { from: { value: false } } } },
  'Справочник.СпецификацииНоменклатуры': {
    attributes: {
      СтоимостьРабот: OPT,
      СтоимостьТранспорт: OPT,
      СтоимостьНакладные: OPT,
      СтоимостьАрендаСпецТехники: OPT,
      СтоимостьТехнологическиеПрисоединения: OPT,
      СтоимостьПроектныеРаботы: OPT,
    },
    parts: {
      Материалы: { opt: true, rows: { Номенклатура: OPT, Количество: OPT, ЕдиницаИзмерения: OPT, Цена: OPT, Сумма: OPT } },
      ЭтапыПоставки: { opt: true, rows: { ДатаПоставки: OPT } },
    },
  },
  'Справочник.ХранилищеДополнительнойИнформации': {
    attributes: {
      Объект: from('Объект', {
        keepTypes: ['Document_ЗаявкаНаРасходованиеСредств', 'Document_ПоступлениеТоваровУслуг', 'Document_ЗаказПоставщику'],
      }),
      Данные: from('Хранилище'),
    },
  },
  'Документ.ЗаявкаНаРасходованиеСредств': {
    attributes: { Касса: from('БанковскийСчетКасса'), Статус: OPT, КтоИзменилСтатус: OPT, ДатаСменыСтатуса: OPT },
  },
  'Документ.ПоступлениеТоваровУслуг': { parts: GOODS },
  'Документ.ЗаказПокупателя': { attributes: { Склад: from('СкладГруппа') }, parts: GOODS },
  'Документ.ЗаказПоставщику': { parts: GOODS },
  'РегистрНакопления.ДенежныеСредства': { attributes: { Период: from('Period'), ВидДвижения: from('RecordType') } },
  'РегистрНакопления.ЗаявкиНаРасходованиеСредств': {
    skipRecorderTypes: ['Document_ЗаявкаНаРасходованиеСредств'],
    recordTypes: ['Expense'],
  },
}

/** R8: VAT enumeration members → the stored string; other names pass as received. */
export const VAT: Readonly<Record<string, string>> = {
  НДС18: '18%',
  НДС18_118: '18% / 118%',
  НДС10: '10%',
  НДС10_110: '10% / 110%',
  НДС0: '0%',
  БезНДС: 'Без НДС',
  НДС20: '20%',
  НДС20_120: '20% / 120%',
  '': '',
}

/** §4.1 R1 order of catalogues (§4.2), then the seven documents (§4.3): the cycle's order. */
export const CATALOGUE_ORDER = [
  'Справочник.Организации',
  'Справочник.Контрагенты',
  'Справочник.ФизическиеЛица',
  'Справочник.Пользователи',
  'Справочник.ДоговорыКонтрагентов',
  'Справочник.Склады',
  'Справочник.ЕдиницыИзмерения',
  'Справочник.ХарактеристикиНоменклатуры',
  'Справочник.ВидыНоменклатуры',
  'Справочник.НоменклатурныеГруппы',
  'Справочник.Номенклатура',
  'Справочник.Банки',
  'Справочник.Валюты',
  'Справочник.БанковскиеСчета',
  'Справочник.Кассы',
  'Справочник.СпецификацииНоменклатуры',
  'Справочник.ХранилищеДополнительнойИнформации',
]
export const DOCUMENT_ORDER = [
  'Документ.ЗаявкаНаРасходованиеСредств',
  'Документ.ПоступлениеТоваровУслуг',
  'Документ.ЗаказПокупателя',
  'Документ.ЗаказПоставщику',
  'Документ.ПеремещениеТоваров',
  'Документ.ЗаказНаПроизводство',
  'Документ.ТребованиеНакладная',
]
export const REGISTER_ORDER = ['РегистрНакопления.ДенежныеСредства', 'РегистрНакопления.ЗаявкиНаРасходованиеСредств']
