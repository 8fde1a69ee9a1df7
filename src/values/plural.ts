// "Row summary string" (spec § Conventions): `N позиция`, `N позиции` or `N позиций`, by
// the Russian plural rules (1, 21, 101 → позиция; 2–4, 22–24 → позиции; 0, 5–20, 11–14 → позиций).
const RULES = new Intl.PluralRules('ru')
const FORMS: Readonly<Record<string, string>> = { one: 'позиция', few: 'позиции', many: 'позиций' }

export const rowsSummary = (n: number): string => `${n} ${FORMS[RULES.select(n)] ?? FORMS.many}`
