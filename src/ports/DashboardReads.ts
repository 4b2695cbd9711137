import { Context, type Effect } from "effect"
import type { Customer } from "../domain/customer.ts"
import type { FrozenEvent, StoredEvent } from "../domain/events.ts"
import type { AccountId, TransactionId } from "../domain/ids.ts"
import type { PaymentMethod, TransactionRecord, TransactionStatus } from "../domain/transaction.ts"
import type { ListKey } from "./Page.ts"

/** What the merchant's dashboard filters its transactions by (docs/dashboard.md "Transactions"). */
export interface DashboardFilter {
  readonly statuses?: ReadonlyArray<TransactionStatus> | undefined
  readonly method?: PaymentMethod | undefined
  readonly createdFrom?: Date | undefined
  /** Exclusive. */
  readonly createdBefore?: Date | undefined
  /** Bounds of `amount_total` in centavos, both inclusive. */
  readonly amountMin?: number | undefined
  readonly amountMax?: number | undefined
  /** The buyer's CPF/CNPJ (digits), on the v1 buyer or the order's customer. */
  readonly document?: string | undefined
  /** A top-level metadata key and its value as text. */
  readonly metadata?: { readonly key: string; readonly value: string } | undefined
}

/** A transaction with the name and document of its buyer (v1) or of its order's customer (v2). */
export interface TransactionRow {
  readonly transaction: TransactionRecord
  readonly buyer: { readonly name: string; readonly document: string } | null
}

/** A page with no total: counting a million rows would cost more than the page (docs/dashboard.md). */
export interface KeysetPage<A> {
  readonly rows: ReadonlyArray<A>
  readonly next: ListKey | null
}

/** One day's sales of one method, the day in America/Sao_Paulo (YYYY-MM-DD). */
export interface DaySummary {
  readonly day: string
  readonly method: PaymentMethod
  /** Transactions created that day. */
  readonly count: number
  /** Of them, paid (paid_at set), declined or failed. */
  readonly paid: number
  readonly refused: number
  /** Sum of amount_total of the paid ones. */
  readonly gross: number
  readonly refunded: number
  readonly fees: number
}

export interface RefundEntry {
  readonly id: string
  readonly amount: number
  readonly reason: string | null
  readonly status: string
  readonly createdAt: Date
  readonly completedAt: Date | null
}

/** An event of the transaction as recorded; its payload is rendered by EventPayloads (app/Dashboard.ts). */
export interface EventEntry {
  readonly id: string
  readonly type: string
  readonly stored: StoredEvent | FrozenEvent
  readonly createdAt: Date
}

export interface DeliveryEntry {
  readonly id: string
  readonly eventId: string
  readonly event: string
  readonly url: string
  readonly status: string
  readonly attempts: number
  readonly httpStatus: number | null
  readonly attemptedAt: Date | null
  readonly nextRetryAt: Date | null
  readonly lastError: string | null
  readonly createdAt: Date
}

/** The records around one transaction, oldest first. */
export interface TransactionTrail {
  readonly refunds: ReadonlyArray<RefundEntry>
  readonly events: ReadonlyArray<EventEntry>
  readonly deliveries: ReadonlyArray<DeliveryEntry>
}

/** The dashboard's reads, every one scoped by account (the writes go through the app services). */
export class DashboardReads extends Context.Tag("DashboardReads")<
  DashboardReads,
  {
    /** Newest first by (created_at, id): a page after `after` is a seek on the account's index. */
    readonly transactions: (
      accountId: AccountId,
      filter: DashboardFilter,
      after: ListKey | undefined,
      limit: number
    ) => Effect.Effect<KeysetPage<TransactionRow>>
    readonly summary: (accountId: AccountId, from: Date, before: Date) => Effect.Effect<ReadonlyArray<DaySummary>>
    readonly trail: (accountId: AccountId, id: TransactionId) => Effect.Effect<TransactionTrail>
    readonly customers: (
      accountId: AccountId,
      search: string | undefined,
      after: ListKey | undefined,
      limit: number
    ) => Effect.Effect<KeysetPage<Customer>>
  }
>() {}
