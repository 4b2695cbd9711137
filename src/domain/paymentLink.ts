import { Either, Schema } from "effect"
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

/** The methods in v1's words: links are a v1 extension, and their errors name methods so (as changedLink does). */
export const V1_LINK_METHOD = { CARD: "credit_card", PIX: "pix", BOLETO: "billet" } as const satisfies Record<
  LinkMethod,
  string
>

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

/** What the buyer asked on the link's page: the method (null: a word no link takes) and an open link's amount. */
export interface VisitChoice {
  readonly method: LinkMethod | null
  readonly amount: number | undefined
}

/** What a visit charges, all read from one row of its link (see visitTerms). */
export interface VisitTerms {
  readonly method: LinkMethod
  readonly amount: number
  /** A card visit's hosted form offers 1 to this many installments (docs/checkout.md "The buyer's installments"). */
  readonly maxInstallments: number
  readonly items: ReadonlyArray<LinkItem>
  /** The link's metadata plus `payment_link_id` (docs/payment-links.md: each visit's transaction carries both). */
  readonly metadata: Readonly<Record<string, unknown>>
}

/**
 * The charge a visit makes under `link` as it is in this row, or every field of the buyer's choice it refuses
 * (a method the link does not take, an amount outside it), in v1's words. Decided once on the link as read and
 * again on the row the visit takes its use from, under its lock, which is the one charged: an edit committed
 * in between is the link the buyer pays (docs/payment-links.md "Editing a link").
 */
export const visitTerms = (
  link: PaymentLinkRecord,
  choice: VisitChoice
): Either.Either<VisitTerms, ReadonlyArray<FieldError>> => {
  const errors: Array<FieldError> = []
  const method = choice.method !== null && link.methods.includes(choice.method) ? choice.method : null
  if (method === null) {
    const allowed = link.methods.map((m) => V1_LINK_METHOD[m]).join(", ")
    errors.push({ field: "method", message: `method must be one of this link's: ${allowed}` })
  }
  const amount = visitAmount(link, choice.amount)
  if ("error" in amount) errors.push(amount.error)
  if (method === null || "error" in amount) return Either.left(errors)
  return Either.right({
    method,
    amount: amount.amount,
    maxInstallments: link.maxInstallments,
    items: link.items,
    metadata: { ...(link.metadata ?? {}), payment_link_id: link.id }
  })
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
