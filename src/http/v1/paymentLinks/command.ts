import { Either, Schema } from "effect"
import type { FieldError } from "../../../domain/errors.ts"
import type { PaymentLinkId } from "../../../domain/ids.ts"
import type { InstallmentRules } from "../../../domain/installments.ts"
import { MAX_AMOUNT } from "../../../domain/order.ts"
import type { LinkMethod } from "../../../domain/paymentLink.ts"
import type { NewPaymentLink } from "../../../ports/PaymentLinkRepo.ts"

const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/** v1's method words (as on a transaction) and the core's. */
export const LINK_METHOD_WORDS = { credit_card: "CARD", pix: "PIX", billet: "BOLETO" } as const
export const V1_LINK_METHOD: Record<LinkMethod, keyof typeof LINK_METHOD_WORDS> = {
  CARD: "credit_card",
  PIX: "pix",
  BOLETO: "billet"
}

const WireItem = Schema.Struct({
  name: Schema.String,
  quantity: Schema.Number,
  unit_price: Schema.Number.annotations({ description: "centavos" }),
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
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
      description: "any JSON object up to 8,000 bytes; copied into each visit's transaction with payment_link_id"
    })
  )
})
export type CreatePaymentLinkWire = typeof CreatePaymentLinkWire.Type

const OFFSET = /(Z|[+-]\d{2}:?\d{2})$/i
const amountOk = (n: number) => Number.isInteger(n) && n >= 1 && n <= MAX_AMOUNT

/** Every rule of a new link (docs/payment-links.md), each broken field named at once by its v1 path. */
export const decodeCreateLink = (
  w: CreatePaymentLinkWire,
  id: PaymentLinkId,
  now: Date,
  rules: InstallmentRules
): Either.Either<NewPaymentLink, ReadonlyArray<FieldError>> => {
  const errors: Array<FieldError> = []
  const fail = (field: string, message: string) => errors.push({ field, message: `${field} ${message}` })
  const name = w.name.trim()
  if (name.length === 0 || w.name.length > 255) fail("name", "must have 1 to 255 characters")
  if (w.description !== undefined && w.description.length > 1000)
    fail("description", "must have at most 1,000 characters")

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

  const items = w.items ?? []
  if (items.length > 100) fail("items", "must have at most 100 items")
  items.forEach((p, i) => {
    const at = `items[${i}]`
    if (p.name.trim().length === 0 || p.name.length > 255) fail(`${at}.name`, "must have 1 to 255 characters")
    if (!Number.isInteger(p.quantity) || p.quantity < 1) fail(`${at}.quantity`, "must be an integer ≥ 1")
    if (!Number.isInteger(p.unit_price) || p.unit_price < 0 || p.unit_price > MAX_AMOUNT)
      fail(`${at}.unit_price`, "must be an integer number of centavos ≥ 0")
    if (p.sku !== undefined && p.sku.length > 100) fail(`${at}.sku`, "must have at most 100 characters")
  })

  const methods: Array<LinkMethod> = []
  if (w.payment_methods.length === 0) fail("payment_methods", "must name at least one of credit_card, pix, billet")
  w.payment_methods.forEach((m, i) => {
    const core = (LINK_METHOD_WORDS as Record<string, LinkMethod | undefined>)[m]
    if (core === undefined) fail(`payment_methods[${i}]`, "must be one of credit_card, pix, billet")
    else if (methods.includes(core)) fail(`payment_methods[${i}]`, "appears twice")
    else methods.push(core)
  })

  const maxInstallments = w.max_installments ?? 1
  if (!Number.isInteger(maxInstallments) || maxInstallments < 1 || maxInstallments > rules.max)
    fail("max_installments", `must be an integer from 1 to ${rules.max}`)
  else if (maxInstallments > 1 && !methods.includes("CARD"))
    fail("max_installments", "is only for links that allow credit_card")

  let expiresAt: Date | null = null
  if (w.expires_at !== undefined) {
    const at = new Date(w.expires_at)
    if (!OFFSET.test(w.expires_at.trim()) || Number.isNaN(at.getTime()))
      fail("expires_at", "must be an ISO 8601 date-time with an explicit offset, e.g. 2026-12-24T18:00:00-03:00")
    else if (at.getTime() <= now.getTime()) fail("expires_at", "must be in the future")
    else expiresAt = at
  }
  if (w.max_uses !== undefined && (!Number.isInteger(w.max_uses) || w.max_uses < 1 || w.max_uses > 1_000_000))
    fail("max_uses", "must be an integer from 1 to 1000000")
  // Each visit's transaction carries this metadata plus payment_link_id, within v1's 8,192 bytes.
  if (w.metadata !== undefined && Buffer.byteLength(JSON.stringify(w.metadata), "utf8") > 8000)
    fail("metadata", "must serialise to at most 8,000 bytes")

  if (errors.length > 0) return Either.left(errors)
  return Either.right({
    id,
    name,
    description: w.description ?? null,
    amount: w.amount ?? null,
    minAmount: w.amount === undefined ? (w.min_amount ?? null) : null,
    maxAmount: w.amount === undefined ? (w.max_amount ?? null) : null,
    items: items.map((p) => ({ name: p.name, quantity: p.quantity, unitPrice: p.unit_price, sku: p.sku ?? null })),
    methods,
    maxInstallments,
    expiresAt,
    maxUses: w.max_uses ?? null,
    metadata: w.metadata ?? null
  })
}
