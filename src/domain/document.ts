// CPF / CNPJ check digits (Receita Federal). Both use mod 11 with the rule
// "remainder < 2 → 0, otherwise 11 − remainder", as published by the Receita
// Federal. Only the numeric CNPJ is handled here: the
// alphanumeric CNPJ (IN RFB 2.229/2024, issued from July 2026) is out of scope.

const onlyDigits = /^\d+$/

const allSame = (s: string): boolean => s.split("").every((c) => c === s[0])

/** mod-11 DV over `digits` with the given weights (left-aligned). */
const mod11Dv = (digits: string, weights: ReadonlyArray<number>): number => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) sum += Number(digits[i]) * (weights[i] ?? 0)
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

/** The two check digits for a 12-digit CNPJ base. Throws RangeError on bad input. */
export const cnpjCheckDigits = (first12: string): string => {
  if (first12.length !== 12 || !onlyDigits.test(first12)) throw new RangeError("CNPJ base must be 12 digits")
  const d1 = mod11Dv(first12, CNPJ_W1)
  const d2 = mod11Dv(first12 + d1, CNPJ_W2)
  return `${d1}${d2}`
}

// All-same-digit numbers (000.000.000-00, 111.111.111-11, …) pass the
// arithmetic but are not issued; the Receita rejects them, and so do we.
export const isValidCpf = (s: string): boolean =>
  s.length === 11 && onlyDigits.test(s) && !allSame(s) && cpfCheckDigits(s.slice(0, 9)) === s.slice(9)

export const isValidCnpj = (s: string): boolean =>
  s.length === 14 && onlyDigits.test(s) && !allSame(s) && cnpjCheckDigits(s.slice(0, 12)) === s.slice(12)

/** A buyer may be a person (CPF, 11 digits) or a company (CNPJ, 14 digits). */
export const isValidBuyerDocument = (s: string): boolean => isValidCpf(s) || isValidCnpj(s)
