/** Shared shapes of the demo generator: catalogue entries, emission parts, salts. */

/** One line of the import format. */
export type Obj = Record<string, unknown>

export interface Composite {
  type: string
  ref: string
}

export interface Named {
  ref: string
  code: string
  name: string
  deleted: boolean
}

/**
 * A run of emission units (an object, a document with its attachments, a recorder) that can
 * be emitted in any sub-range, so that a logical file can be cut into import chunks.
 */
export interface Part {
  size: number
  emit(from: number, to: number): Iterable<Obj>
}

export function listPart<T>(items: readonly T[], toObject: (item: T) => Obj): Part {
  return {
    size: items.length,
    *emit(from, to) {
      for (let i = from; i < to; i++) yield toObject(items[i] as T)
    },
  }
}

export function rangePart(size: number, emitOne: (index: number) => Iterable<Obj>): Part {
  return {
    size,
    *emit(from, to) {
      for (let i = from; i < to; i++) yield* emitOne(i)
    },
  }
}

export const T = {
  org: 'Справочник.Организации',
  counterparty: 'Справочник.Контрагенты',
  person: 'Справочник.ФизическиеЛица',
  user: 'Справочник.Пользователи',
  contract: 'Справочник.ДоговорыКонтрагентов',
  warehouse: 'Справочник.Склады',
  unit: 'Справочник.ЕдиницыИзмерения',
  characteristic: 'Справочник.ХарактеристикиНоменклатуры',
  itemKind: 'Справочник.ВидыНоменклатуры',
  ngroup: 'Справочник.НоменклатурныеГруппы',
  item: 'Справочник.Номенклатура',
  bank: 'Справочник.Банки',
  currency: 'Справочник.Валюты',
  bankAccount: 'Справочник.БанковскиеСчета',
  cashDesk: 'Справочник.Кассы',
  spec: 'Справочник.СпецификацииНоменклатуры',
  attachment: 'Справочник.ХранилищеДополнительнойИнформации',
  request: 'Документ.ЗаявкаНаРасходованиеСредств',
  receipt: 'Документ.ПоступлениеТоваровУслуг',
  customerOrder: 'Документ.ЗаказПокупателя',
  supplierOrder: 'Документ.ЗаказПоставщику',
  transfer: 'Документ.ПеремещениеТоваров',
  production: 'Документ.ЗаказНаПроизводство',
  demand: 'Документ.ТребованиеНакладная',
  outPayment: 'Документ.ПлатежноеПоручениеИсходящее',
  inPayment: 'Документ.ПлатежноеПоручениеВходящее',
  cashIn: 'Документ.ПриходныйКассовыйОрдер',
  cashOut: 'Документ.РасходныйКассовыйОрдер',
  cashRegister: 'РегистрНакопления.ДенежныеСредства',
  requestRegister: 'РегистрНакопления.ЗаявкиНаРасходованиеСредств',
} as const

/** Stream and ref salts: one per entity kind, never reused, so refs of kinds cannot collide. */
export const SALT = {
  org: 1,
  currency: 2,
  bank: 3,
  unit: 4,
  itemKind: 5,
  ngroup: 6,
  characteristic: 7,
  user: 8,
  person: 9,
  counterparty: 10,
  contract: 11,
  bankAccount: 12,
  cashDesk: 13,
  warehouse: 14,
  itemGroup: 15,
  item: 16,
  specGroup: 17,
  spec: 18,
  // Generator streams of catalogue construction (no refs).
  nomenclatureStream: 30,
  specStream: 31,
  // Documents: the salt names both the ref and the per-document stream.
  request: 101,
  receipt: 102,
  customerOrder: 103,
  supplierOrder: 104,
  transfer: 105,
  production: 106,
  demand: 107,
  outPayment: 108,
  inPayment: 109,
  cashIn: 110,
  cashOut: 111,
  // Attachment refs and streams: ATTACHMENT + the owner's salt.
  attachment: 1000,
  links: 2000,
} as const
