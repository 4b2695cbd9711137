import { addBusinessDays, isBusinessDay, onOrNextBusinessDay } from "./calendar.ts"

/**
 * Boleto due dates are calendar days in Brazil's banking time zone (America/Sao_Paulo): a slip due
 * on the 24th can be paid until the end of the 24th there.
 */
const ZONE = "America/Sao_Paulo"

// One formatter for the process: building an Intl.DateTimeFormat costs more than formatting with it.
const FORMAT = new Intl.DateTimeFormat("en-CA", {
  timeZone: ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  timeZoneName: "longOffset"
})

const formatParts = (instant: Date) => {
  const fields = FORMAT.formatToParts(instant)
  const get = (type: Intl.DateTimeFormatPartTypes) => fields.find((p) => p.type === type)?.value ?? ""
  return {
    date: `${get("year")}-${get("month")}-${get("day")}`,
    offset: get("timeZoneName").replace("GMT", "") || "+00:00"
  }
}

/**
 * The zone's date and offset are the same for every instant of a quarter hour since it left its local
 * mean time (1914-01-01T03:06:28Z; its offsets since are whole hours, so its midnights and changes fall on
 * quarter hours of UTC), and formatToParts was a visible share of presenting a v1 transaction (three
 * instants each): the last quarter hours asked are kept. An instant before the first whole quarter hour
 * after 1914 is formatted as it is: its midnights fell at :06:28 past an hour.
 */
const QUARTER_HOUR = 15 * 60_000
const WHOLE_QUARTERS_FROM = Date.UTC(1914, 0, 1, 3, 15)
const known = new Map<number, ReturnType<typeof formatParts>>()
const parts = (instant: Date) => {
  if (instant.getTime() < WHOLE_QUARTERS_FROM) return formatParts(instant)
  const quarter = Math.floor(instant.getTime() / QUARTER_HOUR)
  const cached = known.get(quarter)
  if (cached !== undefined) return cached
  const found = formatParts(new Date(quarter * QUARTER_HOUR))
  if (known.size >= 256) known.clear()
  known.set(quarter, found)
  return found
}

/** The local calendar date in São Paulo, YYYY-MM-DD. */
export const saoPauloDate = (instant: Date) => parts(instant).date

/**
 * An offset as Intl writes it, `-03:00`, in milliseconds. Before 1914 São Paulo kept its local mean time,
 * `-03:06:28`: seconds an ISO 8601 offset cannot carry, so a date string built with it was an Invalid Date
 * (a v1 filter `created_from=1900-01-01` reached SQL as NaN, a 500).
 */
const offsetMs = (offset: string) => {
  const sign = offset.startsWith("-") ? -1 : 1
  const [hours = 0, minutes = 0, seconds = 0] = offset.slice(1).split(":").map(Number)
  return sign * ((hours * 60 + minutes) * 60 + seconds) * 1000
}

const HOUR = 3_600_000
/** A calendar day of wall-clock time: `YYYY-MM-DDT00:00:00Z` plus this is the next date's 00:00, as numbers. */
const WALL_CLOCK_DAY = 24 * HOUR
const offsetAt = (t: number) => offsetMs(parts(new Date(t)).offset)
/** The wall-clock time an instant reads in São Paulo, as the instant it would be in UTC. */
const localAt = (t: number) => t + offsetAt(t)

/**
 * The first instant whose São Paulo wall clock reads `midnight` (a date's 00:00 written as if in UTC) or
 * later. The midnight at offset `o` is the instant midnight − o, and a real one when `o` is in force then.
 * The zone changes offset at most once a day: the midnight's offset is that of the evening before or of
 * the morning after. Both hold when 00:00 came twice (clocks back from 01:00): the first one counts. When
 * neither holds, the clocks skipped 00:00 (forward at midnight): the first instant after the jump, found
 * by halving a bracket from the evening before to the day's afternoon (the wall clock only moves forward
 * across a date: São Paulo's changes back ran 00:00 → 23:00, within the day before).
 */
const startOfLocalDay = (midnight: number): number => {
  const candidates = [offsetAt(midnight - 12 * HOUR), offsetAt(midnight + 12 * HOUR)]
    .map((offset) => midnight - offset)
    .filter((at) => offsetAt(at) === midnight - at)
  if (candidates.length > 0) return Math.min(...candidates)
  let before = midnight - 15 * HOUR
  let from = midnight + 15 * HOUR
  while (from - before > 1) {
    const mid = Math.floor((before + from) / 2)
    if (localAt(mid) >= midnight) from = mid
    else before = mid
  }
  return from
}

/**
 * The instant a São Paulo calendar day starts: the first instant whose São Paulo date is `date`. That is
 * its 00:00, or, on a day whose midnight the clocks skipped, the first instant after: 2018-11-04 began at
 * 01:00 −02:00 (03:00Z), when the clocks jumped from 23:59:59 −03:00 of the 3rd (Brazil kept daylight
 * saving until 2019). A day is not 24 hours long on a change day (2018-11-04 had 23, 2019-02-16 had 25,
 * its 23:00–24:00 twice): its end is the next day's start, never its start plus 24 hours.
 */
export const startOfDayInSaoPaulo = (date: string): Date => new Date(startOfLocalDay(Date.parse(`${date}T00:00:00Z`)))

/** The instant a São Paulo calendar day ends, exclusive: the start of the next day (a range's `before`). */
export const startOfNextDayInSaoPaulo = (date: string): Date =>
  new Date(startOfLocalDay(Date.parse(`${date}T00:00:00Z`) + WALL_CLOCK_DAY))

/** The last millisecond of a São Paulo calendar day, as an instant. */
export const endOfDayInSaoPaulo = (date: string): Date => new Date(startOfNextDayInSaoPaulo(date).getTime() - 1)

/** `days` calendar days after today in São Paulo, with the instant that day ends. */
export const addDaysInSaoPaulo = (now: Date, days: number) => {
  const today = saoPauloDate(now)
  const shifted = new Date(`${today}T12:00:00Z`)
  shifted.setUTCDate(shifted.getUTCDate() + days)
  const date = shifted.toISOString().slice(0, 10)
  return { date, endOfDay: endOfDayInSaoPaulo(date) }
}

/** An instant as ISO 8601 with São Paulo's offset, e.g. `2026-11-22T09:15:00-03:00` (CONTRACT-v1 §1). */
export const isoInSaoPaulo = (instant: Date): string => {
  const { offset } = parts(instant)
  const shifted = new Date(instant.getTime() + offsetMs(offset))
  return `${shifted.toISOString().slice(0, 19)}${offset === "+00:00" ? "+00:00" : offset}`
}

/** `days` business days after today in São Paulo (docs/calendar.md), with the instant that day ends. */
export const addBusinessDaysInSaoPaulo = (now: Date, days: number) => {
  const date = addBusinessDays(saoPauloDate(now), days)
  return { date, endOfDay: endOfDayInSaoPaulo(date) }
}

/**
 * When a bank transfer asked for at `at` can leave: at once on a business day, otherwise at the start
 * (00:00 São Paulo) of the next business day — TED and the compensação do not run on weekends and bank
 * holidays, PIX does (docs/calendar.md).
 */
export const bankTransferAt = (at: Date): Date => {
  const today = saoPauloDate(at)
  return isBusinessDay(today) ? at : startOfDayInSaoPaulo(onOrNextBusinessDay(today))
}

/**
 * When a withdrawal asked for at `at` leaves (docs/calendar.md): its delay (`WITHDRAWAL_DELAY_SECONDS`)
 * counted from the moment it can leave, and then again never on a closed day — a request seconds before
 * midnight on a Friday would otherwise leave on the Saturday its delay ran into.
 */
export const withdrawalLeavesAt = (at: Date, delaySeconds: number): Date =>
  bankTransferAt(new Date(bankTransferAt(at).getTime() + delaySeconds * 1000))
