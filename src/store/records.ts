// Many rows as one value (Dialect.concatRecords): fields apart by UNIT, records by RECORD.
// Both bytes are control characters, which JSON text never holds raw and a ref (a UUID)
// never holds at all, so the forms and keys a read joins need no escaping.

export const UNIT = 0x1f
export const RECORD = 0x1e

/**
 * The records of a concatRecords blob, each as its `width` fields (views into `blob`, not
 * copies); none for null or an empty blob. A record with another number of fields is an
 * error: a field held a separator.
 */
export function splitRecords(blob: Buffer | null, width: number): Buffer[][] {
  const records: Buffer[][] = []
  if (blob === null || blob.length === 0) return records
  let start = 0
  for (;;) {
    const end = blob.indexOf(RECORD, start)
    const stop = end < 0 ? blob.length : end
    const fields: Buffer[] = []
    let from = start
    while (fields.length < width - 1) {
      const cut = blob.indexOf(UNIT, from)
      if (cut < 0 || cut > stop) break
      fields.push(blob.subarray(from, cut))
      from = cut + 1
    }
    fields.push(blob.subarray(from, stop))
    if (fields.length !== width || blob.subarray(from, stop).includes(UNIT)) {
      throw new Error(`a joined record does not have ${width} fields`)
    }
    records.push(fields)
    if (end < 0) return records
    start = end + 1
  }
}
