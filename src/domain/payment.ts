import { Either } from "effect"
import { cardExpired, type CardBrand, detectBrand, isValidPanFormat, luhnValid, parseExpiry } from "./card.ts"
import { isValidBirthdate, isValidBrazilianMobile, isValidCep, isValidUf } from "./address.ts"
import { isValidBuyerDocument } from "./document.ts"
import { ValidationFailed, type FieldError } from "./errors.ts"
import { MAX_AMOUNT } from "./order.ts"
import { isUuid } from "./uuid.ts"
import type { PaymentMethod } from "./transaction.ts"

export const MAX_INSTALLMENTS = 12

export const CARD_BRANDS: ReadonlyArray<CardBrand> = ["Visa", "Mastercard", "Elo"]

export interface Address {
  readonly postal_code: string
  readonly street: string
  readonly number: string
  readonly neighborhood: string
  readonly city: string
  readonly state: string
}

/** The body of POST /api/payment-gateway/process once its fields have their wire types. */
export interface ProcessRequest {
  readonly orderId: string
  readonly method: PaymentMethod
  readonly amount: number
  readonly buyerDoc?: string | undefined
  readonly buyerCellNumber: string
  readonly buyerAddress: Address
  readonly installments?: number | undefined
  readonly cardHolderName?: string | undefined
  readonly cardNumber?: string | undefined
  readonly cardExpirationMonth?: string | undefined
  readonly cardExpirationYear?: string | undefined
  readonly cardSecurityCode?: string | undefined
  readonly cardBrand?: string | undefined
  readonly cardToken?: string | undefined
  readonly buyerBirthdate?: string | undefined
}

export interface RawCard {
  readonly pan: string
  readonly expMonth: number
  readonly expYear: number
  readonly holderName: string
  readonly cvv: string
  readonly brand: CardBrand
}

interface Common {
  readonly orderId: string
  readonly amount: number
  readonly buyerDoc: string | undefined
  readonly buyerCellNumber: string
  readonly buyerAddress: Address
}

/** A charge whose fields have passed every rule that does not need the database or a provider. */
export type PaymentCommand =
  | (Common & { readonly method: "PIX"; readonly buyerDoc: string })
  | (Common & { readonly method: "BOLETO"; readonly buyerDoc: string })
  | (Common & {
      readonly method: "CARD"
      readonly installments: number
      readonly buyerBirthdate: string | undefined
      readonly card:
        { readonly _tag: "Token"; readonly token: string } | { readonly _tag: "Raw"; readonly card: RawCard }
    })

/**
 * The card rules a raw card must pass (Luhn, 16 digits, brand from its BIN, expiry in the future,
 * CVV); `prefix` maps our names to the caller's (`card…` on process, plain on tokenization).
 */
export const checkRawCard = (
  fields: {
    readonly holderName: readonly [string, string | undefined]
    readonly number: readonly [string, string | undefined]
    readonly expMonth: readonly [string, string | undefined]
    readonly expYear: readonly [string, string | undefined]
    readonly cvv: readonly [string, string | undefined]
    readonly brand: readonly [string, string | undefined]
  },
  now: Date
): Either.Either<RawCard, ReadonlyArray<FieldError>> => {
  const errors: Array<FieldError> = []
  const required = <T>([field, value]: readonly [string, T | undefined]) => {
    if (value === undefined) errors.push({ field, message: `${field} is required` })
    return value
  }
  const holder = required(fields.holderName)
  const number = required(fields.number)
  const month = required(fields.expMonth)
  const year = required(fields.expYear)
  const cvv = required(fields.cvv)
  const brandText = required(fields.brand)
  const brand = brandText === undefined ? undefined : CARD_BRANDS.find((b) => b === brandText)
  if (brandText !== undefined && brand === undefined) {
    errors.push({ field: fields.brand[0], message: `${fields.brand[0]} must be one of ${CARD_BRANDS.join(", ")}` })
  }
  if (holder !== undefined && holder.trim().length === 0)
    errors.push({ field: fields.holderName[0], message: `${fields.holderName[0]} must not be empty` })
  if (number !== undefined) {
    if (!isValidPanFormat(number))
      errors.push({ field: fields.number[0], message: `${fields.number[0]} must have exactly 16 digits` })
    else if (!luhnValid(number))
      errors.push({
        field: fields.number[0],
        message: `${fields.number[0]} is not a valid card number (Luhn check failed)`
      })
    else if (detectBrand(number) === null)
      errors.push({ field: fields.number[0], message: `${fields.number[0]} is not a Visa, Mastercard or Elo card` })
    else if (brand !== undefined && detectBrand(number) !== brand) {
      errors.push({
        field: fields.brand[0],
        message: `${fields.brand[0]} ${brand} does not match the card number (${detectBrand(number)})`
      })
    }
  }
  const expiry = month !== undefined && year !== undefined ? parseExpiry(month, year) : undefined
  if (month !== undefined && year !== undefined) {
    if (expiry === null || expiry === undefined) {
      errors.push({
        field: fields.expMonth[0],
        message: `${fields.expMonth[0]} and ${fields.expYear[0]} must be two digits each, month 01-12`
      })
    } else if (cardExpired(expiry.month, expiry.year2, now)) {
      errors.push({
        field: fields.expYear[0],
        message: `the card expired (${month}/${year}); ${fields.expYear[0]} must be in the future`
      })
    }
  }
  if (cvv !== undefined && !/^\d{3,4}$/.test(cvv))
    errors.push({ field: fields.cvv[0], message: `${fields.cvv[0]} must have 3 or 4 digits` })
  if (
    errors.length > 0 ||
    !expiry ||
    number === undefined ||
    holder === undefined ||
    cvv === undefined ||
    brand === undefined
  ) {
    return Either.left(errors)
  }
  return Either.right({
    pan: number,
    expMonth: expiry.month,
    expYear: 2000 + expiry.year2,
    holderName: holder,
    cvv,
    brand
  })
}

/** The field rules every method shares (CONTRACT §7): documents, phone, address, amount, birthdate. */
const commonErrors = (request: ProcessRequest, now: Date): Array<FieldError> => {
  const errors: Array<FieldError> = []
  const check = (ok: boolean, field: string, message: string) => {
    if (!ok) errors.push({ field, message: `${field} ${message}` })
  }
  check(isUuid(request.orderId), "orderId", "must be a UUID")
  check(
    Number.isInteger(request.amount) && request.amount > 0 && request.amount <= MAX_AMOUNT,
    "amount",
    `must be an integer number of centavos from 1 to ${MAX_AMOUNT}`
  )
  if (request.buyerDoc !== undefined) {
    check(
      isValidBuyerDocument(request.buyerDoc),
      "buyerDoc",
      "must be a valid CPF (11 digits) or CNPJ (14 digits), digits only"
    )
  }
  check(
    isValidBrazilianMobile(request.buyerCellNumber),
    "buyerCellNumber",
    "must be a Brazilian mobile number, e.g. (11) 91234-5678"
  )
  const address = request.buyerAddress
  check(isValidCep(address.postal_code), "buyerAddress.postal_code", "must be a CEP of 8 digits")
  for (const key of ["street", "number", "neighborhood", "city"] as const) {
    check(
      address[key].trim().length > 0 && address[key].length <= 255,
      `buyerAddress.${key}`,
      "must have 1 to 255 characters"
    )
  }
  check(isValidUf(address.state), "buyerAddress.state", "must be a Brazilian state code (UF), e.g. SP")
  if (request.buyerBirthdate !== undefined) {
    check(
      isValidBirthdate(request.buyerBirthdate, now),
      "buyerBirthdate",
      "must be a real past date YYYY-MM-DD (1900 or later)"
    )
  }
  return errors
}

/**
 * Every rule of interface-v2 and CONTRACT §7 for a charge, shared and method-specific, reporting
 * every broken field at once.
 */
export const validateProcess = (
  request: ProcessRequest,
  now: Date
): Either.Either<PaymentCommand, ValidationFailed> => {
  const errors: Array<FieldError> = commonErrors(request, now)
  const common = {
    orderId: request.orderId,
    amount: request.amount,
    buyerDoc: request.buyerDoc,
    buyerCellNumber: request.buyerCellNumber,
    buyerAddress: request.buyerAddress
  }
  if (request.method === "PIX" || request.method === "BOLETO") {
    if (request.buyerDoc === undefined) errors.unshift({ field: "buyerDoc", message: "buyerDoc is required" })
    if (errors.length > 0 || request.buyerDoc === undefined) return Either.left(new ValidationFailed({ errors }))
    return Either.right({ ...common, method: request.method, buyerDoc: request.buyerDoc })
  }
  const installments = request.installments ?? 1
  if (!Number.isInteger(installments) || installments < 1 || installments > MAX_INSTALLMENTS) {
    errors.push({ field: "installments", message: `installments must be an integer from 1 to ${MAX_INSTALLMENTS}` })
  }
  let card: Extract<PaymentCommand, { method: "CARD" }>["card"] | undefined
  if (request.cardToken !== undefined) {
    // A token stands for the card: the raw card fields are ignored, whatever they hold.
    card = { _tag: "Token", token: request.cardToken }
  } else {
    if (request.buyerBirthdate === undefined)
      errors.push({ field: "buyerBirthdate", message: "buyerBirthdate is required for CARD unless cardToken is given" })
    const raw = checkRawCard(
      {
        holderName: ["cardHolderName", request.cardHolderName],
        number: ["cardNumber", request.cardNumber],
        expMonth: ["cardExpirationMonth", request.cardExpirationMonth],
        expYear: ["cardExpirationYear", request.cardExpirationYear],
        cvv: ["cardSecurityCode", request.cardSecurityCode],
        brand: ["cardBrand", request.cardBrand]
      },
      now
    )
    if (Either.isLeft(raw)) errors.push(...raw.left)
    else card = { _tag: "Raw", card: raw.right }
  }
  if (errors.length > 0 || card === undefined) return Either.left(new ValidationFailed({ errors }))
  return Either.right({ ...common, method: "CARD", installments, buyerBirthdate: request.buyerBirthdate, card })
}
