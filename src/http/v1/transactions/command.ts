import { isIP } from "node:net"
import { Either, Schema } from "effect"
import { instantOf } from "../../shared/instant.ts"
import { isValidUf } from "../../../domain/address.ts"
import { cardExpired, detectBrand, luhnValid } from "../../../domain/card.ts"
import { documentType, normalizeDocument } from "../../../domain/document.ts"
import { type FieldError, unknownFields } from "../../../domain/errors.ts"
import { installmentOption, type InstallmentRules, offered } from "../../../domain/installments.ts"
import { MAX_AMOUNT, MAX_QUANTITY } from "../../../domain/order.ts"
import { subaccountIdOf } from "../../../domain/ids.ts"
import type { Buyer, PaymentCommand, Product, SplitRule } from "../../../domain/payment.ts"
import { isUuid } from "../../../domain/uuid.ts"
import { saoPauloDate } from "../../../domain/time.ts"
import { decodeTerms, WireTerms } from "../../shared/chargeTerms.ts"
import { JsonValue } from "../../shared/payload.ts"

const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/** The v1 buyer as sent; the rules are checked by decodeCreate so that every field is named at once. */
const WireCustomer = Schema.Struct({
  name: Schema.String,
  email: Schema.String,
  document: Schema.String.annotations({ description: "CPF or CNPJ (numeric or alphanumeric); punctuation allowed" }),
  phone: opt(Schema.String.annotations({ description: "10 or 11 digits after removing ()- and +55" })),
  ip: opt(Schema.String.annotations({ description: "IPv4 or IPv6 of the buyer at checkout" })),
  zip_code: opt(Schema.String.annotations({ description: "≤ 12 characters, 8 digits (CEP)" })),
  street_name: opt(Schema.String),
  number: opt(Schema.String),
  complement: opt(Schema.String),
  neighborhood: opt(Schema.String),
  city: opt(Schema.String),
  state: opt(Schema.String.annotations({ description: "UF, e.g. SP" })),
  country: opt(Schema.String.annotations({ description: "ISO 3166-1 alpha-2, e.g. BR" }))
})

const WireProduct = Schema.Struct({
  name: Schema.String,
  quantity: Schema.Number,
  unit_price: Schema.Number.annotations({ description: "centavos" }),
  sku: opt(Schema.String),
  link: opt(Schema.String)
})

const WireCard = Schema.Struct({
  number: Schema.String.annotations({ description: "13 to 19 digits, Luhn-valid; Visa, Mastercard or Elo" }),
  holder_name: Schema.String,
  exp_month: Schema.String.annotations({ description: '"01" to "12"' }),
  exp_year: Schema.String.annotations({ description: '"YY" or "YYYY"' }),
  cvv: Schema.String.annotations({ description: "3 or 4 digits" })
})

export const CreateTransactionWire = Schema.Struct({
  method: Schema.Literal("credit_card", "pix", "billet"),
  amount: Schema.Number.annotations({ description: "centavos, 1 to 9 999 999 999" }),
  installments: opt(Schema.Number.annotations({ description: "credit_card: 1 to INSTALLMENTS_MAX (default 1)" })),
  max_installments: opt(
    Schema.Number.annotations({
      description:
        "credit_card without card or card_token (extension): the buyer chooses 1 to max_installments on the " +
        "hosted form (1 to INSTALLMENTS_MAX); not with installments, which fixes the plan"
    })
  ),
  comment: opt(Schema.String.annotations({ description: "≤ 500 characters" })),
  expires_at: opt(
    Schema.String.annotations({
      description:
        "ISO 8601 with an explicit offset. pix: the QR deadline, 5 minutes to 30 days ahead; billet: its " +
        "São Paulo date is the due date, today to 60 days ahead; ignored for credit_card"
    })
  ),
  customer: WireCustomer,
  products: opt(Schema.Array(WireProduct).annotations({ description: "at most 100 items; informational" })),
  metadata: opt(
    Schema.Record({ key: Schema.String, value: JsonValue }).annotations({
      description: "any JSON object up to 8,192 bytes (UTF-8), echoed in reads and events"
    })
  ),
  split: opt(
    Schema.Array(Schema.Unknown).annotations({
      jsonSchema: {
        type: "array",
        maxItems: 20,
        description:
          "[{subaccount_id, amount | percentage}], exactly one of the two; percentages of " +
          "amount_total, rounded down; the shares may not exceed amount_total minus the fee",
        items: {
          type: "object",
          required: ["subaccount_id"],
          properties: {
            subaccount_id: { type: "string", format: "uuid" },
            amount: { type: "integer", minimum: 1 },
            percentage: { type: "number", exclusiveMinimum: 0, maximum: 100 }
          },
          additionalProperties: false
        }
      }
    })
  ),
  card: opt(WireCard),
  card_token: opt(Schema.String.annotations({ description: "from POST /api/payment-gateway/tokenize-card" })),
  billet: opt(WireTerms("v1"))
})
export type CreateTransactionWire = typeof CreateTransactionWire.Type

const METHODS = { credit_card: "CARD", pix: "PIX", billet: "BOLETO" } as const
const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const regions = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" })
// ISO 3166-1 alpha-2 as CLDR knows it, less the user-assigned codes (QM–QZ, XA–XZ, ZZ).
const isCountry = (code: string) =>
  /^[A-Z]{2}$/.test(code) && !/^(Q[M-Z]|X[A-Z]|ZZ)$/.test(code) && regions.of(code) !== undefined

const isHttpUrl = (s: string) => {
  try {
    const url = new URL(s)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const SPLIT_RULE_FIELDS = ["subaccount_id", "amount", "percentage"]

/** The split rules' shape (CONTRACT-v1 §8); recipients and totals are checked by the core. */
const decodeSplit = (
  raw: ReadonlyArray<unknown> | undefined,
  fail: (field: string, message: string) => void
): ReadonlyArray<SplitRule> => {
  if (raw === undefined) return []
  if (raw.length > 20) fail("split", "must have at most 20 recipients")
  const rules: Array<SplitRule> = []
  const seen = new Set<string>()
  raw.forEach((rule, i) => {
    const at = `split[${i}]`
    if (!isRecord(rule)) return fail(at, "must be an object {subaccount_id, amount | percentage}")
    for (const unknown of unknownFields(rule, SPLIT_RULE_FIELDS, at)) fail(unknown.field, "is not a known field")
    const id = rule["subaccount_id"]
    if (typeof id !== "string" || !isUuid(id)) fail(`${at}.subaccount_id`, "must be a subaccount's id (UUID)")
    else if (seen.has(id.toLowerCase())) fail(`${at}.subaccount_id`, "appears twice")
    else seen.add(id.toLowerCase())
    const amount = rule["amount"] ?? null
    const percentage = rule["percentage"] ?? null
    if ((amount === null) === (percentage === null)) return fail(at, "must have exactly one of amount or percentage")
    if (amount !== null && (typeof amount !== "number" || !Number.isInteger(amount) || amount < 1))
      return fail(`${at}.amount`, "must be a positive integer number of centavos")
    if (
      percentage !== null &&
      (typeof percentage !== "number" ||
        !(percentage > 0 && percentage <= 100) ||
        !/^\d+(\.\d{1,6})?$/.test(String(percentage)))
    )
      return fail(`${at}.percentage`, "must be a number above 0 and at most 100, with at most 6 decimals")
    if (typeof id === "string" && isUuid(id))
      rules.push({
        subaccountId: subaccountIdOf(id),
        amount: amount as number | null,
        percentage: percentage as number | null
      })
  })
  return rules
}

/**
 * Every rule of CONTRACT-v1 §3 for a new transaction, reporting each broken field by its v1 path
 * (`customer.document`, `products[0].unit_price`, `card.number`); the result is the core's command.
 */
export const decodeCreate = (
  w: CreateTransactionWire,
  now: Date,
  rules: InstallmentRules
): Either.Either<PaymentCommand, ReadonlyArray<FieldError>> => {
  const errors: Array<FieldError> = []
  const fail = (field: string, message: string) => errors.push({ field, message: `${field} ${message}` })
  const method = METHODS[w.method]

  if (!Number.isInteger(w.amount) || w.amount < 1 || w.amount > MAX_AMOUNT) {
    fail("amount", `must be an integer number of centavos from 1 to ${MAX_AMOUNT}`)
  }

  const c = w.customer
  const name = c.name.trim()
  if (name.length === 0 || c.name.length > 255) fail("customer.name", "must have 1 to 255 characters")
  if (c.email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(c.email)) {
    fail("customer.email", "must be a valid email address")
  }
  const document = normalizeDocument(c.document)
  const kind = documentType(document)
  if (kind === null) fail("customer.document", "must be a valid CPF or CNPJ (check digits included)")
  const phone = c.phone === undefined ? null : c.phone.replace(/^\s*\+55/, "").replace(/[()\s+-]/g, "")
  if (phone !== null && !/^\d{10,11}$/.test(phone)) {
    fail("customer.phone", "must have 10 or 11 digits (area code and number)")
  }
  if (c.ip !== undefined && isIP(c.ip) === 0) fail("customer.ip", "must be an IPv4 or IPv6 address")
  if (c.zip_code !== undefined && (c.zip_code.length > 12 || !/^\d{8}$/.test(c.zip_code.replace(/[\s.-]/g, "")))) {
    fail("customer.zip_code", "must be a CEP of 8 digits (at most 12 characters)")
  }
  for (const key of ["street_name", "number", "complement", "neighborhood", "city"] as const) {
    const value = c[key]
    if (value !== undefined && value.length > 255) fail(`customer.${key}`, "must have at most 255 characters")
  }
  if (c.state !== undefined && !isValidUf(c.state)) fail("customer.state", "must be a Brazilian state code (UF)")
  if (c.country !== undefined && !isCountry(c.country)) fail("customer.country", "must be an ISO 3166-1 alpha-2 code")

  const products = w.products ?? []
  if (products.length > 100) fail("products", "must have at most 100 items")
  products.forEach((p, i) => {
    const at = `products[${i}]`
    if (p.name.trim().length === 0 || p.name.length > 255) fail(`${at}.name`, "must have 1 to 255 characters")
    const quantityOk = Number.isInteger(p.quantity) && p.quantity >= 1 && p.quantity <= MAX_QUANTITY
    if (!quantityOk) fail(`${at}.quantity`, `must be an integer from 1 to ${MAX_QUANTITY}`)
    if (!Number.isInteger(p.unit_price) || p.unit_price < 0 || p.unit_price > MAX_AMOUNT) {
      fail(`${at}.unit_price`, `must be an integer number of centavos from 0 to ${MAX_AMOUNT}`)
    } else if (quantityOk && p.unit_price * p.quantity > MAX_AMOUNT) {
      fail(`${at}.quantity`, `× unit_price must be at most ${MAX_AMOUNT} centavos (the largest amount)`)
    }
    if (p.sku !== undefined && p.sku.length > 100) fail(`${at}.sku`, "must have at most 100 characters")
    if (p.link !== undefined && !isHttpUrl(p.link)) fail(`${at}.link`, "must be an http(s) URL")
  })
  if (w.metadata !== undefined && Buffer.byteLength(JSON.stringify(w.metadata), "utf8") > 8192) {
    fail("metadata", "must serialise to at most 8,192 bytes")
  }
  if (w.comment !== undefined && w.comment.length > 500) fail("comment", "must have at most 500 characters")

  let expiresAt: Date | null = null
  if (w.expires_at !== undefined && method !== "CARD") {
    const at = instantOf(w.expires_at.trim())
    if (at === undefined) {
      fail("expires_at", "must be an ISO 8601 date-time with an explicit offset, e.g. 2026-11-22T18:00:00-03:00")
    } else if (method === "PIX") {
      if (at.getTime() < now.getTime() + 5 * MINUTE || at.getTime() > now.getTime() + 30 * DAY) {
        fail("expires_at", "must be 5 minutes to 30 days ahead for pix")
      } else expiresAt = at
    } else {
      const due = saoPauloDate(at)
      const today = saoPauloDate(now)
      const last = saoPauloDate(new Date(now.getTime() + 60 * DAY))
      if (due < today || due > last) fail("expires_at", "must fall from today to 60 days ahead (São Paulo) for billet")
      else expiresAt = at
    }
  }

  let installments = 1
  let card: Extract<PaymentCommand, { method: "CARD" }>["card"] | undefined
  if (method === "CARD") {
    installments = w.installments ?? 1
    if (!Number.isInteger(installments) || installments < 1 || installments > rules.max) {
      fail("installments", `must be an integer from 1 to ${rules.max}`)
    } else if (
      Number.isInteger(w.amount) &&
      w.amount >= 1 &&
      !offered(installmentOption(w.amount, installments, rules), rules)
    ) {
      // Only the options GET /installments offers can be charged (each at least INSTALLMENT_MIN_AMOUNT).
      fail("installments", `is not offered for this amount: each installment would be below ${rules.minAmount}`)
    }
    if (w.card !== undefined && w.card_token !== undefined) fail("card", "and card_token cannot both be sent")
    else if (w.max_installments !== undefined && (w.card !== undefined || w.card_token !== undefined)) {
      fail("max_installments", "is only for a charge without card or card_token (the buyer chooses on the hosted form)")
    } else if (w.card_token !== undefined) card = { _tag: "Token", token: w.card_token }
    // Neither: the buyer types the card on the hosted form of checkout_url (docs/checkout.md, PCI SAQ-A),
    // on the merchant's fixed plan or choosing one up to max_installments.
    else if (w.card === undefined) {
      const max = w.max_installments
      if (max === undefined) card = { _tag: "Hosted" }
      else if (!Number.isInteger(max) || max < 1 || max > rules.max) {
        fail("max_installments", `must be an integer from 1 to ${rules.max}`)
      } else if (w.installments !== undefined) {
        fail("max_installments", "and installments cannot both be sent: installments fixes the plan")
      } else card = { _tag: "Hosted", maxInstallments: max }
    } else {
      const k = w.card
      const number = k.number.replace(/[\s-]/g, "")
      const brand = detectBrand(number)
      if (!/^\d{13,19}$/.test(number)) fail("card.number", "must have 13 to 19 digits")
      else if (!luhnValid(number)) fail("card.number", "is not a valid card number (Luhn check failed)")
      else if (brand === null) fail("card.number", "is not a Visa, Mastercard or Elo card")
      if (k.holder_name.trim().length === 0 || k.holder_name.length > 255) {
        fail("card.holder_name", "must have 1 to 255 characters")
      }
      const month = /^(0[1-9]|1[0-2])$/.test(k.exp_month) ? Number(k.exp_month) : null
      if (month === null) fail("card.exp_month", 'must be "01" to "12"')
      const year = /^\d{2}$/.test(k.exp_year)
        ? 2000 + Number(k.exp_year)
        : /^\d{4}$/.test(k.exp_year)
          ? Number(k.exp_year)
          : null
      if (year === null || year < 2000 || year > 2099) fail("card.exp_year", 'must be "YY" or "YYYY"')
      else if (month !== null && cardExpired(month, year - 2000, now)) fail("card.exp_year", "the card has expired")
      if (!/^\d{3,4}$/.test(k.cvv)) fail("card.cvv", "must have 3 or 4 digits")
      if (errors.length === 0 && brand !== null && month !== null && year !== null) {
        card = {
          _tag: "Raw",
          card: { pan: number, brand, expMonth: month, expYear: year, holderName: k.holder_name, cvv: k.cvv }
        }
      }
    }
  }
  // Sent with pix or billet it was dropped, whatever it said (-1, 99): paid at once, they have no plan to choose.
  if (method !== "CARD" && w.installments !== undefined && w.installments !== 1) {
    fail("installments", "is only for credit_card: pix and billet are paid at once (1)")
  }
  const split = decodeSplit(w.split, fail)
  if (w.billet !== undefined && method !== "BOLETO") fail("billet", "(charge terms) is only for billet")
  if (w.max_installments !== undefined && method !== "CARD") fail("max_installments", "is only for credit_card")
  const terms = method === "BOLETO" ? decodeTerms(w.billet, "billet", w.amount, fail) : null
  if (errors.length > 0 || kind === null) return Either.left(errors)

  const buyer: Buyer = {
    name,
    email: c.email,
    document,
    documentType: kind,
    // As sent (CONTRACT-v1 §2: the customer comes back as sent except `document`); its digits go to the payer.
    phone: c.phone ?? null,
    ip: c.ip ?? null,
    zipCode: c.zip_code ?? null,
    streetName: c.street_name ?? null,
    number: c.number ?? null,
    complement: c.complement ?? null,
    neighborhood: c.neighborhood ?? null,
    city: c.city ?? null,
    state: c.state ?? null,
    country: c.country ?? null
  }
  const common = {
    origin: "v1" as const,
    orderId: null,
    buyer,
    amount: w.amount,
    payer: { document, phone: phone ?? undefined, address: undefined, birthdate: undefined },
    products: products.map((p): Product => ({
      name: p.name,
      quantity: p.quantity,
      unitPrice: p.unit_price,
      sku: p.sku ?? null,
      link: p.link ?? null
    })),
    metadata: w.metadata ?? null,
    comment: w.comment ?? null,
    split,
    expiresAt
  }
  if (method === "CARD") {
    if (card === undefined) return Either.left(errors)
    return Either.right({ ...common, method, installments, card })
  }
  const payer = { ...common.payer, document }
  return Either.right(
    method === "BOLETO"
      ? { ...common, method, payer, terms, termsField: "billet", pix: w.billet?.pix === true }
      : { ...common, method, payer }
  )
}
