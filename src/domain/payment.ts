import type { ChargeTerms } from "./chargeTerms.ts"
import type { OrderId, SubaccountId } from "./ids.ts"
import { Either } from "effect"
import { cardExpired, type CardBrand, detectBrand, isValidPanFormat, luhnValid, parseExpiry } from "./card.ts"
import type { FieldError } from "./errors.ts"
import type { Origin } from "./transaction.ts"

export const MAX_INSTALLMENTS = 12

export const CARD_BRANDS: ReadonlyArray<CardBrand> = ["Visa", "Mastercard", "Elo"]

/** A postal address in the core's words; each interface maps its own field names onto it. */
export interface Address {
  readonly zipCode: string
  readonly street: string
  readonly number: string
  readonly neighborhood: string
  readonly city: string
  readonly state: string
}

export interface RawCard {
  readonly pan: string
  readonly expMonth: number
  readonly expYear: number
  readonly holderName: string
  readonly cvv: string
  readonly brand: CardBrand
}

/** The card to charge: a vaulted token (checked against the payer) or a raw card that passed checkRawCard. */
export type CardSource =
  | { readonly _tag: "Token"; readonly token: string }
  | { readonly _tag: "Raw"; readonly card: RawCard }
  /** No card yet: the buyer types it on the hosted form (docs/checkout.md "Hosted card form", PCI SAQ-A). */
  /** `maxInstallments`: the buyer chooses 1..max on the form (docs/checkout.md); absent, the plan is fixed. */
  | { readonly _tag: "Hosted"; readonly maxInstallments?: number | undefined }

/** What the gateway knows of the buyer from the charge itself. */
export interface Payer {
  readonly document: string | undefined
  readonly phone: string | undefined
  readonly address: Address | undefined
  readonly birthdate: string | undefined
}

/** The buyer as a charge without an order names them (the v1 `customer`). */
export interface Buyer {
  readonly name: string
  readonly email: string
  /** Digits (and, for an alphanumeric CNPJ, upper-case letters) without punctuation. */
  readonly document: string
  readonly documentType: "cpf" | "cnpj"
  readonly phone: string | null
  readonly ip: string | null
  readonly zipCode: string | null
  readonly streetName: string | null
  readonly number: string | null
  readonly complement: string | null
  readonly neighborhood: string | null
  readonly city: string | null
  readonly state: string | null
  readonly country: string | null
}

export interface Product {
  readonly name: string
  readonly quantity: number
  readonly unitPrice: number
  readonly sku: string | null
  readonly link: string | null
}

/** A split rule as sent (CONTRACT-v1 §8): exactly one of a fixed amount or a percentage of amount_total. */
export interface SplitRule {
  readonly subaccountId: SubaccountId
  readonly amount: number | null
  readonly percentage: number | null
}

interface Common {
  /** The interface that asked: the transaction's events speak its words. */
  readonly origin: Origin
  /** The order charged (v2), or null for a charge that names its buyer instead (v1). */
  readonly orderId: OrderId | null
  readonly buyer: Buyer | null
  readonly amount: number
  readonly payer: Payer
  readonly products: ReadonlyArray<Product>
  readonly metadata: Readonly<Record<string, unknown>> | null
  readonly comment: string | null
  /** Recipients of part of the sale (v1); empty for v2. */
  readonly split: ReadonlyArray<SplitRule>
  /** The payment deadline asked for (PIX QR, boleto due date); null: the configured default. */
  readonly expiresAt: Date | null
}

/**
 * A charge whose fields have passed every rule that does not need the database or a provider, in
 * the core's words: each HTTP adapter decodes its wire body into one of these, once.
 */
export type PaymentCommand =
  | (Common & { readonly method: "PIX"; readonly payer: Payer & { readonly document: string } })
  | (Common & {
      readonly method: "BOLETO"
      readonly payer: Payer & { readonly document: string }
      /** Fine, interest, discounts and abatement (docs/boleto.md); absent: none. */
      readonly terms?: ChargeTerms | null
      /** The terms' field in the caller's words (`boleto` in v2, `billet` in v1), to name a broken one. */
      readonly termsField?: string
      /** Bolepix: also a due-date PIX charge (cobv) with the same amount, due date and terms (docs/boleto.md). */
      readonly pix?: boolean
    })
  | (Common & { readonly method: "CARD"; readonly installments: number; readonly card: CardSource })

/** Twelve or more digits, however spaced or dotted: the shortest card number's length. */
const CARD_NUMBER_LIKE = /\d(?:[\s.\-/]*\d){11,}/

/**
 * The card rules a raw card must pass (Luhn, 16 digits, brand from its BIN, expiry in the future,
 * CVV, a holder name that is not a card number); `prefix` maps our names to the caller's (`card…` on
 * process, plain on tokenization).
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
  else if (holder !== undefined && CARD_NUMBER_LIKE.test(holder))
    // A card number typed (or autofilled) into the name: kept, it would be a PAN in clear in the transaction's
    // record, shown to the merchant (docs/checkout.md). Refused, and the message does not repeat it.
    errors.push({
      field: fields.holderName[0],
      message: `${fields.holderName[0]} must be the name printed on the card, not a number`
    })
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
      // The field that is wrong is named (the year's, when only the year is): each is two digits, month 01-12.
      const monthWrong = !/^(0[1-9]|1[0-2])$/.test(month)
      const yearWrong = !/^\d{2}$/.test(year)
      for (const [wrong, field] of [
        [monthWrong || !yearWrong, fields.expMonth[0]],
        [yearWrong, fields.expYear[0]]
      ] as const) {
        if (wrong) {
          errors.push({
            field,
            message: `${field} must be two digits (${fields.expMonth[0]} 01-12, ${fields.expYear[0]} YY)`
          })
        }
      }
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
