/** Files attached to expense requests, receipts and supplier orders. */
import { docLink, docRef } from './context.js'
import type { Ctx, KindName } from './context.js'
import { SALT, T } from './model.js'
import type { Obj } from './model.js'
import { ATTACHMENT_NAMES } from './names.js'
import { Rng, uuid } from './random.js'

export type OwnerKind = Extract<KindName, 'request' | 'receipt' | 'supplierOrder'>

export const OWNER_KINDS: readonly OwnerKind[] = ['request', 'receipt', 'supplierOrder']

const SHARE: Record<OwnerKind, number> = { request: 0.4, receipt: 0.45, supplierOrder: 0.35 }

const ascii = (text: string) => Buffer.from(text, 'latin1')

/** Leading and trailing bytes that make the content look like a file of its extension. */
function envelope(fileName: string, title: string): [Buffer, Buffer] {
  const ext = fileName.slice(fileName.lastIndexOf('.') + 1)
  switch (ext) {
    case 'pdf':
      return [
        Buffer.concat([ascii('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Title ('), Buffer.from(title, 'utf8'), ascii(') >>\nstream\n')]),
        ascii('\nendstream\nendobj\n%%EOF\n'),
      ]
    case 'jpg':
      return [Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00]), Buffer.from([0xff, 0xd9])]
    default:
      // xlsx and docx are zip containers.
      return [Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]), Buffer.from([0x50, 0x4b, 0x05, 0x06])]
  }
}

function content(rng: Rng, fileName: string, title: string): string {
  const [head, tail] = envelope(fileName, title)
  const size = rng.int(512, 4096)
  const bytes = Buffer.alloc(Math.max(size, head.length + tail.length))
  head.copy(bytes, 0)
  rng.fillBytes(bytes, head.length, bytes.length - tail.length)
  tail.copy(bytes, bytes.length - tail.length)
  return bytes.toString('base64')
}

/** The attachments of document `index` of `owner`: none for most, one to three for a share. */
export function* attachmentsOf(ctx: Ctx, owner: OwnerKind, index: number): Iterable<Obj> {
  const kind = ctx.kinds[owner]
  const salt = SALT.attachment + kind.salt
  const rng = Rng.stream(ctx.key, salt, index)
  if (!rng.chance(SHARE[owner])) return
  const names = rng.sample(ATTACHMENT_NAMES, rng.int(1, 3))
  const title = `${kind.prefix}-${String(index + 1).padStart(6, '0')} ${docRef(ctx, kind, index)}`
  for (let k = 0; k < names.length; k++) {
    const fileName = names[k] ?? ''
    yield {
      type: T.attachment,
      ref: uuid(ctx.key, salt, index * 4 + k),
      ПометкаУдаления: false,
      Наименование: fileName.slice(0, fileName.lastIndexOf('.')),
      Объект: docLink(ctx, kind, index),
      ИмяФайла: fileName,
      Данные: content(rng, fileName, title),
    }
  }
}
