import { Either, Schema } from "effect"
import { Conflict, type FieldError, unknownFields } from "./errors.ts"
import { AccountId, SubaccountId } from "./ids.ts"

/**
 * A recipient of split payments (CONTRACT-v1 §8): a person or company of the merchant's, paid out to
 * its own bank account. Withdrawals reuse the bank account and its validator.
 */

export const BANK_ACCOUNT_TYPES = ["checking", "savings"] as const
export type BankAccountType = (typeof BANK_ACCOUNT_TYPES)[number]

/** A Brazilian bank account in the domain's words; stored as is (jsonb) and decoded by this schema. */
export const BankAccount = Schema.Struct({
  /** COMPE code of the bank, 3 digits (e.g. "001", "341"). */
  bankCode: Schema.String,
  /** Branch number, 1–5 digits. */
  agency: Schema.String,
  /** Branch check digit, when the bank has one (Banco do Brasil's may be "X"). */
  agencyDigit: Schema.NullOr(Schema.String),
  /** Account number, 1–12 digits. */
  account: Schema.String,
  accountDigit: Schema.String,
  type: Schema.Literal(...BANK_ACCOUNT_TYPES)
})
export type BankAccount = typeof BankAccount.Type

export const SUBACCOUNT_STATUSES = ["active"] as const
export type SubaccountStatus = (typeof SUBACCOUNT_STATUSES)[number]

export const SubaccountRecord = Schema.Struct({
  id: SubaccountId,
  accountId: AccountId,
  name: Schema.String,
  /** Without punctuation, upper case (normalizeDocument). */
  document: Schema.String,
  documentType: Schema.Literal("cpf", "cnpj"),
  email: Schema.String,
  /** 10 or 11 digits: area code and number, without +55. */
  phone: Schema.String,
  bankAccount: BankAccount,
  status: Schema.Literal(...SUBACCOUNT_STATUSES),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type SubaccountRecord = typeof SubaccountRecord.Type

/** The account already has a subaccount with this document (CONTRACT-v1 §8: 409 `subaccount_exists`). */
export const subaccountExists = () =>
  new Conflict({ code: "subaccount_exists", message: "a subaccount with this document already exists" })

/** The wire names of a bank account's fields; any other key is a 400 naming it. */
const BANK_ACCOUNT_FIELDS = ["bank_code", "agency", "agency_digit", "account", "account_digit", "type"]

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The rules of CONTRACT-v1 §8 for a bank account as sent on the wire (`bank_code`, `agency`,
 * `agency_digit`, `account`, `account_digit`, `type`), every broken field named at once under `path`
 * (`bank_account.agency`). Numbers are refused rather than converted: a number would lose the leading
 * zeros of a bank code or an agency. Check-digit letters are stored in upper case.
 */
export const validateBankAccount = (
  input: unknown,
  path: string
): Either.Either<BankAccount, ReadonlyArray<FieldError>> => {
  if (!isRecord(input)) {
    return Either.left([
      {
        field: path,
        message: input === undefined || input === null ? `${path} is required` : `${path} must be an object`
      }
    ])
  }
  const errors: Array<FieldError> = unknownFields(input, BANK_ACCOUNT_FIELDS, path)
  const text = (key: string, pattern: RegExp, rule: string, optional = false): string | null => {
    const field = `${path}.${key}`
    const value = input[key]
    if (optional && (value === undefined || value === null || value === "")) return null
    if (value === undefined || value === null) errors.push({ field, message: `${field} is required` })
    else if (typeof value !== "string") errors.push({ field, message: `${field} must be a string of ${rule}` })
    else if (!pattern.test(value)) errors.push({ field, message: `${field} must be ${rule}` })
    else return value
    return null
  }
  const bankCode = text("bank_code", /^\d{3}$/, "3 digits")
  const agency = text("agency", /^\d{1,5}$/, "1 to 5 digits")
  const agencyDigit = text("agency_digit", /^[0-9A-Za-z]$/, "one digit or letter", true)
  const account = text("account", /^\d{1,12}$/, "1 to 12 digits")
  const accountDigit = text("account_digit", /^[0-9A-Za-z]$/, "one digit or letter")
  const type = input["type"]
  if (typeof type !== "string" || !(BANK_ACCOUNT_TYPES as ReadonlyArray<string>).includes(type)) {
    errors.push({ field: `${path}.type`, message: `${path}.type must be one of ${BANK_ACCOUNT_TYPES.join(", ")}` })
  }
  if (errors.length > 0 || bankCode === null || agency === null || account === null || accountDigit === null) {
    return Either.left(errors)
  }
  return Either.right({
    bankCode,
    agency,
    agencyDigit: agencyDigit === null ? null : agencyDigit.toUpperCase(),
    account,
    accountDigit: accountDigit.toUpperCase(),
    type: type as BankAccountType
  })
}
