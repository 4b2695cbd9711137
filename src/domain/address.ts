// Brazilian address, phone and birthdate checks.

import { saoPauloDate } from "./time.ts"

/** CEP (Correios postal code): exactly 8 digits, no hyphen. */
export const isValidCep = (s: string): boolean => /^\d{8}$/.test(s)

/** The 27 federative units (IBGE): 26 states plus the Distrito Federal. */
export const UFS = [
  "AC",
  "AL",
  "AP",
  "AM",
  "BA",
  "CE",
  "DF",
  "ES",
  "GO",
  "MA",
  "MT",
  "MS",
  "MG",
  "PA",
  "PB",
  "PR",
  "PE",
  "PI",
  "RJ",
  "RN",
  "RS",
  "RO",
  "RR",
  "SC",
  "SP",
  "SE",
  "TO"
] as const
export type Uf = (typeof UFS)[number]

export const isValidUf = (s: string): s is Uf => (UFS as ReadonlyArray<string>).includes(s)

// DDDs (area codes) in use, per ANATEL's national numbering plan (67 codes).
const DDDS = new Set([
  11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 24, 27, 28, 31, 32, 33, 34, 35, 37, 38, 41, 42, 43, 44, 45, 46, 47, 48,
  49, 51, 53, 54, 55, 61, 62, 63, 64, 65, 66, 67, 68, 69, 71, 73, 74, 75, 77, 79, 81, 82, 83, 84, 85, 86, 87, 88, 89,
  91, 92, 93, 94, 95, 96, 97, 98, 99
])

/**
 * DDD + subscriber number (10 or 11 digits) with spaces, parentheses, dashes
 * and an optional +55 / 55 country code removed; null when the shape is wrong.
 * A bare "55" is only taken as the country code when 12–13 digits remain, so a
 * number in DDD 55 (RS) is not mistaken for one.
 */
export const normalisePhoneDigits = (s: string): string | null => {
  let d = s.replace(/[\s()-]/g, "")
  if (d.startsWith("+")) {
    if (!d.startsWith("+55")) return null
    d = d.slice(3)
  } else if (/^55\d{10,11}$/.test(d)) d = d.slice(2)
  if (!/^\d{10,11}$/.test(d) || !DDDS.has(Number(d.slice(0, 2)))) return null
  // Mobile numbers have 9 digits starting with 9 (ANATEL, "nono dígito", complete
  // since 2016); landlines have 8 digits starting with 2–5 (ANATEL numbering plan).
  return d.length === 11 ? (d[2] === "9" ? d : null) : /^[2-5]$/.test(d[2] ?? "") ? d : null
}

export const isValidBrazilianPhone = (s: string): boolean => normalisePhoneDigits(s) !== null

export const isValidBrazilianMobile = (s: string): boolean => normalisePhoneDigits(s)?.length === 11

/** YYYY-MM-DD, a real calendar date, from 1900-01-01 up to today (São Paulo's date of `now`, docs/calendar.md). */
export const isValidBirthdate = (s: string, now: Date): boolean => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (m === null || Number.isNaN(now.getTime())) return false
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  // Round-tripping rejects 2023-02-29, 2024-13-01, etc. (Date.UTC would roll them over).
  if (new Date(t).toISOString().slice(0, 10) !== s) return false
  return s >= "1900-01-01" && s <= saoPauloDate(now)
}
