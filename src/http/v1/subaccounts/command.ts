import { Either, Schema } from "effect"
import { documentType, normalizeDocument } from "../../../domain/document.ts"
import type { FieldError } from "../../../domain/errors.ts"
import type { SubaccountId } from "../../../domain/ids.ts"
import { validateBankAccount } from "../../../domain/subaccount.ts"
import type { NewSubaccount } from "../../../ports/SubaccountRepo.ts"

const BankAccountDoc = {
  type: "object",
  required: ["bank_code", "agency", "account", "account_digit", "type"],
  properties: {
    bank_code: { type: "string", description: "COMPE bank code, 3 digits, e.g. 001", pattern: "^\\d{3}$" },
    agency: { type: "string", description: "branch, 1 to 5 digits", pattern: "^\\d{1,5}$" },
    agency_digit: { type: "string", description: "branch check digit, 0 or 1 character (digit or letter)" },
    account: { type: "string", description: "account number, 1 to 12 digits", pattern: "^\\d{1,12}$" },
    account_digit: { type: "string", description: "account check digit, 1 character (digit or letter)" },
    type: { type: "string", enum: ["checking", "savings"] }
  },
  additionalProperties: false
} as const

/**
 * A new subaccount as sent. `bank_account` is checked by the domain's validator (shared with
 * withdrawals), so the schema lets any value through and documents its shape.
 */
export const CreateSubaccountWire = Schema.Struct({
  name: Schema.String.annotations({ description: "1 to 255 characters" }),
  document: Schema.String.annotations({
    description: "CPF or CNPJ (numeric or alphanumeric) with valid check digits; punctuation allowed, stored without"
  }),
  email: Schema.String,
  phone: Schema.String.annotations({ description: "10 or 11 digits after removing ()- and +55" }),
  bank_account: Schema.Unknown.annotations({ jsonSchema: BankAccountDoc })
})
export type CreateSubaccountWire = typeof CreateSubaccountWire.Type

/** Every rule of CONTRACT-v1 §8 for a new subaccount, each broken field named by its v1 path. */
export const decodeSubaccount = (
  w: CreateSubaccountWire,
  id: SubaccountId
): Either.Either<NewSubaccount, ReadonlyArray<FieldError>> => {
  const errors: Array<FieldError> = []
  const fail = (field: string, message: string) => errors.push({ field, message: `${field} ${message}` })
  const name = w.name.trim()
  if (name.length === 0 || w.name.length > 255) fail("name", "must have 1 to 255 characters")
  const document = normalizeDocument(w.document)
  const kind = documentType(document)
  if (kind === null) fail("document", "must be a valid CPF or CNPJ (check digits included)")
  if (w.email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(w.email))
    fail("email", "must be a valid email address")
  const phone = w.phone.replace(/^\s*\+55/, "").replace(/[()\s+-]/g, "")
  if (!/^\d{10,11}$/.test(phone)) fail("phone", "must have 10 or 11 digits (area code and number)")
  const bankAccount = validateBankAccount(w.bank_account, "bank_account")
  if (Either.isLeft(bankAccount)) errors.push(...bankAccount.left)
  if (errors.length > 0 || kind === null || Either.isLeft(bankAccount)) return Either.left(errors)
  return Either.right({
    id,
    name,
    document,
    documentType: kind,
    email: w.email,
    phone,
    bankAccount: bankAccount.right
  })
}
