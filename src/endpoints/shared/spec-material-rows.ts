// Each specification's Материалы rows kept ready: per row, the JSON object Материалы[]
// prints, its share of СуммаМатериалов, and the folded text the `material`/`ngroup`
// filters look in. A request that prints filtered rows joins these in the store instead
// of reading the rows with their items and units and building each object in JS (issue
// #12: 1.1 s for the 6 MB of `material=Кабель` at scale 100).
// A read model of its own, rebuilt with the specification and whenever a row's item
// (code, name, group), its group or its unit changes: the traces below. Its `material_f`
// has a trigram index (store/trigram.ts), kept by the writer with the rows: the index from a
// material's text to the rows, and so to the specifications, that hold it (`material`,
// spec-materials.ts `specsWithMaterial`).
import { fold } from '../../values/fold.js'
import type { ReadModel } from '../../views/define.js'
import { orEmpty } from './row.js'

export const SPEC_MATERIAL_ROWS = 'api_spec_material_rows'

const NOMENCLATURE = 'Справочник.Номенклатура'

/** One row of Материалы[] as it is printed (spec § Nomenclature specification). */
export interface MaterialFields {
  readonly code?: unknown
  readonly name?: unknown
  readonly quantity?: unknown
  readonly unit?: unknown
  readonly price?: unknown
  readonly amount?: unknown
  readonly ngroup?: unknown
}

/** The printed row and what it adds to СуммаМатериалов: Сумма if non-zero, else Количество × Цена. */
export function materialRow(r: MaterialFields): { row: Record<string, unknown>; contribution: number } {
  const [quantity, price, amount] = [Number(r.quantity), Number(r.price), Number(r.amount)]
  return {
    row: {
      Код: orEmpty(r.code),
      Материал: orEmpty(r.name),
      Количество: quantity,
      Единица: orEmpty(r.unit),
      Цена: price,
      Сумма: amount,
      НоменклатурнаяГруппа: orEmpty(r.ngroup),
    },
    contribution: amount !== 0 ? amount : quantity * price,
  }
}

/**
 * Separator of the rows' folded texts joined per specification (`materials_f`,
 * `ngroups_f` of api_specifications); a needle holding it could match across two rows,
 * so such a needle is tested row by row instead (spec-materials.ts).
 */
export const ROW_SEPARATOR = ','
/** Separator of a row's code and name inside `material_f`. */
export const FIELD_SEPARATOR = '\n'

export const specMaterialRows: ReadModel = {
  table: SPEC_MATERIAL_ROWS,
  version: 2,
  // `ref` is the owning specification: the import's traces and deletes work per owner.
  source: 'cat_specifications',
  rowKey: 'line',
  columns: [
    { name: 'line', type: 'int' },
    // The share as JS prints it: summed again in JS in line order, it gives the very double
    // materialsForm sums (an SQL SUM may add in another order or compensate).
    { name: 'part', type: 'blob' },
    { name: 'code_f', type: 'text' },
    { name: 'name_f', type: 'text' },
    { name: 'ngroup_f', type: 'text' },
    { name: 'material_f', type: 'text' },
  ],
  // `material`: the rows whose code or name holds the needle, through the index.
  search: ['material_f'],
  // `material` of one word's characters: the matching rows ready, in one range a word
  // (spec-materials.ts readMatchingMaterials).
  words: {
    column: 'material_f',
    carry: [
      { name: 'short', type: 'blob' },
      { name: 'part', type: 'blob' },
    ],
  },
  select:
    's.ref, s.line, n.code, n.name, s.quantity, u.presentation AS unit, s.price, s.amount, g.presentation AS ngroup ' +
    'FROM (SELECT owner AS ref, line, nomenclature, quantity, unit, price, amount FROM cat_specifications_materials) s ' +
    'LEFT JOIN cat_nomenclature n ON n.ref = s.nomenclature LEFT JOIN objects u ON u.ref = s.unit LEFT JOIN objects g ON g.ref = n.ngroup',
  build: (r) => {
    const { row, contribution } = materialRow(r)
    const [code, name] = [fold(orEmpty(r.code)), fold(orEmpty(r.name))]
    return {
      values: {
        line: Number(r.line),
        part: Buffer.from(String(contribution)),
        code_f: code,
        name_f: name,
        ngroup_f: fold(orEmpty(r.ngroup)),
        material_f: `${code}${FIELD_SEPARATOR}${name}`,
      },
      short: row,
    }
  },
  traces: [
    {
      types: [NOMENCLATURE],
      sql: 'SELECT owner AS ref FROM cat_specifications_materials WHERE nomenclature IN (SELECT ref FROM _touched)',
    },
    {
      types: ['Справочник.ЕдиницыИзмерения'],
      sql: 'SELECT owner AS ref FROM cat_specifications_materials WHERE unit IN (SELECT ref FROM _touched)',
    },
    {
      types: ['Справочник.НоменклатурныеГруппы'],
      sql:
        'SELECT m.owner AS ref FROM cat_specifications_materials m JOIN cat_nomenclature n ON n.ref = m.nomenclature ' +
        'WHERE n.ngroup IN (SELECT ref FROM _touched)',
    },
  ],
}
