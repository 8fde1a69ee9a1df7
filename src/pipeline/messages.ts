// Every in-band problem text (`errors` entries). The spec leaves the entry shape open
// (§ Errors); docgate answers with plain strings, in the spec's wording where it gives one.
export const messages = {
  badDate: (param: string, value: string) =>
    `Неверный формат даты в параметре ${param}: "${value}" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)`,
  periodReversed: (from: string, to: string) => `Начало периода ${from} позже его конца ${to}`,
  periodNeedsBoth: (param: string) => `Параметр ${param} действует только вместе с ${param === 'from' ? 'to' : 'from'}`,
  badBoolean: (param: string, value: string) => `Неверное значение параметра ${param}: "${value}"`,
  badNumber: (param: string, value: string) => `Неверное число в параметре ${param}: "${value}"`,
  document: (what: string, reason: string) => `${what}: ${reason}`,
} as const
