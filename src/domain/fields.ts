import { Schema } from "effect"
import { isValidBirthdate, isValidBrazilianMobile, isValidBrazilianPhone, isValidCep, isValidUf } from "./address.ts"
import { isValidBuyerDocument, isValidCpf, normalizeDocument } from "./document.ts"
import { MAX_AMOUNT } from "./order.ts"
import { isUuid } from "./uuid.ts"

/**
 * Input fields shared by both interfaces, each a schema whose failure message names the rule broken.
 * The HTTP layer reports the field path; these say what is wrong with it.
 */
const text = (max: number) =>
  Schema.String.pipe(
    Schema.filter((s) => s.trim().length > 0, { message: () => "must not be empty" }),
    Schema.filter((s) => s.length <= max, { message: () => `must have at most ${max} characters` })
  )

export const Name = text(255)

// Deliberately loose (RFC 5322 is not regular): something@something.tld, no spaces.
export const Email = Schema.String.pipe(
  Schema.filter((s) => s.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s), {
    message: () => "must be a valid email address"
  })
)

/** A merchant's password: signup's rule, and the operator CLI's `accounts create`. */
export const Password = Schema.String.pipe(
  Schema.minLength(10, { message: () => "must have at least 10 characters" }),
  Schema.maxLength(1024)
)

export const Cpf = Schema.String.pipe(
  Schema.filter((s) => /^\d{11}$/.test(s), { message: () => "must be a CPF of exactly 11 digits" }),
  Schema.filter(isValidCpf, { message: () => "must be a valid CPF (check digits do not match)" })
)

export const BuyerDocument = Schema.String.pipe(
  Schema.filter((s) => /^(\d{11}|\d{14})$/.test(s), {
    message: () => "must be a CPF (11 digits) or CNPJ (14 digits), digits only"
  }),
  Schema.filter(isValidBuyerDocument, { message: () => "must be a valid CPF or CNPJ (check digits do not match)" })
)

/**
 * A merchant's CPF or CNPJ as people write it (`12.345.678/0001-95`, the alphanumeric CNPJ too), decoded
 * to its stored form without punctuation, in upper case.
 */
export const MerchantDocument = Schema.transform(
  Schema.String.pipe(
    Schema.maxLength(32),
    Schema.filter((s) => isValidBuyerDocument(normalizeDocument(s)), {
      message: () => "must be a valid CPF or CNPJ (check digits do not match)"
    })
  ),
  Schema.String,
  { strict: true, decode: normalizeDocument, encode: (s) => s }
)

export const Phone = Schema.String.pipe(
  Schema.filter(isValidBrazilianPhone, { message: () => "must be a Brazilian phone number, e.g. (11) 91234-5678" })
)

export const MobilePhone = Schema.String.pipe(
  Schema.filter(isValidBrazilianMobile, { message: () => "must be a Brazilian mobile number, e.g. (11) 91234-5678" })
)

export const Cep = Schema.String.pipe(Schema.filter(isValidCep, { message: () => "must be a CEP of 8 digits" }))

export const Uf = Schema.String.pipe(
  Schema.filter(isValidUf, { message: () => "must be a Brazilian state code (UF), e.g. SP" })
)

export const Amount = Schema.Number.pipe(
  Schema.filter((n) => Number.isInteger(n), { message: () => "must be an integer number of centavos" }),
  Schema.filter((n) => n > 0, { message: () => "must be greater than 0" }),
  Schema.filter((n) => n <= MAX_AMOUNT, { message: () => `must be at most ${MAX_AMOUNT} centavos` })
)

export const Uuid = Schema.String.pipe(Schema.filter(isUuid, { message: () => "must be a UUID" }))

export const Birthdate = Schema.String.pipe(
  Schema.filter((s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && isValidBirthdate(s, new Date()), {
    message: () => "must be a real past date YYYY-MM-DD (1900 or later)"
  })
)
