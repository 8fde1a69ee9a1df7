/**
 * The import format of data-format.md as data: every attribute a type may carry and, for
 * references, the type(s) it must point to. `null` marks a plain value; an array marks a
 * composite reference; "Документ.*" stands for any document.
 */

export type Target = string | readonly string[] | null

export interface Shape {
  attrs: Record<string, Target>
  tables: Record<string, Record<string, Target>>
}

const ANY_DOC = ['Документ.*'] as const
const ORG = 'Справочник.Организации'
const USER = 'Справочник.Пользователи'
const CP = 'Справочник.Контрагенты'
const WH = 'Справочник.Склады'
const ITEM = 'Справочник.Номенклатура'
const UNIT = 'Справочник.ЕдиницыИзмерения'
const CHAR = 'Справочник.ХарактеристикиНоменклатуры'
const SPEC = 'Справочник.СпецификацииНоменклатуры'
const MONEY = ['Справочник.БанковскиеСчета', 'Справочник.Кассы'] as const

function catalogue(type: string, attrs: Record<string, Target> = {}, hierarchical = false, tables: Shape['tables'] = {}): [string, Shape] {
  const base: Record<string, Target> = { type: null, ref: null, ПометкаУдаления: null, Код: null, Наименование: null }
  if (hierarchical) Object.assign(base, { ЭтоГруппа: null, Родитель: type })
  return [type, { attrs: { ...base, ...attrs }, tables }]
}

function document(type: string, attrs: Record<string, Target> = {}, tables: Shape['tables'] = {}): [string, Shape] {
  const base: Record<string, Target> = { type: null, ref: null, ПометкаУдаления: null, Номер: null, Дата: null, Проведен: null }
  return [type, { attrs: { ...base, ...attrs }, tables }]
}

const ORDER_ROW: Record<string, Target> = {
  Номенклатура: ITEM,
  ХарактеристикаНоменклатуры: CHAR,
  Количество: null,
  Цена: null,
  Сумма: null,
  ЕдиницаИзмерения: UNIT,
  КоличествоМест: null,
  Коэффициент: null,
  ПлановаяСебестоимость: null,
  СуммаНДС: null,
  СтавкаНДС: null,
  Спецификация: SPEC,
}
const MATERIAL_ROW: Record<string, Target> = { Номенклатура: ITEM, Количество: null, ЕдиницаИзмерения: UNIT }
const COMMON = { Организация: ORG, Ответственный: USER, Комментарий: null }

export const SCHEMA: Record<string, Shape> = Object.fromEntries([
  catalogue(ORG),
  catalogue(CP, { ИНН: null }),
  catalogue('Справочник.ФизическиеЛица'),
  catalogue(USER),
  catalogue('Справочник.ДоговорыКонтрагентов', { Владелец: CP }),
  catalogue(WH, {}, true),
  catalogue(UNIT),
  catalogue(CHAR),
  catalogue('Справочник.ВидыНоменклатуры'),
  catalogue('Справочник.НоменклатурныеГруппы'),
  catalogue(
    ITEM,
    {
      Артикул: null,
      Услуга: null,
      ЕдиницаИзмерения: UNIT,
      ВидНоменклатуры: 'Справочник.ВидыНоменклатуры',
      НоменклатурнаяГруппа: 'Справочник.НоменклатурныеГруппы',
      ОсновнойПоставщик: CP,
      ОсновнаяСпецификация: SPEC,
    },
    true,
  ),
  catalogue('Справочник.Банки'),
  catalogue('Справочник.Валюты'),
  catalogue('Справочник.БанковскиеСчета', {
    Владелец: ORG,
    Банк: 'Справочник.Банки',
    ВидСчета: null,
    ВалютаДенежныхСредств: 'Справочник.Валюты',
    Закрыт: null,
  }),
  catalogue('Справочник.Кассы', { Владелец: ORG, ВалютаДенежныхСредств: 'Справочник.Валюты', Закрыт: null }),
  catalogue(
    SPEC,
    {
      ДатаУтверждения: null,
      Ответственный: USER,
      СтоимостьРабот: null,
      СтоимостьТранспорт: null,
      СтоимостьНакладные: null,
      СтоимостьАрендаСпецТехники: null,
      СтоимостьТехнологическиеПрисоединения: null,
      СтоимостьПроектныеРаботы: null,
    },
    true,
    {
      Материалы: { Номенклатура: ITEM, Количество: null, ЕдиницаИзмерения: UNIT, Цена: null, Сумма: null },
      ЭтапыПоставки: { ДатаПоставки: null },
    },
  ),
  catalogue('Справочник.ХранилищеДополнительнойИнформации', { Объект: ANY_DOC, ИмяФайла: null, Данные: null }),
  document('Документ.ЗаявкаНаРасходованиеСредств', {
    ...COMMON,
    ДатаРасхода: null,
    Получатель: [CP, 'Справочник.ФизическиеЛица', USER, ORG],
    Контрагент: CP,
    Касса: MONEY,
    СуммаДокумента: null,
    Статус: null,
    КтоИзменилСтатус: USER,
    ДатаСменыСтатуса: null,
    ДокументОснование: ANY_DOC,
  }),
  document(
    'Документ.ПоступлениеТоваровУслуг',
    { ...COMMON, Контрагент: CP, СкладОрдер: WH, СуммаДокумента: null, Сделка: ANY_DOC },
    {
      Товары: {
        Номенклатура: ITEM,
        ХарактеристикаНоменклатуры: CHAR,
        ЕдиницаИзмерения: UNIT,
        Количество: null,
        Цена: null,
        Сумма: null,
        СтавкаНДС: null,
        СуммаНДС: null,
      },
      Услуги: { Содержание: null, Номенклатура: ITEM },
    },
  ),
  document(
    'Документ.ЗаказПокупателя',
    {
      ...COMMON,
      Контрагент: CP,
      ДоговорКонтрагента: 'Справочник.ДоговорыКонтрагентов',
      ИспользоватьПлановуюСебестоимость: null,
      ИтогПлановаяСебестоимость: null,
      СуммаДокумента: null,
      Склад: WH,
      ДатаОплаты: null,
      ДатаОтгрузки: null,
    },
    { Товары: ORDER_ROW },
  ),
  document(
    'Документ.ЗаказПоставщику',
    {
      ...COMMON,
      Контрагент: CP,
      СуммаДокумента: null,
      Склад: WH,
      ДатаОплаты: null,
      ДатаПоступления: null,
    },
    { Товары: ORDER_ROW },
  ),
  document(
    'Документ.ПеремещениеТоваров',
    { Ответственный: USER, Комментарий: null, СкладОтправитель: WH, СкладПолучатель: WH },
    {
      Товары: { Номенклатура: ITEM, ХарактеристикаНоменклатуры: CHAR, ЕдиницаИзмерения: UNIT, Количество: null },
    },
  ),
  document('Документ.ЗаказНаПроизводство', COMMON, { Продукция: MATERIAL_ROW, Материалы: MATERIAL_ROW }),
  document('Документ.ТребованиеНакладная', { Ответственный: USER, Комментарий: null, Склад: WH }, { Материалы: MATERIAL_ROW }),
  document('Документ.ПлатежноеПоручениеИсходящее'),
  document('Документ.ПлатежноеПоручениеВходящее'),
  document('Документ.ПриходныйКассовыйОрдер'),
  document('Документ.РасходныйКассовыйОрдер'),
  [
    'РегистрНакопления.ДенежныеСредства',
    {
      attrs: { type: null, Регистратор: ANY_DOC },
      tables: {
        Движения: { Период: null, ВидДвижения: null, Организация: ORG, БанковскийСчетКасса: MONEY, Сумма: null, СуммаУпр: null },
      },
    },
  ],
  [
    'РегистрНакопления.ЗаявкиНаРасходованиеСредств',
    {
      attrs: { type: null, Регистратор: ANY_DOC },
      tables: { Движения: { ЗаявкаНаРасходование: 'Документ.ЗаявкаНаРасходованиеСредств', Сумма: null } },
    },
  ],
])

/** The seven document kinds the API publishes. */
export const API_KINDS = [
  'Документ.ЗаявкаНаРасходованиеСредств',
  'Документ.ПоступлениеТоваровУслуг',
  'Документ.ЗаказПокупателя',
  'Документ.ЗаказПоставщику',
  'Документ.ПеремещениеТоваров',
  'Документ.ЗаказНаПроизводство',
  'Документ.ТребованиеНакладная',
] as const
