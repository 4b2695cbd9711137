import { Schema } from "effect"
import { Conflict, type FieldError } from "./errors.ts"
import { AccountId, PaymentLinkId } from "./ids.ts"
import { MAX_AMOUNT } from "./order.ts"

/**
 * A reusable payment link (issue 20 §4; docs/payment-links.md): the merchant fixes an amount or lets the
 * buyer choose one within bounds, the methods allowed, and optionally a deadline and a number of uses;
 * each buyer visit creates its own transaction in the link's tenant.
 */

export const LINK_METHODS = ["CARD", "PIX", "BOLETO"] as const
export type LinkMethod = (typeof LINK_METHODS)[number]

export const LinkItem = Schema.Struct({
  name: Schema.String,
  quantity: Schema.Number,
  unitPrice: Schema.Number,
  sku: Schema.NullOr(Schema.String)
})
export type LinkItem = typeof LinkItem.Type

export const PaymentLinkRecord = Schema.Struct({
  id: PaymentLinkId,
  accountId: AccountId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  /** Fixed amount in centavos; null: the buyer chooses it within [minAmount, maxAmount]. */
  amount: Schema.NullOr(Schema.Number),
  minAmount: Schema.NullOr(Schema.Number),
  maxAmount: Schema.NullOr(Schema.Number),
  items: Schema.Array(LinkItem),
  methods: Schema.Array(Schema.Literal(...LINK_METHODS)),
  /** The most installments a card buyer may choose (1: à vista only). */
  maxInstallments: Schema.Number,
  expiresAt: Schema.NullOr(Schema.DateFromSelf),
  maxUses: Schema.NullOr(Schema.Number),
  /** Transactions created through the link (docs/payment-links.md "What counts as a use"). */
  uses: Schema.Number,
  active: Schema.Boolean,
  metadata: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type PaymentLinkRecord = typeof PaymentLinkRecord.Type

/** Why a link takes no more visits; the order is the one the buyer is told first. */
export type LinkRefusal = "inactive" | "expired" | "used_up"

/** Whether a link takes a visit at `now`: the same rule the database's conditional update applies. */
export const linkRefusal = (link: PaymentLinkRecord, now: Date): LinkRefusal | null => {
  if (!link.active) return "inactive"
  if (link.expiresAt !== null && link.expiresAt.getTime() <= now.getTime()) return "expired"
  if (link.maxUses !== null && link.uses >= link.maxUses) return "used_up"
  return null
}

const REFUSAL_MESSAGES: Record<LinkRefusal, string> = {
  inactive: "this payment link was deactivated by the merchant",
  expired: "this payment link has expired",
  used_up: "this payment link has reached its maximum number of uses"
}

/** A visit to a link that takes none (409, code `payment_link_<refusal>`). */
export const linkUnavailable = (refusal: LinkRefusal) =>
  new Conflict({ code: `payment_link_${refusal}`, message: REFUSAL_MESSAGES[refusal] })

/**
 * The amount a visit charges: the link's, or the buyer's within the link's bounds (and 1 to MAX_AMOUNT).
 * The buyer's amount is named `amount`, as on the page's request.
 */
export const visitAmount = (
  link: PaymentLinkRecord,
  chosen: number | undefined
): { readonly amount: number } | { readonly error: FieldError } => {
  if (link.amount !== null) {
    if (chosen !== undefined && chosen !== link.amount)
      return { error: { field: "amount", message: "amount is fixed by the link and cannot be chosen" } }
    return { amount: link.amount }
  }
  const min = link.minAmount ?? 1
  const max = link.maxAmount ?? MAX_AMOUNT
  if (chosen === undefined || !Number.isInteger(chosen) || chosen < min || chosen > max)
    return { error: { field: "amount", message: `amount must be an integer number of centavos from ${min} to ${max}` } }
  return { amount: chosen }
}

/**
 * What a merchant may change on a link already shared (docs/payment-links.md "Editing a link"): what the
 * page says and the link's limits. Absent: unchanged; null: cleared. The amount and its bounds are not
 * here: a buyer may have the page open with them.
 */
export interface LinkChanges {
  readonly name?: string
  readonly description?: string | null
  readonly items?: ReadonlyArray<LinkItem>
  readonly methods?: ReadonlyArray<LinkMethod>
  readonly maxInstallments?: number
  readonly expiresAt?: Date | null
  readonly maxUses?: number | null
  readonly metadata?: Readonly<Record<string, unknown>> | null
}

/**
 * The link with `changes` applied, or the fields they break against the link as it is now (read under its
 * row lock): `max_uses` below the uses already made, installments without cards. Taking cards away from a
 * link resets its installments to 1 unless the same change sets them. Named in v1's words, as on create.
 */
export const changedLink = (
  link: PaymentLinkRecord,
  changes: LinkChanges
): { readonly link: PaymentLinkRecord } | { readonly errors: ReadonlyArray<FieldError> } => {
  const errors: Array<FieldError> = []
  const methods = changes.methods ?? link.methods
  const maxInstallments = changes.maxInstallments ?? (methods.includes("CARD") ? link.maxInstallments : 1)
  if (maxInstallments > 1 && !methods.includes("CARD"))
    errors.push({ field: "max_installments", message: "max_installments is only for links that allow credit_card" })
  const maxUses = changes.maxUses === undefined ? link.maxUses : changes.maxUses
  if (maxUses !== null && maxUses < link.uses)
    errors.push({
      field: "max_uses",
      message: `max_uses must be at least ${link.uses}, the transactions the link has already created`
    })
  if (errors.length > 0) return { errors }
  return {
    link: {
      ...link,
      name: changes.name ?? link.name,
      description: changes.description === undefined ? link.description : changes.description,
      items: changes.items ?? link.items,
      methods,
      maxInstallments,
      expiresAt: changes.expiresAt === undefined ? link.expiresAt : changes.expiresAt,
      maxUses,
      metadata: changes.metadata === undefined ? link.metadata : changes.metadata
    }
  }
}
