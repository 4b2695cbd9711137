/**
 * Brazil's banking calendar (docs/calendar.md): the days banks settle — Monday to Friday, less the
 * national holidays and the bank holidays (Carnival Monday and Tuesday, CMN Resolution 4.880 art. 6;
 * Corpus Christi; the year's last weekday, FEBRABAN). Dates are São Paulo calendar dates, `YYYY-MM-DD`.
 *
 * Our own table rather than `date-holidays` at run time: the domain imports nothing but `effect`
 * (docs/architecture.md), the rules fit in thirty lines, and the library's bundled data of every
 * country and region is a lot to load for them. `src/domain/calendar.test.ts` holds this module to
 * `date-holidays` (types `public` and `bank`, country BR, plus the year's last weekday, which it does not
 * close) for every day of 2000–2100.
 */

export interface Holiday {
  readonly date: string
  readonly name: string
}

/** Easter Sunday of `year` (Gregorian; the anonymous Meeus/Jones/Butcher algorithm), as [month, day]. */
export const easter = (year: number): readonly [number, number] => {
  const a = year % 19
  const b = Math.floor(year / 100)
  const c = year % 100
  const d = Math.floor(b / 4)
  const e = b % 4
  const f = Math.floor((b + 8) / 25)
  const g = Math.floor((b - f + 1) / 3)
  const h = (19 * a + b - d - g + 15) % 30
  const i = Math.floor(c / 4)
  const k = c % 4
  const l = (32 + 2 * e + 2 * i - h - k) % 7
  const m = Math.floor((a + 11 * h + 22 * l) / 451)
  const month = Math.floor((h + l - 7 * m + 114) / 31)
  const day = ((h + l - 7 * m + 114) % 31) + 1
  return [month, day]
}

const MS_PER_DAY = 86_400_000
const pad = (n: number) => String(n).padStart(2, "0")
const toDays = (date: string): number => Date.parse(`${date}T00:00:00Z`) / MS_PER_DAY
const fromDays = (days: number): string => new Date(days * MS_PER_DAY).toISOString().slice(0, 10)

/** A real calendar date written YYYY-MM-DD. */
export const isDate = (s: string): boolean => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false
  const t = Date.parse(`${s}T00:00:00Z`)
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === s
}

/** `date` moved by `days` calendar days. */
export const addCalendarDays = (date: string, days: number): string => fromDays(toDays(date) + days)

/** Calendar days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number => toDays(to) - toDays(from)

/** 0 = Sunday … 6 = Saturday. */
export const weekday = (date: string): number => new Date(`${date}T00:00:00Z`).getUTCDay()

/** The national and bank holidays of `year`, in date order. */
export const holidays = (year: number): ReadonlyArray<Holiday> => {
  const [month, day] = easter(year)
  const sunday = `${year}-${pad(month)}-${pad(day)}`
  const movable = (offset: number, name: string): Holiday => ({ date: addCalendarDays(sunday, offset), name })
  const fixed = (m: number, d: number, name: string): Holiday => ({ date: `${year}-${pad(m)}-${pad(d)}`, name })
  const list: Holiday[] = [
    fixed(1, 1, "Confraternização Universal"),
    // Bank holidays, not national ones: banks close and there is no compensação (CMN Res. 4.880 art. 6).
    movable(-48, "Carnaval (segunda-feira)"),
    movable(-47, "Carnaval (terça-feira)"),
    movable(-2, "Sexta-feira Santa"),
    fixed(4, 21, "Tiradentes"),
    fixed(5, 1, "Dia do Trabalho"),
    movable(60, "Corpus Christi"),
    fixed(9, 7, "Independência do Brasil"),
    fixed(10, 12, "Nossa Senhora Aparecida"),
    fixed(11, 2, "Finados"),
    fixed(11, 15, "Proclamação da República"),
    fixed(12, 25, "Natal")
  ]
  // Lei 14.759 of 2023-12-21 made it national: its first national 20 November is 2024's.
  if (year >= 2024) list.push(fixed(11, 20, "Dia Nacional de Zumbi e da Consciência Negra"))
  // FEBRABAN's notice every year: on 31 December there is no bank service and no compensação; when it falls on a
  // weekend, the Friday before closes instead (29/12/2023). What falls due that day is paid on the next business
  // day without charges (docs/calendar.md).
  let last = fixed(12, 31, "").date
  while (weekday(last) === 0 || weekday(last) === 6) last = addCalendarDays(last, -1)
  list.push({ date: last, name: "Encerramento do ano bancário (sem expediente nem compensação)" })
  return list.sort((x, y) => (x.date < y.date ? -1 : x.date > y.date ? 1 : 0))
}

const byYear = new Map<number, ReadonlyMap<string, string>>()
const yearTable = (year: number): ReadonlyMap<string, string> => {
  let table = byYear.get(year)
  if (table === undefined) {
    table = new Map(holidays(year).map((h) => [h.date, h.name]))
    byYear.set(year, table)
  }
  return table
}

/** The holiday's name when `date` is a national or bank holiday. */
export const holidayName = (date: string): string | undefined => yearTable(Number(date.slice(0, 4))).get(date)

/** Monday to Friday and not a national or bank holiday. */
export const isBusinessDay = (date: string): boolean => {
  const w = weekday(date)
  return w !== 0 && w !== 6 && holidayName(date) === undefined
}

/** `date` itself when it is a business day, otherwise the next one (a due date's `ajusteDiaUtil`). */
export const onOrNextBusinessDay = (date: string): string => {
  let d = date
  while (!isBusinessDay(d)) d = addCalendarDays(d, 1)
  return d
}

/** The `n`th business day after `date` (n ≥ 0; n = 0 is `date` itself, whatever it is). */
export const addBusinessDays = (date: string, n: number): string => {
  let d = date
  for (let left = n; left > 0; left--) {
    d = addCalendarDays(d, 1)
    while (!isBusinessDay(d)) d = addCalendarDays(d, 1)
  }
  return d
}
