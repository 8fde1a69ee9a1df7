// Every declared parameter carries the spec's meaning in Russian and English, in the
// OpenAPI document and in the agent tools alike; the table names nothing undeclared.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Endpoint } from '../../src/endpoints/define.js'
import { periodParams } from '../../src/endpoints/describe.js'
import { OUTPUT_MEANINGS } from '../../src/endpoints/fields.js'
import { PAGE_MEANINGS } from '../../src/endpoints/pages.js'
import { CHANGES_MEANING } from '../../src/endpoints/changes.js'
import { ENDPOINTS, endpointByService } from '../../src/endpoints/index.js'
import { toolOf } from '../../src/mcp/tools.js'
import { openApiDocument } from '../../src/openapi/document.js'

type Json = Record<string, any>

/** The names a caller may send as their own parameter: the period and the declared parameters (aliases share their main name's meaning). */
const declared = (e: Endpoint): string[] => [...periodParams(e).map((p) => p.name), ...e.params.map((p) => p.name)]

const operation = (doc: Json, service: string) => doc.paths[`/main/hs/${service}/get`].get
const parameter = (doc: Json, service: string, name: string): Json => operation(doc, service).parameters.find((p: Json) => p.name === name)

describe('parameter meanings', () => {
  const doc = openApiDocument() as Json

  it('every declared parameter of every endpoint, the period included, has a Russian and an English meaning', () => {
    for (const e of ENDPOINTS) {
      for (const name of declared(e)) {
        const meaning = e.meanings[name]
        assert.ok(meaning, `${e.service}.${name} has no meaning in its declaration (meanings)`)
        assert.match(meaning.ru, /^[А-ЯЁ]/, `${e.service}.${name}: ru`)
        assert.match(meaning.en, /^[A-Z]/, `${e.service}.${name}: en`)
      }
    }
  })

  it('the table names only declared parameters of existing endpoints', () => {
    for (const e of ENDPOINTS) {
      const names = new Set(declared(e))
      for (const name of Object.keys(e.meanings)) assert.ok(names.has(name), `${e.service}'s meanings name ${name}, which is not declared`)
    }
  })

  it('every OpenAPI parameter, alias and period parameter starts with its meaning', () => {
    for (const e of ENDPOINTS) {
      for (const p of operation(doc, e.service).parameters as Json[]) {
        const main = e.params.find((d) => d.name === p.name || d.aliases?.includes(p.name))?.name ?? p.name
        // The paging, changes and output parameters are not the contract's: their meanings are
        // pages.ts's, changes.ts's and fields.ts's.
        const stage = p['x-docgate-stage']
        const { ru, en } =
          stage === 'page'
            ? PAGE_MEANINGS[main as keyof typeof PAGE_MEANINGS]
            : stage === 'changes'
              ? CHANGES_MEANING
              : stage === 'output'
                ? OUTPUT_MEANINGS[main as keyof typeof OUTPUT_MEANINGS]
                : e.meanings[main]!
        assert.ok(p.description.startsWith(`${ru} / ${en}. `), `${e.service}.${p.name}: ${p.description}`)
      }
    }
  })

  it('reads as the spec says, meaning first and the mechanics after', () => {
    assert.equal(
      parameter(doc, 'payments', 'code').description,
      'Номер заявки (подстрока) / Request number (substring). Database filter: case-insensitive substring.',
    )
    assert.equal(
      parameter(doc, 'payments', 'from').description,
      'Начало периода по дате расхода (ДатаРасхода, не дата документа) / Period start by expense date (ДатаРасхода, not the document date). ' +
        'Database filter, inclusive; works only together with `to`, alone it is no filter; a date as ДД.ММ.ГГГГ, ГГГГ-ММ-ДД or ДД-ММ-ГГГГ; an invalid date adds an errors entry.',
    )
    assert.equal(
      parameter(doc, 'receipts', 'contactor').description,
      'Наименование контрагента (подстрока) / Counterparty name (substring). Post-filter on the printed value: case-insensitive substring; also accepted as contactor, supplier. Alias of `contractor`.',
    )
    assert.equal(
      parameter(doc, 'cashflows', 'to').description,
      'Конец периода, включительно до конца дня; можно без `from` (тогда начало — 01.01.0001) / Period end, inclusive to the end of the day; may be used without `from` (then the start is 01.01.0001). ' +
        'Read by the endpoint itself; a date as ДД.ММ.ГГГГ, ГГГГ-ММ-ДД or ДД-ММ-ГГГГ.',
    )
  })

  it('the agent tools carry the same meanings', () => {
    const tool = toolOf(endpointByService.get('morders')!)
    const contract = (tool.inputSchema.properties as Record<string, { description: string }>).contract!
    assert.equal(
      contract.description,
      'Комментарий документа, выводимый как Договор (подстрока) / Document comment, shown as Договор (substring). Database filter: case-insensitive substring; send `/` as `_slash_`.',
    )
  })
})
