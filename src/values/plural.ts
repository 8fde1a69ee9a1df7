// "Row summary string" (spec § Conventions): `N позиция`, `N позиции` or `N позиций`,
// by the Russian plural rules: 1, 21, 101 → позиция; 2–4, 22–24 → позиции; 0, 5–20, 11–14 → позиций.
export function rowsSummary(n: number): string {
  const tens = n % 100
  const ones = n % 10
  if (ones === 1 && tens !== 11) return `${n} позиция`
  if (ones >= 2 && ones <= 4 && (tens < 12 || tens > 14)) return `${n} позиции`
  return `${n} позиций`
}
