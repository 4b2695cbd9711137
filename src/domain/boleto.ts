// FEBRABAN "boleto de cobrança" (bank slip; Layout Padrão FEBRABAN, BCB Carta
// Circular 2.926/2000). Not "arrecadação" (utility and
// tax slips, 48-digit lines, barcode starting with 8), which uses other rules.
//
// Barcode, 44 digits:  bank(3) currency(1) DV(1) dueFactor(4) amount(10) freeField(25)
// Digitable line, 47:  field1 = bank+currency+free[0..5)+DV10, field2 = free[5..15)+DV10,
//                      field3 = free[15..25)+DV10, field4 = barcode DV, field5 = factor+amount

const MS_PER_DAY = 86_400_000
const BASE = Date.UTC(1997, 9, 7) // 1997-10-07: factor 0 ("no due date")

const isDigits = (s: string, n: number): boolean => s.length === n && /^\d+$/.test(s)

const parseIsoDate = (date: string): number | null => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date)
  if (m === null) return null
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  return new Date(t).toISOString().slice(0, 10) === date ? t : null
}

/**
 * Due-date factor: days since 1997-10-07. It reached 9999 on 2025-02-21 and,
 * per FEBRABAN's 2025 rollover rule, restarts at 1000 on 2025-02-22, so every
 * 9000 days the 1000–9999 range repeats. Throws RangeError on a bad date or one
 * on/before the base date.
 */
export const dueDateFactor = (date: string): number => {
  const t = parseIsoDate(date)
  if (t === null) throw new RangeError(`bad date ${date}`)
  const days = Math.round((t - BASE) / MS_PER_DAY)
  if (days < 1) throw new RangeError("due date must be after 1997-10-07")
  return days <= 9999 ? days : ((days - 1000) % 9000) + 1000
}

/**
 * The date (YYYY-MM-DD) a factor stands for, choosing among its 9000-day
 * cycles the one nearest to `reference`. Factor 0 (no due date) and anything
 * outside 1–9999 give null. Factors below 1000 only existed in the first cycle.
 */
export const dateFromFactor = (factor: number, reference: Date): string | null => {
  if (!Number.isInteger(factor) || factor < 1 || factor > 9999 || Number.isNaN(reference.getTime())) return null
  const refDays = (reference.getTime() - BASE) / MS_PER_DAY
  const cycle = factor < 1000 ? 0 : Math.max(0, Math.round((refDays - factor) / 9000))
  return new Date(BASE + (factor + cycle * 9000) * MS_PER_DAY).toISOString().slice(0, 10)
}

/** Mod-10 DV of the digitable-line fields: weights 2,1,2,… from the right, digits of products summed. */
export const mod10 = (digits: string): number => {
  let sum = 0
  for (let i = digits.length - 1, w = 2; i >= 0; i--, w = 3 - w) {
    const p = Number(digits[i]) * w
    sum += p > 9 ? p - 9 : p
  }
  return (10 - (sum % 10)) % 10
}

/** Mod-11 barcode DV: weights 2..9 cycling from the right; 11 − sum%11, with 0, 10, 11 → 1 (the DV is never 0). */
export const mod11Barcode = (digits: string): number => {
  let sum = 0
  for (let i = digits.length - 1, w = 2; i >= 0; i--, w = w === 9 ? 2 : w + 1) sum += Number(digits[i]) * w
  const dv = 11 - (sum % 11)
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv
}

/** The barcode's DV is computed over the other 43 digits (position 5 removed). */
const barcodeDv = (b: string): number => mod11Barcode(b.slice(0, 4) + b.slice(5))

export type BarcodeInput = {
  bankCode: string
  currency?: "9"
  dueDate: string
  amountCents: number
  freeField: string
}

/** Builds the 44-digit barcode. Throws RangeError on bad input. */
export const buildBarcode = (input: BarcodeInput): string => {
  const { bankCode, currency = "9", dueDate, amountCents, freeField } = input
  // A leading 8 is reserved for "arrecadação" barcodes.
  if (!isDigits(bankCode, 3) || bankCode.startsWith("8")) throw new RangeError("bankCode must be 3 digits, not 8xx")
  if (!isDigits(freeField, 25)) throw new RangeError("freeField must be 25 digits")
  if (!Number.isSafeInteger(amountCents) || amountCents < 0 || amountCents > 9_999_999_999)
    throw new RangeError("amountCents must be an integer 0..9999999999")
  const rest = String(dueDateFactor(dueDate)).padStart(4, "0") + String(amountCents).padStart(10, "0") + freeField
  const head = bankCode + currency
  return head + mod11Barcode(head + rest) + rest
}

export const isValidBarcode = (barcode: string): boolean =>
  isDigits(barcode, 44) && !barcode.startsWith("8") && Number(barcode[4]) === barcodeDv(barcode)

const withDv = (s: string): string => s + mod10(s)

/** 44-digit barcode → 47-digit line. Copies the barcode DV as is; throws RangeError unless 44 digits. */
export const digitableLineFromBarcode = (barcode: string): string => {
  if (!isDigits(barcode, 44)) throw new RangeError("barcode must be 44 digits")
  const free = barcode.slice(19)
  return (
    withDv(barcode.slice(0, 4) + free.slice(0, 5)) +
    withDv(free.slice(5, 15)) +
    withDv(free.slice(15, 25)) +
    barcode[4] +
    barcode.slice(5, 19)
  )
}

/** 47-digit line (dots/spaces allowed) → barcode; null unless every DV (3 × mod 10 and the mod 11) checks. */
export const barcodeFromDigitableLine = (line: string): string | null => {
  const d = line.replace(/[.\s]/g, "")
  if (!isDigits(d, 47)) return null
  const f1 = d.slice(0, 10)
  const f2 = d.slice(10, 21)
  const f3 = d.slice(21, 32)
  for (const f of [f1, f2, f3]) if (mod10(f.slice(0, -1)) !== Number(f.slice(-1))) return null
  const barcode = f1.slice(0, 4) + d[32] + d.slice(33) + f1.slice(4, 9) + f2.slice(0, 10) + f3.slice(0, 10)
  return isValidBarcode(barcode) ? barcode : null
}

export const isValidDigitableLine = (line: string): boolean => barcodeFromDigitableLine(line) !== null

/** "AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE". Throws RangeError unless 47 digits. */
export const formatDigitableLine = (line: string): string => {
  if (!isDigits(line, 47)) throw new RangeError("digitable line must be 47 digits")
  const s = (a: number, b: number) => line.slice(a, b)
  return `${s(0, 5)}.${s(5, 10)} ${s(10, 15)}.${s(15, 21)} ${s(21, 26)}.${s(26, 32)} ${s(32, 33)} ${s(33, 47)}`
}
