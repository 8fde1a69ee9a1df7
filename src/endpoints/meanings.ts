// What each parameter means, in Russian and English, after the "Meaning" column of the
// spec's parameter tables (business-document-read-api.md § Endpoints). Kept apart from the
// declarations so that the texts can be read and reviewed as one table; describe.ts joins
// them to the mechanics (stage, spellings, formats) that it derives from the declarations,
// so the mechanics are not repeated here. A parameter's aliases share its meaning.
// test/openapi/meanings.test.ts fails when a declared parameter has no entry or an entry
// names a parameter that is not declared.

export interface Meaning {
  readonly ru: string
  readonly en: string
}

const m = (ru: string, en: string): Meaning => ({ ru, en })

const byDocumentDate = {
  from: m('Начало периода по дате документа', 'Period start by document date'),
  to: m('Конец периода по дате документа', 'Period end by document date'),
}
const oneDocumentDate = m('Одна дата документа (весь день)', 'One document date (the whole day)')

const documentNumber = m('Номер документа (подстрока)', 'Document number (substring)')
const exactAmount = m('Сумма документа (точное совпадение)', 'Document amount (exact match)')
const posted = m('Отбор по признаку «Проведен»', 'Filter by posted state')
const responsible = m('Ответственный (подстрока)', 'Responsible (substring)')
const responsibleName = m('Имя ответственного (подстрока)', 'Responsible name (substring)')
const organization = m('Наименование организации (подстрока)', 'Organization name (substring)')
const warehouse = m('Склад (подстрока)', 'Warehouse (substring)')
const comment = m('Комментарий (подстрока)', 'Comment (substring)')

export const MEANINGS: Readonly<Record<string, Readonly<Record<string, Meaning>>>> = {
  payments: {
    from: m('Начало периода по дате расхода (ДатаРасхода, не дата документа)', 'Period start by expense date (ДатаРасхода, not the document date)'),
    to: m('Конец периода по дате расхода', 'Period end by expense date'),
    date: m('Одна дата расхода (весь день)', 'One expense date (the whole day)'),
    code: m('Номер заявки (подстрока)', 'Request number (substring)'),
    summ: exactAmount,
    approved: posted,
    responsible,
    recipient: m('Получатель (подстрока)', 'Recipient (substring)'),
    contractor: m('Контрагент (подстрока)', 'Counterparty (substring)'),
    cash: m('Счет / касса (подстрока)', 'Account / cash desk (substring)'),
    comment,
    status: m('Статус (подстрока)', 'Status (substring)'),
    full: m('Полные связанные документы и вложения (Base64)', 'Full linked documents and attachments (Base64)'),
  },
  receipts: {
    ...byDocumentDate,
    date: oneDocumentDate,
    code: documentNumber,
    summ: exactAmount,
    approved: posted,
    contractor: m('Наименование контрагента (подстрока)', 'Counterparty name (substring)'),
    org: organization,
    warehouse,
    responsible,
    full: m('Полные Сделка, Товары, Услуги и Вложения (Base64)', 'Full Сделка, Товары, Услуги and Вложения (Base64)'),
  },
  orders: {
    ...byDocumentDate,
    date: oneDocumentDate,
    code: documentNumber,
    summ: exactAmount,
    approved: posted,
    contract: m('Представление договора (подстрока)', 'Contract presentation (substring)'),
    customer: m('Наименование контрагента или его ИНН (подстрока)', 'Counterparty name or its tax id (substring)'),
    inn: m('ИНН контрагента (подстрока)', 'Counterparty tax id (substring)'),
    org: organization,
    warehouse,
    responsible,
    comment,
    full: m('Добавляет Товары с расчетом плановой себестоимости и спецификации', 'Adds Товары with the planned-cost and specification calculation'),
  },
  sorders: {
    ...byDocumentDate,
    date: oneDocumentDate,
    code: documentNumber,
    summ: exactAmount,
    approved: posted,
    supplier: m('Наименование контрагента (поставщика) (подстрока); основное имя этого отбора', 'Counterparty (supplier) name (substring); the primary name of this filter'),
    org: organization,
    warehouse,
    responsible,
    comment,
    full: m('Добавляет Товары и список вложений', 'Adds Товары and the attachment list'),
  },
  specifications: {
    code: m('Код спецификации (подстрока)', 'Specification code (substring)'),
    name: m('Наименование (подстрока)', 'Name (substring)'),
    material: m('Код или наименование материала в строках материалов (подстрока)', 'Material code or name in the materials rows (substring)'),
    ngroup: m('Номенклатурная группа строк материалов (подстрока)', 'Nomenclature group of the material rows (substring)'),
    year: m('Год плановой даты поставки этапа поставки; двузначный год читается как 20XX', 'Year of the planned delivery date of a delivery stage; a 2-digit year is read as 20XX'),
    month: m('Месяц 1–12 внутри года `year`; требует `year`', 'Month 1–12 inside `year`; requires `year`'),
    full: m('Расширенный режим; требует хотя бы один из `code`, `name`, `material`, `ngroup`', 'Extended mode; requires at least one of `code`, `name`, `material`, `ngroup`'),
  },
  transfers: {
    from: m('Начало периода по дате документа (не по дате перемещения)', 'Period start by document date (not the movement date)'),
    to: byDocumentDate.to,
    date: oneDocumentDate,
    code: documentNumber,
    responsible: responsibleName,
    sender: m('Наименование склада-отправителя (подстрока)', 'Sender warehouse name (substring)'),
    receiver: m('Наименование склада-получателя (подстрока)', 'Receiver warehouse name (substring)'),
    full: m('Возвращает Товары вместо сводки; требует `code`', 'Returns Товары instead of the summary; requires `code`'),
  },
  morders: {
    ...byDocumentDate,
    code: m('Номер заказа (подстрока)', 'Order number (substring)'),
    contract: m('Комментарий документа, выводимый как Договор (подстрока)', 'Document comment, shown as Договор (substring)'),
    full: m('Добавляет Ссылка, Продукция, Материалы', 'Adds Ссылка, Продукция, Материалы'),
  },
  demands: {
    ...byDocumentDate,
    code: documentNumber,
    warehouse: m('Наименование склада (подстрока)', 'Warehouse name (substring)'),
    responsible: responsibleName,
    full: m('Возвращает массив Материалы для каждого отобранного документа; не требует `code`', 'Returns the Материалы array for every selected document; does not require `code`'),
  },
  cashflows: {
    from: m('Начало периода; можно без `to` (тогда конец — текущий день)', 'Period start; may be used without `to` (then the end is the current day)'),
    to: m('Конец периода, включительно до конца дня; можно без `from` (тогда начало — 01.01.0001)', 'Period end, inclusive to the end of the day; may be used without `from` (then the start is 01.01.0001)'),
    date: m('Один день вместо from/to (весь день)', 'One day instead of from/to (the whole day)'),
    org: organization,
    account: m('Представление счета / кассы, поле СчетКасса (подстрока)', 'Account / cash desk presentation, field СчетКасса (substring)'),
    bank: m('Наименование банка (подстрока)', 'Bank name (substring)'),
    kind: m(
      'Вид денежных средств (ВидДенежныхСредств): `Наличные` или `Безналичные`; `Наличные` не совпадает с безналичными, а `Безналичные` отбирает только безналичные',
      'Cash kind (ВидДенежныхСредств): `Наличные` or `Безналичные`; cash does not match non-cash values, and the non-cash value selects only non-cash',
    ),
    accountType: m('Вид счета, ВидСчета (подстрока)', 'Account kind, ВидСчета (substring)'),
    currency: m('Валюта счета / кассы, Валюта (подстрока)', 'Currency, Валюта (substring)'),
    closed: m('Отбор по признаку Закрыт', 'Filter by Закрыт (the account is closed)'),
    mgmt: m('Суммы в управленческом учете', 'Amounts in management accounting'),
    totals: m('Добавляет строку итогов', 'Adds the totals row'),
  },
  materials: {
    code: m('Код (подстрока)', 'Code (substring)'),
    name: m('Наименование (подстрока)', 'Name (substring)'),
    group: m('Наименование непосредственной родительской группы, не всей иерархии (подстрока)', 'Name of the immediate parent group only, not the whole hierarchy (substring)'),
    type: m('Вид номенклатуры (подстрока)', 'Nomenclature kind (substring)'),
    ngroup: m('Номенклатурная группа (подстрока)', 'Nomenclature group (substring)'),
    article: m('Артикул (подстрока)', 'Article (substring)'),
    supplier: m('Основной поставщик (подстрока)', 'Main supplier (substring)'),
    service: m('Отбор по признаку услуги; любое другое заданное значение означает ложь', 'Filter by the service flag; any other given value means false'),
  },
  warehouses: {
    code: m('Код (подстрока)', 'Code, Код (substring)'),
    name: m('Наименование (подстрока)', 'Name, Наименование (substring)'),
    group: m('Истина — только группы; любое другое заданное значение — только элементы (не группы)', 'True: only groups; any other given value: only elements (non-groups)'),
  },
}

/** `ru / en`, or undefined when the table has no entry (the meanings test forbids that). */
export function meaningOf(service: string, param: string): string | undefined {
  const meaning = MEANINGS[service]?.[param]
  return meaning && `${meaning.ru} / ${meaning.en}`
}
