import type { ListFilter } from "./Page.ts"
import type { Page, PageRange } from "./Page.ts"
import type { AccountId, CustomerId, OrderId, PaymentLinkId, TransactionId } from "../domain/ids.ts"
import { Context, type Effect, type Option, type Stream } from "effect"
import type { AntifraudAnalysis } from "../domain/antifraud.ts"
import type { Buyer, Product } from "../domain/payment.ts"
import type {
  Origin,
  PaymentMethod,
  SplitRecord,
  TransactionDetails,
  TransactionRecord,
  TransactionStatus,
  TransactionSummary
} from "../domain/transaction.ts"

export interface NewTransaction {
  readonly id: TransactionId
  readonly origin: Origin
  readonly amountTotal: number
  readonly amountInterest: number
  readonly buyer: Buyer | null
  readonly products: ReadonlyArray<Product>
  readonly metadata: Readonly<Record<string, unknown>> | null
  readonly comment: string | null
  readonly split: ReadonlyArray<SplitRecord>
  readonly fee: number
  /** Set when the transaction is born refused (antifraud before the acquirer). */
  readonly declineCode?: string
  readonly orderId: OrderId | null
  readonly customerId: CustomerId | null
  readonly method: PaymentMethod
  readonly amount: number
  readonly status: TransactionStatus
  readonly installments: number | null
  readonly details: TransactionDetails
  readonly expiresAt: Date | null
  readonly cardToken: string | null
  readonly antifraud: AntifraudAnalysis | null
}

export interface TransactionChanges {
  readonly status?: TransactionStatus
  readonly paidAt?: Date
  readonly refundedAmount?: number
  readonly refundReserved?: number
  readonly declineCode?: string
  readonly acquirerReference?: string
  /** The acquirer that charged it (the Acquirer port's `Approved.acquirer`). */
  readonly acquirer?: string
  /**
   * The parts of `details` that change, merged key by key into the stored ones: a capture that adds the
   * card's authorisation code keeps the checkout token (CONTRACT-v1 §2: every transaction has its page).
   */
  readonly details?: TransactionDetails
  /** The analysis after a review's decision (CONTRACT-v1 §9). */
  readonly antifraud?: AntifraudAnalysis
  /** The card a hosted-form charge holds for its review (docs/checkout.md "Hosted card form"). */
  readonly cardToken?: string
  /**
   * The plan the buyer chose on the hosted form (docs/checkout.md "Hosted card form"): the installments
   * and what follows from them, recomputed by the creation's rules before anything is charged or posted.
   */
  /**
   * A payment below its fee and splits: the fee and the splits' shares it charges instead, set with the
   * move to paid (ledger.ts `chargedOnPayment`, docs/ledger.md "A payment below its fee and splits").
   */
  readonly charged?: { readonly fee: number; readonly split: ReadonlyArray<SplitRecord> }
  readonly plan?: {
    readonly installments: number
    readonly amountTotal: number
    readonly amountInterest: number
    readonly fee: number
    readonly split: ReadonlyArray<SplitRecord>
  }
}

export interface TransactionFilter {
  readonly statuses?: ReadonlyArray<TransactionStatus> | undefined
  readonly method?: PaymentMethod | undefined
  /** The buyer's document (v1 buyer, or the customer of the order). */
  readonly document?: string | undefined
  readonly createdFrom?: Date | undefined
  /** Exclusive. */
  readonly createdBefore?: Date | undefined
  /** Only the transactions created through this payment link (docs/payment-links.md). */
  readonly paymentLinkId?: PaymentLinkId | undefined
}

/** Every operation is scoped by account. */
export class TransactionRepo extends Context.Tag("TransactionRepo")<
  TransactionRepo,
  {
    readonly insert: (accountId: AccountId, transaction: NewTransaction) => Effect.Effect<TransactionRecord>
    /** Every transaction of the account, oldest first, read page by page (interface-v2 lists return all). */
    readonly stream: (accountId: AccountId, filter?: ListFilter) => Stream.Stream<TransactionSummary>
    readonly find: (accountId: AccountId, id: TransactionId) => Effect.Effect<Option.Option<TransactionRecord>>
    /** Row-locks the transaction until the database transaction ends. */
    readonly findForUpdate: (accountId: AccountId, id: TransactionId) => Effect.Effect<Option.Option<TransactionRecord>>
    readonly update: (
      accountId: AccountId,
      id: TransactionId,
      changes: TransactionChanges
    ) => Effect.Effect<TransactionRecord>
    /** The statuses of the order's other transactions (every attempt at paying it but `except`). */
    readonly otherStatuses: (
      accountId: AccountId,
      orderId: OrderId,
      except: TransactionId
    ) => Effect.Effect<ReadonlyArray<TransactionStatus>>
    /** Whether a card charge of this order is waiting for the acquirer. */
    readonly hasProcessing: (accountId: AccountId, orderId: OrderId) => Effect.Effect<boolean>
    /** A page of the account's transactions, newest first, and how many match in all. */
    readonly page: (
      accountId: AccountId,
      filter: TransactionFilter,
      range: PageRange
    ) => Effect.Effect<Page<TransactionRecord>>
    /**
     * Marks a PROCESSING charge as being worked on now (its `updated_at`), before a retry that resumed it
     * asks the acquirer again: the reconciliation job then leaves it to that retry. False when it is no
     * longer PROCESSING (the job settled it first).
     */
    readonly touchProcessing: (accountId: AccountId, id: TransactionId) => Effect.Effect<boolean>
    /** Card charges of every account left in PROCESSING since before `olderThan` (their process died). */
    readonly stuckProcessing: (
      olderThan: Date,
      limit: number
    ) => Effect.Effect<ReadonlyArray<{ readonly accountId: AccountId; readonly id: TransactionId }>>
    /**
     * PENDING PIX charges of every live account expiring between `from` and `to`, soonest first, with their
     * txid: the reconciliation asks the PSP about each before it expires (docs/providers.md "Reconciliation").
     */
    readonly pixNearExpiry: (
      from: Date,
      to: Date,
      limit: number
    ) => Effect.Effect<
      ReadonlyArray<{ readonly accountId: AccountId; readonly id: TransactionId; readonly txid: string | null }>
    >
    /** PENDING boletos of every account, by id after `afterId` (keyset paging for the confirmation job). */
    readonly pendingBoletos: (
      limit: number,
      afterId?: string
    ) => Effect.Effect<ReadonlyArray<{ readonly accountId: AccountId; readonly id: TransactionId }>>
  }
>() {}
