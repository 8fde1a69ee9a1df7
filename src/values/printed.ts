// Printed forms shared by the resources (spec § Conventions, data-format.md § Derived values).
import { dmy } from './dates.js'

/** "Summary object": presence flag and count. */
export const summary = (count: number): { Есть: boolean; Количество: number } => ({ Есть: count > 0, Количество: count })

/** `Тип` of a referenced document: the name after `Документ.`. */
export const documentKind = (type: string): string => (type.startsWith('Документ.') ? type.slice('Документ.'.length) : type)

/** `<Номер> от <Дата as DD.MM.YYYY>`. */
export const numberDate = (number: string, storedDate: string): string => `${number} от ${dmy(storedDate)}`

/** Every computed amount is rounded to 2 decimal places, half away from zero. */
export function round2(n: number): number {
  const r = Math.round(Math.abs(n) * 100 + 1e-9) / 100
  return n < 0 ? -r : r
}

/** `text`, or the spec's literal for an empty value (`Не указан`, `Не указана`). */
export const orLiteral = (text: unknown, literal: string): string => (typeof text === 'string' && text !== '' ? text : literal)
