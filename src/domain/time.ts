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
 * The zone's date and offset are the same for every instant of a quarter hour (its offsets since 1914
 * are whole hours, so its midnights and changes fall on quarter hours of UTC), and formatToParts was a
 * visible share of presenting a v1 transaction (three instants each): the last quarter hours asked are
 * kept.
 */
const QUARTER_HOUR = 15 * 60_000
const known = new Map<number, ReturnType<typeof formatParts>>()
const parts = (instant: Date) => {
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

/** The last millisecond of a São Paulo calendar day, as an instant. */
export const endOfDayInSaoPaulo = (date: string): Date => {
  // Take the offset in force at midday of that date (Brazil has had no DST since 2019, but be exact).
  const { offset } = parts(new Date(`${date}T12:00:00Z`))
  const midnight = new Date(`${date}T00:00:00Z`).getTime() - offsetMs(offset)
  return new Date(midnight + 24 * 3600 * 1000 - 1)
}

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

/** The instant a São Paulo calendar day starts. */
export const startOfDayInSaoPaulo = (date: string): Date =>
  new Date(endOfDayInSaoPaulo(date).getTime() + 1 - 86_400_000)

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
