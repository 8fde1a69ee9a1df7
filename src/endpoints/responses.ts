// The printed shape of every endpoint's `data` items, short and `full`, as JSON Schema with
// a TypeScript type (TypeBox): one source for the OpenAPI document, client types and the
// response validation in tests. Fields exactly as printed, all required, none nullable
// (spec § Conventions: empty values are printed as "" or a literal such as `Не указан`).
import { Type } from '@sinclair/typebox'
import type { Static, TSchema } from '@sinclair/typebox'

const Str = (description?: string) => Type.String(description ? { description } : {})
const Num = Type.Number()
const Bool = Type.Boolean()
const Day = Type.String({ description: 'ДД.ММ.ГГГГ, or "" when empty', pattern: '^(\\d{2}\\.\\d{2}\\.\\d{4})?$' })
const obj = <T extends Record<string, TSchema>>(props: T, $id: string) => Type.Object(props, { additionalProperties: false, $id })
const ref = <T extends TSchema>(s: T) => Type.Unsafe<Static<T>>(Type.Ref(s.$id!))

const Summary = obj({ Есть: Bool, Количество: Type.Integer({ minimum: 0 }) }, 'Summary')
const LinkedDocument = obj(
  { Тип: Str('Document kind after `Документ.`, or ""'), Номер: Str(), Дата: Day, НомерДата: Str('`<Номер> от <Дата>`, or ""') },
  'LinkedDocument',
)
const AttachmentContent = obj({ ИмяФайла: Str(), Данные: Type.String({ contentEncoding: 'base64' }) }, 'AttachmentContent')
const AttachmentRef = obj({ ЕстьВложение: Type.Literal(true), ИмяФайла: Str(), ИдентификаторХранилища: Str() }, 'AttachmentRef')

const orderRowProps = {
  Номенклатура: Str(),
  ХарактеристикаНоменклатуры: Str(),
  Количество: Num,
  Цена: Num,
  Сумма: Num,
  ЕдиницаИзмерения: Str(),
  КоличествоМест: Num,
  Коэффициент: Num,
  ПлановаяСебестоимость: Num,
  СуммаНДС: Num,
  СтавкаНДС: Str(),
  Спецификация: Str(),
}
const OrderRow = obj(orderRowProps, 'OrderRow')
const ReceiptGoodsRow = obj(
  {
    НомерСтроки: Str(),
    Номенклатура: Str(),
    ХарактеристикаНоменклатуры: Str(),
    ЕдиницаИзмерения: Str(),
    Количество: Num,
    Цена: Num,
    Сумма: Num,
    СтавкаНДС: Str(),
    СуммаНДС: Num,
  },
  'ReceiptGoodsRow',
)
const ReceiptServiceRow = obj({ Содержание: Str(), Номенклатура: Str() }, 'ReceiptServiceRow')

const paymentProps = {
  Номер: Str(),
  ДатаДокумента: Day,
  ДатаРасхода: Day,
  Ответственный: Str('or `Не указан`'),
  Получатель: Str('recipient, else counterparty, else `Не указан`'),
  Организация: Str(),
  Касса: Str('or `Не указана`'),
  СуммаДокумента: Num,
  Статус: Str(),
  Комментарий: Str(),
  Проведен: Bool,
  КтоИзменилСтатус: Str(),
  ДатаСменыСтатуса: Day,
}
export const Payment = obj(
  {
    ...paymentProps,
    СвязанныеДокументы: Type.Object(
      { ДокументОснование: ref(Summary), ДокументыРасчетовСКонтрагентом: ref(Summary) },
      { additionalProperties: false },
    ),
    Вложения: ref(Summary),
  },
  'Payment',
)
export const PaymentFull = obj(
  {
    ...paymentProps,
    СвязанныеДокументы: Type.Object(
      { ДокументОснование: ref(LinkedDocument), ДокументыРасчетовСКонтрагентом: Type.Array(ref(LinkedDocument)) },
      { additionalProperties: false },
    ),
    Вложения: Type.Array(ref(AttachmentContent)),
  },
  'PaymentFull',
)

const receiptProps = {
  Номер: Str(),
  ДатаДокумента: Day,
  Дата: Day,
  Контрагент: Str('or `Не указан`'),
  Организация: Str('or `Не указана`'),
  Склад: Str('or `Не указан`'),
  Ответственный: Str('or `Не указан`'),
  СуммаДокумента: Num,
  Комментарий: Str(),
  Проведен: Bool,
}
export const Receipt = obj({ ...receiptProps, Сделка: ref(Summary), Вложения: ref(Summary) }, 'Receipt')
export const ReceiptFull = obj(
  {
    ...receiptProps,
    Сделка: ref(LinkedDocument),
    Вложения: Type.Array(ref(AttachmentContent)),
    Товары: Type.Array(ref(ReceiptGoodsRow)),
    Услуги: Type.Array(ref(ReceiptServiceRow)),
  },
  'ReceiptFull',
)

const orderProps = {
  Номер: Str(),
  Дата: Day,
  Контрагент: Str(),
  ИНН: Str(),
  Организация: Str(),
  Ответственный: Str(),
  Договор: Str(),
  ИспользоватьПлановуюСебестоимость: Bool,
  ИтогПлановаяСебестоимость: Num,
  Сумма: Num,
  Склад: Str(),
  Проведен: Bool,
  Комментарий: Str(),
  ДатаОплаты: Day,
  ДатаОтгрузки: Day,
}
export const Order = obj(orderProps, 'Order')
export const OrderFull = obj({ ...orderProps, Товары: Type.Array(ref(OrderRow)) }, 'OrderFull')

const sorderProps = {
  Номер: Str(),
  Дата: Day,
  Контрагент: Str(),
  Организация: Str(),
  Ответственный: Str(),
  СуммаДокумента: Num,
  Склад: Str(),
  Проведен: Bool,
  Комментарий: Str(),
  ДатаОплаты: Day,
  ДатаПоступления: Day,
  СвязанныеДокументы: Type.Object(
    { Поступления: ref(Summary), ЗакрытияЗаказов: ref(Summary), ЗаявкаНаРасходованиеСредств: ref(Summary) },
    { additionalProperties: false },
  ),
}
export const SupplierOrder = obj({ ...sorderProps, Вложения: ref(Summary) }, 'SupplierOrder')
export const SupplierOrderFull = obj(
  { ...sorderProps, Вложения: Type.Array(ref(AttachmentRef)), Товары: Type.Array(ref(OrderRow)) },
  'SupplierOrderFull',
)

const specificationProps = {
  Код: Str(),
  ДатаУтверждения: Day,
  Ответственный: Str(),
  Наименование: Str(),
  ДатаПоставки: Day,
  СтоимостьРабот: Num,
  СтоимостьТранспорт: Num,
  СтоимостьНакладные: Num,
  СтоимостьАрендаСпецТехники: Num,
  СтоимостьТехнологическиеПрисоединения: Num,
  СтоимостьПроектныеРаботы: Num,
}
const SpecificationMaterial = obj(
  { Код: Str(), Материал: Str(), Количество: Num, Единица: Str(), Цена: Num, Сумма: Num, НоменклатурнаяГруппа: Str() },
  'SpecificationMaterial',
)
export const Specification = obj({ ...specificationProps, Материалы: Str('count in words, e.g. `6 позиций`') }, 'Specification')
export const SpecificationFull = obj(
  { ...specificationProps, Материалы: Type.Array(ref(SpecificationMaterial)), СуммаМатериалов: Num },
  'SpecificationFull',
)

const transferProps = { Номер: Str(), Дата: Day, СкладОтправитель: Str(), СкладПолучатель: Str(), Ответственный: Str(), Комментарий: Str() }
const TransferRow = obj(
  { НомерСтроки: Str(), Номенклатура: Str(), ХарактеристикаНоменклатуры: Str(), ЕдиницаИзмерения: Str(), Количество: Num },
  'TransferRow',
)
export const Transfer = obj({ ...transferProps, Материалы: Str('count in words, e.g. `7 позиций`') }, 'Transfer')
export const TransferFull = obj({ ...transferProps, Товары: Type.Array(ref(TransferRow)) }, 'TransferFull')

const morderProps = {
  Номер: Str('or `Не указан`'),
  Дата: Type.String({ description: 'ДД.ММ.ГГГГ or `Не указана`' }),
  Договор: Str('or `Не указан`'),
  Организация: Str(),
  Ответственный: Str(),
}
const ProductionRow = obj({ Номенклатура: Str(), Количество: Num, ЕдиницаИзмерения: Str() }, 'ProductionRow')
export const ProductionOrder = obj(morderProps, 'ProductionOrder')
export const ProductionOrderFull = obj(
  { ...morderProps, Ссылка: Str(), Продукция: Type.Array(ref(ProductionRow)), Материалы: Type.Array(ref(ProductionRow)) },
  'ProductionOrderFull',
)

const demandProps = { Номер: Str(), Дата: Day, Склад: Str(), Ответственный: Str(), Комментарий: Str() }
const DemandRow = obj({ НомерСтроки: Str(), Номенклатура: Str(), Количество: Num, ЕдиницаИзмерения: Str() }, 'DemandRow')
export const Demand = obj({ ...demandProps, Материалы: Str('count in words, e.g. `2 позиции`') }, 'Demand')
export const DemandFull = obj({ ...demandProps, Материалы: Type.Array(ref(DemandRow)) }, 'DemandFull')

export const CashflowLine = obj(
  {
    Итог: Type.Boolean({ description: 'true only on the totals line (`totals=true`), whose СчетКасса is `Итог`' }),
    ПериодС: Day,
    ПериодПо: Day,
    Организация: Str(),
    СчетКасса: Str(),
    ВидДенежныхСредств: Str(),
    Банк: Str(),
    ВидСчета: Str(),
    Валюта: Str(),
    Закрыт: Bool,
    НачальныйОстаток: Num,
    Приход: Num,
    Расход: Num,
    КонечныйОстаток: Num,
    УпрУчет: Bool,
  },
  'CashflowLine',
)

export const Warehouse = obj({ Код: Str(), Наименование: Str(), ЭтоГруппа: Bool }, 'Warehouse')

export const MaterialElement = obj(
  {
    Код: Str(),
    Наименование: Str(),
    Артикул: Str(),
    ЭтоГруппа: Type.Literal(false),
    Услуга: Bool,
    ЕдиницаИзмерения: Str(),
    ВидНоменклатуры: Str(),
    НоменклатурнаяГруппа: Str(),
    ОсновнойПоставщик: Str(),
  },
  'MaterialElement',
)
export const MaterialGroup = obj(
  {
    Код: Str(),
    Наименование: Str(),
    ЭтоГруппа: Type.Literal(true),
    Дети: Type.Array(Type.Union([Type.Ref('MaterialGroup'), ref(MaterialElement)])),
  },
  'MaterialGroup',
)
export const MaterialNode = Type.Union([ref(MaterialGroup), ref(MaterialElement)], { $id: 'MaterialNode' })

/** Every named schema, for `components.schemas` and for a validator's schema registry. */
export const SCHEMAS: readonly TSchema[] = [
  Summary,
  LinkedDocument,
  AttachmentContent,
  AttachmentRef,
  OrderRow,
  ReceiptGoodsRow,
  ReceiptServiceRow,
  Payment,
  PaymentFull,
  Receipt,
  ReceiptFull,
  Order,
  OrderFull,
  SupplierOrder,
  SupplierOrderFull,
  SpecificationMaterial,
  Specification,
  SpecificationFull,
  TransferRow,
  Transfer,
  TransferFull,
  ProductionRow,
  ProductionOrder,
  ProductionOrderFull,
  DemandRow,
  Demand,
  DemandFull,
  CashflowLine,
  Warehouse,
  MaterialElement,
  MaterialGroup,
  MaterialNode,
]

/** An endpoint's item shapes: `full` is absent where the endpoint has no full form. */
export interface ResponseShapes {
  readonly short: TSchema
  readonly full?: TSchema
}
