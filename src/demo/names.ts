/** Russian vocabularies for the demo data set. */
import type { Rng } from './random.js'

const list = (text: string): readonly string[] => text.split('|')

const SURNAMES = list(
  'Иванов|Петров|Сидоров|Смирнов|Кузнецов|Попов|Васильев|Соколов|Михайлов|Новиков|Федоров|Морозов|' +
    'Волков|Алексеев|Лебедев|Семенов|Егоров|Павлов|Козлов|Степанов|Николаев|Орлов|Андреев|Макаров|' +
    'Никитин|Захаров|Зайцев|Соловьев|Борисов|Яковлев|Григорьев|Романов|Воробьев|Сергеев|Кузьмин|' +
    'Фролов|Александров|Дмитриев|Королев|Гусев|Киселев|Ильин|Максимов|Поляков|Сорокин|Виноградов|' +
    'Ковалев|Белов|Медведев|Антонов|Тарасов|Жуков|Баранов|Филиппов|Комаров|Давыдов|Беляев|' +
    'Герасимов|Богданов|Осипов|Покровский|Вишневский|Островский|Бондаренко|Ткаченко|Шевчук|Кравец|' +
    'Толстой|Крылов|Белоусов|Гончаров|Карпов|Лукин|Мартынов|Назаров|Щербаков|Калинин',
)
const MALE_NAMES = list(
  'Александр|Алексей|Андрей|Антон|Артем|Борис|Вадим|Валерий|Василий|Виктор|Владимир|Владислав|' +
    'Геннадий|Георгий|Денис|Дмитрий|Евгений|Егор|Иван|Игорь|Илья|Кирилл|Константин|Максим|Михаил|' +
    'Никита|Николай|Олег|Павел|Роман|Руслан|Сергей|Станислав|Степан|Юрий|Ярослав',
)
const FEMALE_NAMES = list(
  'Александра|Алена|Алина|Анастасия|Анна|Валентина|Вера|Виктория|Галина|Дарья|Евгения|Екатерина|' +
    'Елена|Жанна|Ирина|Карина|Ксения|Лариса|Людмила|Марина|Мария|Надежда|Наталья|Оксана|Ольга|' +
    'Полина|Светлана|Софья|Татьяна|Юлия',
)
/** Patronymic stems: `${stem}ич` for men, `${stem}на` for women. */
const PATRONYMIC_STEMS = list(
  'Александров|Алексеев|Андреев|Анатольев|Борисов|Валерьев|Васильев|Викторов|Владимиров|' +
    'Геннадьев|Дмитриев|Евгеньев|Иванов|Игорев|Константинов|Михайлов|Николаев|Олегов|Павлов|' +
    'Петров|Романов|Сергеев|Степанов|Федоров|Юрьев',
)

function femaleSurname(s: string): string {
  if (/(ов|ев|ин|ын)$/.test(s)) return `${s}а`
  if (/(ский|цкий)$/.test(s)) return `${s.slice(0, -2)}ая`
  if (s.endsWith('ой')) return `${s.slice(0, -2)}ая`
  return s
}

/** `Фамилия Имя Отчество`, female in about a third of the cases. */
export function personName(rng: Rng): string {
  const female = rng.chance(0.35)
  const surname = rng.pick(SURNAMES)
  const stem = rng.pick(PATRONYMIC_STEMS)
  return female ? `${femaleSurname(surname)} ${rng.pick(FEMALE_NAMES)} ${stem}на` : `${surname} ${rng.pick(MALE_NAMES)} ${stem}ич`
}

/** Names already given in one catalogue, with the next free number for each repeated name. */
export class NameSet {
  private readonly used = new Set<string>()
  private readonly next = new Map<string, number>()

  /** Draws until `make` returns a new name; falls back to a numbered variant `Name (2)`. */
  unique(make: () => string, attempts = 8): string {
    let name = make()
    for (let i = 0; i < attempts && this.used.has(name); i++) name = make()
    if (this.used.has(name)) {
      const base = name
      let n = this.next.get(base) ?? 2
      while (this.used.has(`${base} (${n})`)) n++
      this.next.set(base, n + 1)
      name = `${base} (${n})`
    }
    this.used.add(name)
    return name
  }

  add(name: string): void {
    this.used.add(name)
  }
}

const COMPANY_HEADS = list(
  'Техно|Строй|Урал|Сиб|Металл|Энерго|Пром|Электро|Гидро|Термо|Евро|Гранит|Альфа|Вега|Мега|Нова|' +
    'Дельта|Север|Волга|Балт|Кама|Росс|Спец|Инж|Полимер|Кабель|Сталь|Бетон|Лес|Профи',
)
const COMPANY_TAILS = list(
  'пром|снаб|торг|комплект|сервис|монтаж|ресурс|систем|лайн|строй|техника|маркет|профиль|ком|' +
    'инвест|трейд|стандарт|холдинг|логистик|деталь',
)
const COMPANY_PREFIXES = list('|||||ТД |ПКФ |НПО |ПК |СК |ТК ')
const COMPANY_SUFFIXES = list('||||||-Урал|-Сибирь|-Центр|-Юг|-Регион| Плюс|-М|-Северо-Запад')

export function companyName(rng: Rng): string {
  const head = rng.pick(COMPANY_HEADS)
  let tail = rng.pick(COMPANY_TAILS)
  while (head.toLowerCase() === tail) tail = rng.pick(COMPANY_TAILS)
  const core = `${rng.pick(COMPANY_PREFIXES)}${head}${tail}${rng.pick(COMPANY_SUFFIXES)}`
  return `${rng.weighted(['ООО', 'АО', 'ПАО'], [80, 15, 5])} "${core}"`
}

export const FOREIGN_SUPPLIERS = [
  'Shanghai Huayi Electric Co., Ltd.',
  'Ningbo Steel Trading Co., Ltd.',
  'Hebei Jinxing Pipe Fittings Co., Ltd.',
] as const

/** Tax-office region codes, weighted towards where the demo companies work. */
const REGIONS = list('77|77|78|66|66|66|50|54|16|02|74|52|23|59|72|63')

function checkDigit(digits: readonly number[], weights: readonly number[]): number {
  let sum = 0
  for (let i = 0; i < weights.length; i++) sum += (digits[i] ?? 0) * (weights[i] ?? 0)
  return (sum % 11) % 10
}

/** An ИНН with valid check digits: 10 digits for a legal entity, 12 for a person. */
export function inn(rng: Rng, person: boolean): string {
  const digits = [...rng.pick(REGIONS)].map(Number)
  digits.push(rng.int(0, 9), rng.int(1, 9))
  const body = person ? 6 : 5
  for (let i = 0; i < body; i++) digits.push(rng.int(0, 9))
  if (!person) {
    digits.push(checkDigit(digits, [2, 4, 10, 3, 5, 9, 4, 6, 8]))
  } else {
    digits.push(checkDigit(digits, [7, 2, 4, 10, 3, 5, 9, 4, 6, 8]))
    digits.push(checkDigit(digits, [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]))
  }
  return digits.join('')
}

export const BANKS: readonly (readonly [name: string, bic: string])[] = [
  ['ПАО Сбербанк', '044525225'],
  ['Банк ВТБ (ПАО)', '044525187'],
  ['АО "АЛЬФА-БАНК"', '044525593'],
  ['АО "Райффайзенбанк"', '044525700'],
  ['ПАО "Промсвязьбанк"', '044525555'],
  ['АО "ТБанк"', '044525974'],
]

const SITE_KINDS = list('ЖК|ЖК|ЖК|ТЦ|БЦ|Школа|Завод|Склад-терминал|Поликлиника|Спорткомплекс')
const SITE_NAMES = list(
  'Северный|Южный|Ривьера|Солнечный|Парковый|Заречный|Лесной|Звездный|Весна|Гранд|Меридиан|' +
    'Приморский|Березовый|Ясная поляна|Новая высота|Светлый|Академический|Сосновый бор|Речной|Олимп',
)

export function siteWarehouseName(rng: Rng): string {
  return `Склад объекта «${rng.pick(SITE_KINDS)} ${rng.pick(SITE_NAMES)}»`
}

const CHARACTERISTIC_MAKERS: readonly ((rng: Rng) => string)[] = [
  (r) => `RAL ${r.pick(list('1015|3005|3020|5005|5015|6005|7004|7024|7035|8017|9003|9005|9016'))}`,
  (r) => `Сорт ${r.int(1, 3)}`,
  (r) => `Класс прочности ${r.pick(list('5.8|8.8|10.9|12.9'))}`,
  (r) => `Длина ${r.pick(list('3000|4000|6000|9000|11700|12000'))} мм`,
  (r) => `Покрытие: ${r.pick(list('оцинкованное|порошковое|без покрытия|грунтованное'))}`,
  (r) => `Исполнение ${r.pick(list('УХЛ1|УХЛ4|IP54|IP65|IP67'))}`,
  (r) => `Марка стали ${r.pick(list('Ст3сп|09Г2С|С245|С255|С345|12Х18Н10Т'))}`,
  (r) => `Партия ${r.int(2023, 2026)}/${String(r.int(1, 999)).padStart(3, '0')}`,
]

export function characteristicName(rng: Rng): string {
  return rng.pick(CHARACTERISTIC_MAKERS)(rng)
}

export const REQUEST_COMMENTS = list(
  'Аванс поставщику|Оплата за материалы|Командировочные расходы|Оплата аренды спецтехники|' +
    'Предоплата 50% по договору|Хозяйственные нужды|Оплата транспортных услуг|Срочно, до конца недели|' +
    'Оплата по графику платежей|Доплата по акту сверки',
)
export const ORDER_COMMENTS = list(
  'Срочный заказ|Доставка силами поставщика|Самовывоз|Согласовано с директором|По заявке прораба|' +
    'Поставка частями|Оплата по факту поставки|Резерв под объект|Цены согласованы по прайсу',
)
export const TRANSFER_COMMENTS = list(
  'Перемещение на объект|Возврат с объекта|Пополнение цехового склада|Корректировка размещения по инвентаризации|' + 'Передача под монтаж',
)
export const DEMAND_COMMENTS = list(
  'Списание на объект|Для производства|На хозяйственные нужды|Ремонт оборудования|По заявке мастера участка|' +
    'Изготовление металлоконструкций',
)
export const SERVICE_CONTENTS = list(
  'Доставка материалов до объекта|Погрузо-разгрузочные работы|Резка металла в размер|Упаковка и маркировка|' +
    'Антикоррозийная обработка|Разгрузка манипулятором',
)
export const ATTACHMENT_NAMES = list(
  'Счет.pdf|Скан договора.jpg|Счет-фактура.pdf|УПД.pdf|Товарная накладная ТОРГ-12.pdf|Акт сверки.xlsx|' +
    'Спецификация к договору.docx|Фото груза.jpg|Коммерческое предложение.pdf|Доверенность.pdf',
)
