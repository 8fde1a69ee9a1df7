// The object model of data-format.md, one declaration per type. Column names are the
// store's; attribute names are the contract's, exactly as written there.
import { bool, composite, date, num, ref, str } from './define.js'
import type { Attr, ObjectType, RegisterType, TabularPart } from './define.js'

const C = 'Справочник.'
const D = 'Документ.'

const docHead: readonly Attr[] = [
  ref('Организация', 'organization', `${C}Организации`),
  ref('Ответственный', 'responsible', `${C}Пользователи`),
  str('Комментарий', 'comment'),
]

const orderGoods = (table: string): TabularPart => ({
  name: 'Товары',
  table,
  attrs: [
    ref('Номенклатура', 'nomenclature', `${C}Номенклатура`),
    ref('ХарактеристикаНоменклатуры', 'characteristic', `${C}ХарактеристикиНоменклатуры`),
    num('Количество', 'quantity'),
    num('Цена', 'price'),
    num('Сумма', 'amount'),
    ref('ЕдиницаИзмерения', 'unit', `${C}ЕдиницыИзмерения`),
    num('КоличествоМест', 'places'),
    num('Коэффициент', 'coefficient'),
    num('ПлановаяСебестоимость', 'planned_cost'),
    num('СуммаНДС', 'vat_amount'),
    str('СтавкаНДС', 'vat_rate'),
    ref('Спецификация', 'specification', `${C}СпецификацииНоменклатуры`),
  ],
})

const simpleRows = (name: string, table: string): TabularPart => ({
  name,
  table,
  attrs: [
    ref('Номенклатура', 'nomenclature', `${C}Номенклатура`),
    num('Количество', 'quantity'),
    ref('ЕдиницаИзмерения', 'unit', `${C}ЕдиницыИзмерения`),
  ],
})

const plainCatalog = (type: string, table: string, attrs: readonly Attr[] = []): ObjectType => ({
  type: C + type,
  table,
  class: 'catalog',
  attrs,
})

export const OBJECT_TYPES: readonly ObjectType[] = [
  plainCatalog('Организации', 'cat_organizations'),
  plainCatalog('Контрагенты', 'cat_counterparties', [str('ИНН', 'inn')]),
  plainCatalog('ФизическиеЛица', 'cat_persons'),
  plainCatalog('Пользователи', 'cat_users'),
  plainCatalog('ДоговорыКонтрагентов', 'cat_contracts', [ref('Владелец', 'owner', `${C}Контрагенты`)]),
  { type: `${C}Склады`, table: 'cat_warehouses', class: 'catalog', hierarchical: true, attrs: [] },
  plainCatalog('ЕдиницыИзмерения', 'cat_units'),
  plainCatalog('ХарактеристикиНоменклатуры', 'cat_characteristics'),
  plainCatalog('ВидыНоменклатуры', 'cat_nomenclature_kinds'),
  plainCatalog('НоменклатурныеГруппы', 'cat_nomenclature_groups'),
  {
    type: `${C}Номенклатура`,
    table: 'cat_nomenclature',
    class: 'catalog',
    hierarchical: true,
    attrs: [
      str('Артикул', 'article'),
      bool('Услуга', 'is_service'),
      ref('ЕдиницаИзмерения', 'unit', `${C}ЕдиницыИзмерения`),
      ref('ВидНоменклатуры', 'kind', `${C}ВидыНоменклатуры`),
      ref('НоменклатурнаяГруппа', 'ngroup', `${C}НоменклатурныеГруппы`),
      ref('ОсновнойПоставщик', 'main_supplier', `${C}Контрагенты`),
      ref('ОсновнаяСпецификация', 'main_spec', `${C}СпецификацииНоменклатуры`),
    ],
  },
  plainCatalog('Банки', 'cat_banks'),
  plainCatalog('Валюты', 'cat_currencies'),
  plainCatalog('БанковскиеСчета', 'cat_bank_accounts', [
    ref('Владелец', 'owner', `${C}Организации`),
    ref('Банк', 'bank', `${C}Банки`),
    str('ВидСчета', 'account_kind'),
    ref('ВалютаДенежныхСредств', 'currency', `${C}Валюты`),
    bool('Закрыт', 'closed'),
  ]),
  plainCatalog('Кассы', 'cat_cash_desks', [
    ref('Владелец', 'owner', `${C}Организации`),
    ref('ВалютаДенежныхСредств', 'currency', `${C}Валюты`),
    bool('Закрыт', 'closed'),
  ]),
  {
    type: `${C}СпецификацииНоменклатуры`,
    table: 'cat_specifications',
    class: 'catalog',
    hierarchical: true,
    attrs: [
      date('ДатаУтверждения', 'approval_date'),
      ref('Ответственный', 'responsible', `${C}Пользователи`),
      num('СтоимостьРабот', 'cost_works'),
      num('СтоимостьТранспорт', 'cost_transport'),
      num('СтоимостьНакладные', 'cost_overhead'),
      num('СтоимостьАрендаСпецТехники', 'cost_equipment'),
      num('СтоимостьТехнологическиеПрисоединения', 'cost_connections'),
      num('СтоимостьПроектныеРаботы', 'cost_design'),
    ],
    tabular: [
      {
        name: 'Материалы',
        table: 'cat_specifications_materials',
        attrs: [
          ref('Номенклатура', 'nomenclature', `${C}Номенклатура`),
          num('Количество', 'quantity'),
          ref('ЕдиницаИзмерения', 'unit', `${C}ЕдиницыИзмерения`),
          num('Цена', 'price'),
          num('Сумма', 'amount'),
        ],
      },
      { name: 'ЭтапыПоставки', table: 'cat_specifications_stages', attrs: [date('ДатаПоставки', 'delivery_date')] },
    ],
  },
  plainCatalog('ХранилищеДополнительнойИнформации', 'cat_attachments', [
    { ...composite('Объект', 'object', [`${D}*`]), required: true },
    str('ИмяФайла', 'file_name'),
    { name: 'Данные', col: 'data', kind: 'base64' },
  ]),
  {
    type: `${D}ЗаявкаНаРасходованиеСредств`,
    table: 'doc_expense_requests',
    class: 'document',
    attrs: [
      ...docHead,
      date('ДатаРасхода', 'expense_date'),
      composite('Получатель', 'recipient', [`${C}Контрагенты`, `${C}ФизическиеЛица`, `${C}Пользователи`, `${C}Организации`]),
      ref('Контрагент', 'counterparty', `${C}Контрагенты`),
      composite('Касса', 'cash', [`${C}БанковскиеСчета`, `${C}Кассы`]),
      num('СуммаДокумента', 'amount'),
      str('Статус', 'status'),
      ref('КтоИзменилСтатус', 'status_changer', `${C}Пользователи`),
      date('ДатаСменыСтатуса', 'status_date'),
      composite('ДокументОснование', 'basis', [`${D}*`]),
    ],
  },
  {
    type: `${D}ПоступлениеТоваровУслуг`,
    table: 'doc_receipts',
    class: 'document',
    attrs: [
      ...docHead,
      ref('Контрагент', 'counterparty', `${C}Контрагенты`),
      ref('СкладОрдер', 'warehouse', `${C}Склады`),
      num('СуммаДокумента', 'amount'),
      composite('Сделка', 'deal', [`${D}*`]),
    ],
    tabular: [
      {
        name: 'Товары',
        table: 'doc_receipts_goods',
        attrs: [
          ref('Номенклатура', 'nomenclature', `${C}Номенклатура`),
          ref('ХарактеристикаНоменклатуры', 'characteristic', `${C}ХарактеристикиНоменклатуры`),
          ref('ЕдиницаИзмерения', 'unit', `${C}ЕдиницыИзмерения`),
          num('Количество', 'quantity'),
          num('Цена', 'price'),
          num('Сумма', 'amount'),
          str('СтавкаНДС', 'vat_rate'),
          num('СуммаНДС', 'vat_amount'),
        ],
      },
      {
        name: 'Услуги',
        table: 'doc_receipts_services',
        attrs: [str('Содержание', 'content'), ref('Номенклатура', 'nomenclature', `${C}Номенклатура`)],
      },
    ],
  },
  {
    type: `${D}ЗаказПокупателя`,
    table: 'doc_customer_orders',
    class: 'document',
    attrs: [
      ...docHead,
      ref('Контрагент', 'counterparty', `${C}Контрагенты`),
      ref('ДоговорКонтрагента', 'contract', `${C}ДоговорыКонтрагентов`),
      bool('ИспользоватьПлановуюСебестоимость', 'use_planned_cost'),
      num('ИтогПлановаяСебестоимость', 'total_planned_cost'),
      num('СуммаДокумента', 'amount'),
      ref('Склад', 'warehouse', `${C}Склады`),
      date('ДатаОплаты', 'payment_date'),
      date('ДатаОтгрузки', 'shipment_date'),
    ],
    tabular: [orderGoods('doc_customer_orders_goods')],
  },
  {
    type: `${D}ЗаказПоставщику`,
    table: 'doc_supplier_orders',
    class: 'document',
    attrs: [
      ...docHead,
      ref('Контрагент', 'counterparty', `${C}Контрагенты`),
      num('СуммаДокумента', 'amount'),
      ref('Склад', 'warehouse', `${C}Склады`),
      date('ДатаОплаты', 'payment_date'),
      date('ДатаПоступления', 'receipt_date'),
    ],
    tabular: [orderGoods('doc_supplier_orders_goods')],
  },
  {
    type: `${D}ПеремещениеТоваров`,
    table: 'doc_transfers',
    class: 'document',
    attrs: [...docHead, ref('СкладОтправитель', 'sender', `${C}Склады`), ref('СкладПолучатель', 'receiver', `${C}Склады`)],
    tabular: [
      {
        name: 'Товары',
        table: 'doc_transfers_goods',
        attrs: [
          ref('Номенклатура', 'nomenclature', `${C}Номенклатура`),
          ref('ХарактеристикаНоменклатуры', 'characteristic', `${C}ХарактеристикиНоменклатуры`),
          ref('ЕдиницаИзмерения', 'unit', `${C}ЕдиницыИзмерения`),
          num('Количество', 'quantity'),
        ],
      },
    ],
  },
  {
    type: `${D}ЗаказНаПроизводство`,
    table: 'doc_production_orders',
    class: 'document',
    attrs: docHead,
    tabular: [simpleRows('Продукция', 'doc_production_orders_products'), simpleRows('Материалы', 'doc_production_orders_materials')],
  },
  {
    type: `${D}ТребованиеНакладная`,
    table: 'doc_demands',
    class: 'document',
    attrs: [...docHead, ref('Склад', 'warehouse', `${C}Склады`)],
    tabular: [simpleRows('Материалы', 'doc_demands_materials')],
  },
]

/** Any other `Документ.<Имя>`: only the common keys, kept so references to it can be printed. */
export const OTHER_DOCUMENT: ObjectType = { type: `${D}*`, table: 'doc_other', class: 'document', attrs: [] }

export const REGISTER_TYPES: readonly RegisterType[] = [
  {
    type: 'РегистрНакопления.ДенежныеСредства',
    table: 'reg_cash',
    attrs: [
      { ...date('Период', 'period'), required: true },
      { name: 'ВидДвижения', col: 'movement', kind: 'choice', values: ['Приход', 'Расход'], required: true },
      ref('Организация', 'organization', `${C}Организации`),
      { ...composite('БанковскийСчетКасса', 'account', [`${C}БанковскиеСчета`, `${C}Кассы`]), required: true },
      num('Сумма', 'amount'),
      num('СуммаУпр', 'amount_mgmt'),
    ],
  },
  {
    type: 'РегистрНакопления.ЗаявкиНаРасходованиеСредств',
    table: 'reg_expense_payments',
    attrs: [{ ...ref('ЗаявкаНаРасходование', 'request', `${D}ЗаявкаНаРасходованиеСредств`), required: true }, num('Сумма', 'amount')],
  },
]

const byType = new Map<string, ObjectType>(OBJECT_TYPES.map((t) => [t.type, t]))
const registers = new Map<string, RegisterType>(REGISTER_TYPES.map((t) => [t.type, t]))

export function objectType(type: string): ObjectType | undefined {
  return byType.get(type) ?? (type.startsWith(D) && type.length > D.length ? OTHER_DOCUMENT : undefined)
}

export function registerType(type: string): RegisterType | undefined {
  return registers.get(type)
}

export const ALL_TABLE_TYPES: readonly ObjectType[] = [...OBJECT_TYPES, OTHER_DOCUMENT]

/**
 * Attributes through which an object belongs to another one (an attachment to its
 * document, a payment record to its expense request): a change here changes what the
 * API prints for the owner, so the owner's read model is rebuilt too.
 */
export const OWNER_LINKS: Readonly<Record<string, readonly string[]>> = {
  cat_attachments: ['object'],
  reg_expense_payments: ['request'],
}
