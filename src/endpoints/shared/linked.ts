// Full forms of what a document links to: referenced documents ({Тип, Номер, Дата,
// НомерДата}, data-format.md § Derived values) and attachments (Вложения), read for a
// whole page of documents (by-owner.ts); each returned function throws the failure of
// that document's own read.
import { documentKind, numberDate } from '../../values/printed.js'
import { dmy } from '../../values/dates.js'
import type { SqlPort } from '../../store/sql.js'
import { READY_CONTENTS, content, readyContents } from '../../views/attachments.js'
import type { Base64Blob } from '../../views/json-stream.js'
import { readByOwner } from '../../store/by-owner.js'
import type { ByOwner } from '../../store/by-owner.js'

export interface LinkedDocument {
  readonly Тип: string
  readonly Номер: string
  readonly Дата: string
  readonly НомерДата: string
}

/** An empty or dangling reference: every field an empty string (its summary is {Есть: false}). */
const NO_DOCUMENT: LinkedDocument = { Тип: '', Номер: '', Дата: '', НомерДата: '' }

function linked(type: string, number: string | null, date: string | null): LinkedDocument {
  // A payment document that is not stored still has its type (it is the register's key);
  // number and date are then unknown, and so is «N от D».
  if (number === null || date === null) return { ...NO_DOCUMENT, Тип: documentKind(type) }
  return { Тип: documentKind(type), Номер: number, Дата: dmy(date), НомерДата: numberDate(number, date) }
}

/** The document a composite reference column (`basis`, `deal`) names, for `table` rows `refs`. */
export async function referencedDocuments(
  sql: SqlPort,
  table: string,
  column: string,
  refs: readonly string[],
): Promise<(ref: string) => LinkedDocument> {
  const rows = await readByOwner<{ owner: string; type: string; number: string; date: string }>(
    sql,
    (list) =>
      `SELECT s.ref AS owner, s.${column}_type AS type, o.presentation AS number, o.date FROM ${table} s ` +
      `JOIN objects o ON o.ref = s.${column} WHERE s.ref IN (${list})`,
    refs,
  )
  return (ref) => {
    const r = rows(ref)[0]
    return r ? linked(r.type, r.number, r.date) : NO_DOCUMENT
  }
}

/**
 * ДокументыРасчетовСКонтрагентом: the payment documents (recorders) of the
 * ЗаявкиНаРасходованиеСредств records that point to each request, oldest first.
 */
export async function settlementDocuments(sql: SqlPort, requests: readonly string[]): Promise<ByOwner<LinkedDocument>> {
  // COALESCE: engines disagree on where NULLs sort; a recorder that is not stored sorts first.
  const rows = await readByOwner<{ owner: string; type: string; found: string | null; number: string; date: string }>(
    sql,
    (list) =>
      "SELECT DISTINCT r.request AS owner, r.recorder, r.recorder_type AS type, o.ref AS found, COALESCE(o.presentation, '') AS number, " +
      "COALESCE(o.date, '') AS date FROM reg_expense_payments r LEFT JOIN objects o ON o.ref = r.recorder " +
      `WHERE r.request IN (${list}) ORDER BY owner, date, number, recorder`,
    requests,
  )
  return (request) => rows(request).map((r) => (r.found === null ? linked(r.type, null, null) : linked(r.type, r.number, r.date)))
}

interface AttachmentRow {
  readonly owner: string
  readonly ref: string
  readonly file_name: string
  readonly size: number | null
}

/** Attachments of each document of `owners`, the same ones attachmentCount counts, by file name. */
function attachments(sql: SqlPort, owners: readonly string[]): Promise<ByOwner<AttachmentRow>> {
  return readByOwner<AttachmentRow>(
    sql,
    (list) =>
      'SELECT object AS owner, ref, file_name, data_size AS size FROM cat_attachments ' +
      `WHERE object IN (${list}) AND deletion_mark = 0 ORDER BY object, file_name, ref`,
    owners,
  )
}

/**
 * Вложения with `full=true` (payments, receipts): `[{ ИмяФайла, Данные (Base64) }]`. A
 * document's contents of READY_CONTENTS bytes or less in all are read now; a heavier
 * document's are read only when serialized.
 */
export async function attachmentFiles(
  sql: SqlPort,
  owners: readonly string[],
): Promise<ByOwner<{ ИмяФайла: string; Данные: string | Base64Blob }>> {
  const rows = await attachments(sql, owners)
  const ready = new Set<string>()
  for (const owner of owners) {
    let files: AttachmentRow[]
    try {
      files = rows(owner)
    } catch {
      continue // that document gets its own read's failure below
    }
    if (files.reduce((sum, a) => sum + Number(a.size ?? 0), 0) > READY_CONTENTS) continue
    for (const a of files) if (Number(a.size ?? 0) > 0) ready.add(a.ref)
  }
  const base64 = ready.size > 0 ? await readyContents(sql, [...ready]) : undefined
  return (owner) =>
    rows(owner).map((a) => {
      const size = Number(a.size ?? 0)
      if (size === 0) return { ИмяФайла: a.file_name, Данные: '' }
      return { ИмяФайла: a.file_name, Данные: ready.has(a.ref) ? base64!(a.ref, size) : content(sql, a.ref, size) }
    })
}

/** Вложения with `full=true` (sorders): `[{ ЕстьВложение, ИмяФайла, ИдентификаторХранилища }]`. */
export async function attachmentList(
  sql: SqlPort,
  owners: readonly string[],
): Promise<ByOwner<{ ЕстьВложение: true; ИмяФайла: string; ИдентификаторХранилища: string }>> {
  const rows = await attachments(sql, owners)
  return (owner) => rows(owner).map((a) => ({ ЕстьВложение: true, ИмяФайла: a.file_name, ИдентификаторХранилища: a.ref }))
}
