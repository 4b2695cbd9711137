import { Either, Schema } from "effect"
import type { FieldError } from "../../../domain/errors.ts"
import { instantOf } from "../../shared/instant.ts"
import type { PaymentLinkId } from "../../../domain/ids.ts"
import type { InstallmentRules } from "../../../domain/installments.ts"
import { MAX_AMOUNT, MAX_QUANTITY } from "../../../domain/order.ts"
import type { LinkChanges, LinkItem, LinkMethod } from "../../../domain/paymentLink.ts"
import type { NewPaymentLink } from "../../../ports/PaymentLinkRepo.ts"
import { JsonValue } from "../../shared/payload.ts"

const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/** v1's method words (as on a transaction) and the core's; the reverse is the domain's, whose errors name them. */
export const LINK_METHOD_WORDS = { credit_card: "CARD", pix: "PIX", billet: "BOLETO" } as const
export { V1_LINK_METHOD } from "../../../domain/paymentLink.ts"

/**
 * The core's method for a v1 word, or undefined. An own property only: indexing the object would also
 * answer what every object inherits (`constructor`, `toString`, `__proto__`), which reached the SQL as a
 * function or an object and failed there with a 500.
 */
export const linkMethodOf = (word: string): LinkMethod | undefined =>
  Object.hasOwn(LINK_METHOD_WORDS, word) ? LINK_METHOD_WORDS[word as keyof typeof LINK_METHOD_WORDS] : undefined

const WireItem = Schema.Struct({
  name: Schema.String,
  quantity: Schema.Number.annotations({
    description: `1 to ${MAX_QUANTITY}; quantity × unit_price at most ${MAX_AMOUNT} centavos`
  }),
  unit_price: Schema.Number.annotations({ description: `centavos, 0 to ${MAX_AMOUNT}` }),
  sku: opt(Schema.String)
})

export const CreatePaymentLinkWire = Schema.Struct({
  name: Schema.String.annotations({ description: "1 to 255 characters, shown to the buyer" }),
  description: opt(Schema.String.annotations({ description: "≤ 1,000 characters, shown to the buyer" })),
  amount: opt(
    Schema.Number.annotations({
      description: "centavos, 1 to 9 999 999 999; omitted: the buyer chooses the amount (open amount)"
    })
  ),
  min_amount: opt(Schema.Number.annotations({ description: "open amount only: the least the buyer may pay" })),
  max_amount: opt(Schema.Number.annotations({ description: "open amount only: the most the buyer may pay" })),
  items: opt(Schema.Array(WireItem).annotations({ description: "at most 100 items; shown to the buyer" })),
  payment_methods: Schema.Array(Schema.String).annotations({
    description: "one or more of credit_card, pix, billet (v1's method words)"
  }),
  max_installments: opt(
    Schema.Number.annotations({
      description: "credit_card: the most installments the buyer may choose, 1 to INSTALLMENTS_MAX (default 1)"
    })
  ),
  expires_at: opt(
    Schema.String.annotations({ description: "ISO 8601 with an explicit offset, in the future: no visit after it" })
  ),
  max_uses: opt(
    Schema.Number.annotations({ description: "1 to 1 000 000: how many transactions the link may create" })
  ),
  metadata: opt(
    Schema.Record({ key: Schema.String, value: JsonValue }).annotations({
      description: "any JSON object up to 8,000 bytes; copied into each visit's transaction with payment_link_id"
    })
  )
})
export type CreatePaymentLinkWire = typeof CreatePaymentLinkWire.Type

const amountOk = (n: number) => Number.isInteger(n) && n >= 1 && n <= MAX_AMOUNT
type Fail = (field: string, message: string) => void

/** Checks of the fields a link is created with and may be edited with, each named by its v1 path. */
const checkName = (name: string, fail: Fail) => {
  if (name.trim().length === 0 || name.length > 255) fail("name", "must have 1 to 255 characters")
  return name.trim()
}
const checkDescription = (description: string | null | undefined, fail: Fail) => {
  if (description !== undefined && description !== null && description.length > 1000)
    fail("description", "must have at most 1,000 characters")
}
const checkItems = (items: ReadonlyArray<typeof WireItem.Type>, fail: Fail): Array<LinkItem> => {
  if (items.length > 100) fail("items", "must have at most 100 items")
  items.forEach((p, i) => {
    const at = `items[${i}]`
    if (p.name.trim().length === 0 || p.name.length > 255) fail(`${at}.name`, "must have 1 to 255 characters")
    const quantityOk = Number.isInteger(p.quantity) && p.quantity >= 1 && p.quantity <= MAX_QUANTITY
    const priceOk = Number.isInteger(p.unit_price) && p.unit_price >= 0 && p.unit_price <= MAX_AMOUNT
    if (!quantityOk) fail(`${at}.quantity`, `must be an integer from 1 to ${MAX_QUANTITY}`)
    if (!priceOk) fail(`${at}.unit_price`, `must be an integer number of centavos from 0 to ${MAX_AMOUNT}`)
    // Both in range, the product is below 2^54 and computed exactly enough to compare with MAX_AMOUNT.
    if (quantityOk && priceOk && p.quantity * p.unit_price > MAX_AMOUNT)
      fail(`${at}.quantity`, `× unit_price must be at most ${MAX_AMOUNT} centavos (the largest amount)`)
    if (p.sku !== undefined && p.sku.length > 100) fail(`${at}.sku`, "must have at most 100 characters")
  })
  return items.map((p) => ({ name: p.name, quantity: p.quantity, unitPrice: p.unit_price, sku: p.sku ?? null }))
}
const checkMethods = (words: ReadonlyArray<string>, fail: Fail): Array<LinkMethod> => {
  const methods: Array<LinkMethod> = []
  if (words.length === 0) fail("payment_methods", "must name at least one of credit_card, pix, billet")
  words.forEach((m, i) => {
    const core = linkMethodOf(m)
    if (core === undefined) fail(`payment_methods[${i}]`, "must be one of credit_card, pix, billet")
    else if (methods.includes(core)) fail(`payment_methods[${i}]`, "appears twice")
    else methods.push(core)
  })
  return methods
}
const checkInstallments = (n: number, rules: InstallmentRules, fail: Fail) => {
  if (!Number.isInteger(n) || n < 1 || n > rules.max) {
    fail("max_installments", `must be an integer from 1 to ${rules.max}`)
    return false
  }
  return true
}
const checkExpiry = (text: string, now: Date, fail: Fail): Date | null => {
  const at = instantOf(text.trim())
  if (at === undefined)
    fail("expires_at", "must be an ISO 8601 date-time with an explicit offset, e.g. 2026-12-24T18:00:00-03:00")
  else if (at.getTime() <= now.getTime()) fail("expires_at", "must be in the future")
  else return at
  return null
}
const checkMaxUses = (n: number, fail: Fail) => {
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) fail("max_uses", "must be an integer from 1 to 1000000")
}
// Each visit's transaction carries this metadata plus payment_link_id, within v1's 8,192 bytes.
const checkMetadata = (metadata: Readonly<Record<string, unknown>>, fail: Fail) => {
  if (Buffer.byteLength(JSON.stringify(metadata), "utf8") > 8000)
    fail("metadata", "must serialise to at most 8,000 bytes")
}

/** Every rule of a new link (docs/payment-links.md), each broken field named at once by its v1 path. */
export const decodeCreateLink = (
  w: CreatePaymentLinkWire,
  id: PaymentLinkId,
  now: Date,
  rules: InstallmentRules
): Either.Either<NewPaymentLink, ReadonlyArray<FieldError>> => {
  const errors: Array<FieldError> = []
  const fail: Fail = (field, message) => errors.push({ field, message: `${field} ${message}` })
  const name = checkName(w.name, fail)
  checkDescription(w.description, fail)

  const cents = `must be an integer number of centavos from 1 to ${MAX_AMOUNT}`
  if (w.amount !== undefined) {
    if (!amountOk(w.amount)) fail("amount", cents)
    if (w.min_amount !== undefined) fail("min_amount", "is only for an open amount (without amount)")
    if (w.max_amount !== undefined) fail("max_amount", "is only for an open amount (without amount)")
  } else {
    if (w.min_amount !== undefined && !amountOk(w.min_amount)) fail("min_amount", cents)
    if (w.max_amount !== undefined && !amountOk(w.max_amount)) fail("max_amount", cents)
    if (
      w.min_amount !== undefined &&
      w.max_amount !== undefined &&
      amountOk(w.min_amount) &&
      amountOk(w.max_amount) &&
      w.min_amount > w.max_amount
    )
      fail("max_amount", "must be at least min_amount")
  }

  const items = checkItems(w.items ?? [], fail)
  const methods = checkMethods(w.payment_methods, fail)
  const maxInstallments = w.max_installments ?? 1
  if (checkInstallments(maxInstallments, rules, fail) && maxInstallments > 1 && !methods.includes("CARD"))
    fail("max_installments", "is only for links that allow credit_card")
  const expiresAt = w.expires_at === undefined ? null : checkExpiry(w.expires_at, now, fail)
  if (w.max_uses !== undefined) checkMaxUses(w.max_uses, fail)
  if (w.metadata !== undefined) checkMetadata(w.metadata, fail)

  if (errors.length > 0) return Either.left(errors)
  return Either.right({
    id,
    name,
    description: w.description ?? null,
    amount: w.amount ?? null,
    minAmount: w.amount === undefined ? (w.min_amount ?? null) : null,
    maxAmount: w.amount === undefined ? (w.max_amount ?? null) : null,
    items,
    methods,
    maxInstallments,
    expiresAt,
    maxUses: w.max_uses ?? null,
    metadata: w.metadata ?? null
  })
}

const FIXED = "cannot be changed once the link is shared (a buyer may have its page open): create a new link"

export const UpdatePaymentLinkWire = Schema.Struct({
  name: opt(CreatePaymentLinkWire.fields.name),
  description: opt(Schema.NullOr(Schema.String).annotations({ description: "≤ 1,000 characters; null clears it" })),
  items: CreatePaymentLinkWire.fields.items,
  payment_methods: opt(CreatePaymentLinkWire.fields.payment_methods),
  max_installments: CreatePaymentLinkWire.fields.max_installments,
  expires_at: opt(
    Schema.NullOr(Schema.String).annotations({
      description: "ISO 8601 with an explicit offset, in the future; null: the link no longer expires"
    })
  ),
  max_uses: opt(
    Schema.NullOr(Schema.Number).annotations({
      description: "1 to 1 000 000 and at least `uses`; null: no limit"
    })
  ),
  metadata: opt(
    Schema.NullOr(Schema.Record({ key: Schema.String, value: JsonValue })).annotations({
      description: "replaces the link's metadata (up to 8,000 bytes); null clears it; transactions made are unchanged"
    })
  ),
  // Declared so that the documentation says it; any value is refused with 400.
  amount: opt(Schema.Unknown.annotations({ description: FIXED })),
  min_amount: opt(Schema.Unknown.annotations({ description: FIXED })),
  max_amount: opt(Schema.Unknown.annotations({ description: FIXED }))
})
export type UpdatePaymentLinkWire = typeof UpdatePaymentLinkWire.Type

/**
 * The changes an edit asks for (docs/payment-links.md "Editing a link"), each broken field named at once;
 * what depends on the link as it is (its uses, its methods) is checked under its lock (`changedLink`).
 */
export const decodeUpdateLink = (
  w: UpdatePaymentLinkWire,
  now: Date,
  rules: InstallmentRules
): Either.Either<LinkChanges, ReadonlyArray<FieldError>> => {
  const errors: Array<FieldError> = []
  const fail: Fail = (field, message) => errors.push({ field, message: `${field} ${message}` })
  for (const field of ["amount", "min_amount", "max_amount"] as const) if (field in w) fail(field, FIXED)
  const name = w.name === undefined ? undefined : checkName(w.name, fail)
  checkDescription(w.description, fail)
  const items = w.items === undefined ? undefined : checkItems(w.items, fail)
  const methods = w.payment_methods === undefined ? undefined : checkMethods(w.payment_methods, fail)
  if (w.max_installments !== undefined) checkInstallments(w.max_installments, rules, fail)
  const expiresAt =
    w.expires_at === undefined || w.expires_at === null ? w.expires_at : checkExpiry(w.expires_at, now, fail)
  if (w.max_uses !== undefined && w.max_uses !== null) checkMaxUses(w.max_uses, fail)
  if (w.metadata !== undefined && w.metadata !== null) checkMetadata(w.metadata, fail)

  if (errors.length > 0) return Either.left(errors)
  return Either.right({
    ...(name === undefined ? {} : { name }),
    ...(w.description === undefined ? {} : { description: w.description }),
    ...(items === undefined ? {} : { items }),
    ...(methods === undefined ? {} : { methods }),
    ...(w.max_installments === undefined ? {} : { maxInstallments: w.max_installments }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(w.max_uses === undefined ? {} : { maxUses: w.max_uses }),
    ...(w.metadata === undefined ? {} : { metadata: w.metadata })
  })
}
