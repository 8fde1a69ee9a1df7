// Every in-band problem text (`errors` entries). The spec leaves the entry shape open
// (§ Errors); docgate answers with plain strings, in the spec's wording where it gives one.
export const messages = {
  badDate: (param: string, value: string) =>
    `Неверный формат даты в параметре ${param}: "${value}" (ожидается ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или ДД-ММ-ГГГГ)`,
  periodReversed: (from: string, to: string) => `Начало периода ${from} позже его конца ${to}`,
  badBoolean: (param: string, value: string) => `Неверное значение параметра ${param}: "${value}"`,
  badNumber: (param: string, value: string) => `Неверное число в параметре ${param}: "${value}"`,
  document: (what: string, reason: string) => `${what}: ${reason}`,
  /** "X requires Y" (spec § Errors); with one name this is the spec's own wording for transfers. */
  requires: (param: string, anyOf: readonly string[]) =>
    anyOf.length === 1
      ? `Параметр ${param} требует указания ${anyOf[0]}`
      : `Параметр ${param} требует указания одного из параметров: ${anyOf.join(', ')}`,
  badYear: (value: string) => `Неверный год в параметре year: "${value}" (ожидается ГГ или ГГГГ)`,
  badMonth: (value: string) => `Неверный месяц в параметре month: "${value}" (ожидается число от 1 до 12)`,
  tabularRead: (what: string, part: string, reason: string) => `${what}: не удалось прочитать табличную часть ${part}: ${reason}`,
  /** data-format.md § Derived values: the repeated specification contributes 0. */
  specificationCycle: (cycles: readonly string[]) =>
    `цикл спецификаций (${cycles.join('; ')}): повторная спецификация не учтена в плановой себестоимости`,
} as const
