// What parameters mean, in Russian and English, after the "Meaning" column of the spec's
// parameter tables (business-document-read-api.md § Endpoints): the vocabulary and the
// meanings several endpoints share. Each endpoint declares its own table (`meanings`);
// describe.ts joins it to the mechanics (stage, spellings, formats) derived from the
// declaration. A parameter's aliases share its meaning. test/openapi/meanings.test.ts fails
// when a declared parameter has no entry or an entry names a parameter not declared.

export interface Meaning {
  readonly ru: string
  readonly en: string
}

export const m = (ru: string, en: string): Meaning => ({ ru, en })

export const byDocumentDate = {
  from: m('Начало периода по дате документа', 'Period start by document date'),
  to: m('Конец периода по дате документа', 'Period end by document date'),
}
export const oneDocumentDate = m('Одна дата документа (весь день)', 'One document date (the whole day)')

export const documentNumber = m('Номер документа (подстрока)', 'Document number (substring)')
export const exactAmount = m('Сумма документа (точное совпадение)', 'Document amount (exact match)')
export const posted = m('Отбор по признаку «Проведен»', 'Filter by posted state')
export const responsible = m('Ответственный (подстрока)', 'Responsible (substring)')
export const responsibleName = m('Имя ответственного (подстрока)', 'Responsible name (substring)')
export const organization = m('Наименование организации (подстрока)', 'Organization name (substring)')
export const warehouse = m('Склад (подстрока)', 'Warehouse (substring)')
export const comment = m('Комментарий (подстрока)', 'Comment (substring)')
