// Amounts as the API compares them.

/** Exact amounts compare in kopecks, so 0.1 + 0.2 finds a stored 0.3. */
export const kopecks = (n: number): number => Math.round(n * 100)
