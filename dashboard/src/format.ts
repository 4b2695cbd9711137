import { lang } from "./i18n.ts"

/**
 * Money and time as the merchant reads them (docs/dashboard.md "Formats"): centavos shown as
 * `R$ 1.234,56` (pt-BR) or `R$1,234.56` (en); instants in America/Sao_Paulo with the zone named.
 */
export const ZONE = "America/Sao_Paulo"

const money = new Map<string, Intl.NumberFormat>()
export const brl = (centavos: number) => {
  const l = lang()
  let f = money.get(l)
  if (!f) {
    f = new Intl.NumberFormat(l, { style: "currency", currency: "BRL" })
    money.set(l, f)
  }
  // Intl puts a no-break space after R$; a plain space copies and searches as people type it.
  return f.format(centavos / 100).replace(/\u00a0/g, " ")
}

export const dateTime = (iso: string | null | undefined) => {
  if (!iso) return "—"
  return new Intl.DateTimeFormat(lang(), {
    timeZone: ZONE,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "short"
  }).format(new Date(iso))
}

export const percent = (rate: number | null) =>
  rate === null ? "—" : new Intl.NumberFormat(lang(), { style: "percent", maximumFractionDigits: 1 }).format(rate)

/** "R$ 10,00" or "10.00" typed by a person → centavos; null when it is not an amount. */
export const parseMoney = (text: string): number | null => {
  const t = text.replace(/R\$|\s/g, "")
  if (t === "") return null
  const normalised = /,\d{1,2}$/.test(t) ? t.replace(/\./g, "").replace(",", ".") : t.replace(/,/g, "")
  if (!/^\d+(\.\d{1,2})?$/.test(normalised)) return null
  return Math.round(Number(normalised) * 100)
}

/** Today in São Paulo, YYYY-MM-DD. */
export const today = () => new Intl.DateTimeFormat("en-CA", { timeZone: ZONE }).format(new Date())
export const daysAgo = (n: number) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: ZONE }).format(new Date(Date.now() - n * 86_400_000))

const day = new Intl.DateTimeFormat("en-CA", { timeZone: ZONE })

/**
 * The first instant of a São Paulo day (`YYYY-MM-DD`), as the server's `startOfDayInSaoPaulo`: its 00:00,
 * or the first instant after a midnight the clocks skipped (2018-11-04 began at 01:00 −02:00). Found by
 * halving 30 hours around the day's 00:00 UTC (a date only moves forward in time); a day is 23, 24 or 25
 * hours, so the next day's start, not this one plus 24 hours, ends it.
 */
const startOf = (date: string): number => {
  let before = Date.parse(`${date}T00:00:00Z`) - 15 * 3_600_000
  let from = before + 30 * 3_600_000
  while (from - before > 1) {
    const mid = Math.floor((before + from) / 2)
    if (day.format(new Date(mid)) >= date) from = mid
    else before = mid
  }
  return from
}

/** A São Paulo day's first and last millisecond, as ISO 8601 instants (a list's inclusive bounds). */
export const dayStart = (date: string) => new Date(startOf(date)).toISOString()
export const dayEnd = (date: string) => {
  const next = new Date(Date.parse(`${date}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
  return new Date(startOf(next) - 1).toISOString()
}
