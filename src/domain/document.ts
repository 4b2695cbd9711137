// CPF / CNPJ check digits (Receita Federal). Both use mod 11 with the rule
// "remainder < 2 → 0, otherwise 11 − remainder", as published by the Receita
// Federal. The CNPJ may be alphanumeric (IN RFB 2.229/2024, issued since July
// 2026): its first 12 characters are [0-9A-Z], each valued by its ASCII code
// minus 48 (so digits keep their value and 'A' is 17), its 2 check digits stay
// numeric and are computed with the same weights.

const onlyDigits = /^\d+$/

const allSame = (s: string): boolean => s.split("").every((c) => c === s[0])

/** mod-11 DV over `chars` with the given weights (left-aligned); a character is worth its ASCII code − 48. */
const mod11Dv = (chars: string, weights: ReadonlyArray<number>): number => {
  let sum = 0
  for (let i = 0; i < chars.length; i++) sum += (chars.charCodeAt(i) - 48) * (weights[i] ?? 0)
  const r = sum % 11
  return r < 2 ? 0 : 11 - r
}

// CPF: DV1 weights 10..2 over 9 digits, DV2 weights 11..2 over 10 digits.
const CPF_W1 = [10, 9, 8, 7, 6, 5, 4, 3, 2]
const CPF_W2 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]
// CNPJ: DV1 weights 5..2,9..2 over 12 digits, DV2 weights 6..2,9..2 over 13.
const CNPJ_W1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
const CNPJ_W2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]

/** The two check digits for a 9-digit CPF base. Throws RangeError on bad input. */
export const cpfCheckDigits = (first9: string): string => {
  if (first9.length !== 9 || !onlyDigits.test(first9)) throw new RangeError("CPF base must be 9 digits")
  const d1 = mod11Dv(first9, CPF_W1)
  const d2 = mod11Dv(first9 + d1, CPF_W2)
  return `${d1}${d2}`
}

const cnpjBase = /^[0-9A-Z]{12}$/

/** The two check digits for a 12-character CNPJ base ([0-9A-Z]). Throws RangeError on bad input. */
export const cnpjCheckDigits = (first12: string): string => {
  if (!cnpjBase.test(first12)) throw new RangeError("CNPJ base must be 12 characters 0-9 or A-Z")
  const d1 = mod11Dv(first12, CNPJ_W1)
  const d2 = mod11Dv(first12 + d1, CNPJ_W2)
  return `${d1}${d2}`
}

// All-same-digit numbers (000.000.000-00, 111.111.111-11, …) pass the
// arithmetic but are not issued; the Receita rejects them, and so do we.
export const isValidCpf = (s: string): boolean =>
  s.length === 11 && onlyDigits.test(s) && !allSame(s) && cpfCheckDigits(s.slice(0, 9)) === s.slice(9)

/** A CNPJ without punctuation: 14 digits, or 12 characters [0-9A-Z] and 2 check digits. */
export const isValidCnpj = (s: string): boolean =>
  s.length === 14 &&
  cnpjBase.test(s.slice(0, 12)) &&
  onlyDigits.test(s.slice(12)) &&
  !allSame(s) &&
  cnpjCheckDigits(s.slice(0, 12)) === s.slice(12)

/** A buyer may be a person (CPF, 11 digits) or a company (CNPJ, numeric or alphanumeric). */
export const isValidBuyerDocument = (s: string): boolean => isValidCpf(s) || isValidCnpj(s)

/**
 * A document as people write it (`123.456.789-09`, `12.ABC.345/01DE-35`, lower case too) without
 * its punctuation and in upper case, the form the Receita issues and the gateway stores.
 */
export const normalizeDocument = (s: string): string => s.replace(/[.\-/\s]/g, "").toUpperCase()

/** `cpf` or `cnpj` for a valid normalised document, null otherwise. */
export const documentType = (s: string): "cpf" | "cnpj" | null =>
  isValidCpf(s) ? "cpf" : isValidCnpj(s) ? "cnpj" : null
