import type { AccountId, PaymentLinkId, TransactionId } from "../domain/ids.ts"
import { Context, type Effect, type Option } from "effect"
import type { LinkItem, LinkMethod, PaymentLinkRecord } from "../domain/paymentLink.ts"
import type { RateLimitDecision } from "./Admission.ts"
import type { Page, PageRange } from "./Page.ts"

export interface NewPaymentLink {
  readonly id: PaymentLinkId
  readonly name: string
  readonly description: string | null
  readonly amount: number | null
  readonly minAmount: number | null
  readonly maxAmount: number | null
  readonly items: ReadonlyArray<LinkItem>
  readonly methods: ReadonlyArray<LinkMethod>
  readonly maxInstallments: number
  readonly expiresAt: Date | null
  readonly maxUses: number | null
  readonly metadata: Readonly<Record<string, unknown>> | null
}

export interface PaymentLinkFilter {
  readonly active?: boolean | undefined
  readonly createdFrom?: Date | undefined
  /** Exclusive. */
  readonly createdBefore?: Date | undefined
}

/** Every operation is scoped by account, except `findPublic`: the buyer's page knows only the link's id. */
export class PaymentLinkRepo extends Context.Tag("PaymentLinkRepo")<
  PaymentLinkRepo,
  {
    /** Inserts an active link; the same id again (a resumed request) returns the row already there. */
    readonly insert: (accountId: AccountId, link: NewPaymentLink) => Effect.Effect<PaymentLinkRecord>
    readonly find: (accountId: AccountId, id: PaymentLinkId) => Effect.Effect<Option.Option<PaymentLinkRecord>>
    /** The link behind a buyer's URL, whatever its account (the id is the link's public name). */
    readonly findPublic: (id: PaymentLinkId) => Effect.Effect<Option.Option<PaymentLinkRecord>>
    readonly page: (
      accountId: AccountId,
      filter: PaymentLinkFilter,
      range: PageRange
    ) => Effect.Effect<Page<PaymentLinkRecord>>
    /** The account's link, its row locked until the enclosing database transaction ends (an edit). */
    readonly findForUpdate: (accountId: AccountId, id: PaymentLinkId) => Effect.Effect<Option.Option<PaymentLinkRecord>>
    /** Writes what an edit may change (domain/paymentLink.ts `changedLink`) of the account's link. */
    readonly save: (accountId: AccountId, link: PaymentLinkRecord) => Effect.Effect<PaymentLinkRecord>
    /** Sets `active` (idempotent either way); none when the link is not the account's. */
    readonly setActive: (
      accountId: AccountId,
      id: PaymentLinkId,
      active: boolean
    ) => Effect.Effect<Option.Option<PaymentLinkRecord>>
    /**
     * Takes one use of a link that is active, not expired at the database's clock and under its
     * `max_uses`, in one conditional UPDATE whose row lock lasts until the enclosing database
     * transaction ends: concurrent visits queue on it and at most `max_uses` of them ever commit.
     * None when the link takes no visit (the caller reads the link again to say why).
     */
    readonly takeUse: (accountId: AccountId, id: PaymentLinkId) => Effect.Effect<Option.Option<PaymentLinkRecord>>
    /**
     * One slot of the link's visits in the rolling minute shared by every process (the exact window
     * API keys use, keyed by the link's id), in a statement of its own; none is taken past `perMinute`.
     */
    readonly takeVisitSlot: (id: PaymentLinkId, perMinute: number) => Effect.Effect<RateLimitDecision>
    /** The same, in the window of the link's visits from one client address. */
    readonly takeAddressVisitSlot: (
      id: PaymentLinkId,
      address: string,
      perMinute: number
    ) => Effect.Effect<RateLimitDecision>
    /** The transaction a visit created, with the installments the link allowed it. */
    readonly recordVisit: (
      accountId: AccountId,
      id: PaymentLinkId,
      transactionId: TransactionId,
      maxInstallments: number
    ) => Effect.Effect<void>
  }
>() {}
