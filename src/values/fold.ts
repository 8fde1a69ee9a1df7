// Case folding for substring filters (decision D6): NFC, then Unicode lower case, so
// `иванов` finds `ИВАНОВ` (SQLite's lower()/LIKE fold ASCII only). `ё` and `е` stay
// distinct letters. Read models store folded copies; the request value is folded here.
export const fold = (text: string): string => text.normalize('NFC').toLowerCase()

/** Sort key for names: case-insensitive, with `ё` placed beside `е` as in the alphabet. */
export const sortKey = (text: string): string => fold(text).replace(/ё/g, 'е\u0001')
