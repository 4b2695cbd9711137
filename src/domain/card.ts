// Card number (PAN) rules: Luhn check digit (ISO/IEC 7812-1 Annex B) and brand
// detection by BIN/IIN prefix. Elo is Brazilian and was issued inside ranges
// that look like Visa (4…) or Mastercard/Discover (5…, 6…), so Elo ranges are
// matched FIRST; everything else falls through to the Visa/Mastercard rules.

import { saoPauloDate } from "./time.ts"

const isDigits = (s: string): boolean => /^\d+$/.test(s)

const luhnSum = (digits: string, doubleFirst: boolean): number => {
  // Walk from the right; every second digit is doubled (and 9 subtracted if > 9).
  let sum = 0
  let dbl = doubleFirst
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = Number(digits[i])
    if (dbl) d = d * 2 > 9 ? d * 2 - 9 : d * 2
    sum += d
    dbl = !dbl
  }
  return sum
}

export const luhnValid = (pan: string): boolean => pan.length >= 2 && isDigits(pan) && luhnSum(pan, false) % 10 === 0

/** The digit to append to `partial` so that the result passes Luhn. Throws on non-digits. */
export const luhnCheckDigit = (partial: string): string => {
  if (!isDigits(partial)) throw new RangeError("partial PAN must be digits")
  return String((10 - (luhnSum(partial, true) % 10)) % 10)
}

export type CardBrand = "Visa" | "Mastercard" | "Elo"

// Elo 6-digit BIN ranges (inclusive), from Elo's published BIN table as used by
// Brazilian acquirers (Cielo/Rede).
export const ELO_RANGES: ReadonlyArray<readonly [number, number]> = [
  [401178, 401179],
  [431274, 431274],
  [438935, 438935],
  [451416, 451416],
  [457393, 457393],
  [457631, 457632],
  [504175, 504175],
  [506699, 506778],
  [509000, 509999],
  [627780, 627780],
  [636297, 636297],
  [636368, 636368],
  [650031, 650033],
  [650035, 650051],
  [650405, 650439],
  [650485, 650538],
  [650541, 650598],
  [650700, 650718],
  [650720, 650727],
  [650901, 650978],
  [651652, 651679],
  [655000, 655019],
  [655021, 655058]
]

/**
 * Brand by prefix; null when unknown or not digits. Never throws. Elo needs all 6 BIN digits, so shorter prefixes
 * fall through to Visa/Mastercard.
 */
export const detectBrand = (pan: string): CardBrand | null => {
  if (!isDigits(pan)) return null
  if (pan.length >= 6) {
    const bin = Number(pan.slice(0, 6))
    if (ELO_RANGES.some(([lo, hi]) => bin >= lo && bin <= hi)) return "Elo"
  }
  if (pan.startsWith("4")) return "Visa"
  const p2 = Number(pan.slice(0, 2))
  const p4 = Number(pan.slice(0, 4))
  if (pan.length >= 2 && p2 >= 51 && p2 <= 55) return "Mastercard"
  // Mastercard 2-series (2221–2720), in use since 2017.
  if (pan.length >= 4 && p4 >= 2221 && p4 <= 2720) return "Mastercard"
  return null
}

/** The gateway's spec only accepts 16-digit PANs (no 13/19-digit cards). */
export const isValidPanFormat = (pan: string): boolean => /^\d{16}$/.test(pan)

/**
 * A card is good through the last day of its expiry month in São Paulo (docs/calendar.md: days are São
 * Paulo calendar dates), so it is expired from 00:00 São Paulo on the first day of the following month.
 * `year2` is the two-digit year on the card (20YY). An impossible month/year or an invalid `now` is
 * treated as expired (fail closed).
 */
export const cardExpired = (month: number, year2: number, now: Date): boolean => {
  if (!Number.isInteger(month) || month < 1 || month > 12) return true
  if (!Number.isInteger(year2) || year2 < 0 || year2 > 99 || Number.isNaN(now.getTime())) return true
  // São Paulo's YYYY-MM past the card's: the month compares as text (four-digit years).
  return saoPauloDate(now).slice(0, 7) > `${2000 + year2}-${String(month).padStart(2, "0")}`
}

/** "MM" and "YY" as printed on the card → numbers; null unless 2 digits each and month 01–12. */
export const parseExpiry = (mm: string, yy: string): { month: number; year2: number } | null => {
  if (!/^\d{2}$/.test(mm) || !/^\d{2}$/.test(yy)) return null
  const month = Number(mm)
  if (month < 1 || month > 12) return null
  return { month, year2: Number(yy) }
}

/** Last four digits: within what PCI DSS (req. 3.4.1) allows to be displayed unmasked. */
export const last4 = (pan: string): string => pan.slice(-4)
