import type { AccountId, OrderId, TransactionId } from "../domain/ids.ts"
import { Context, type Effect } from "effect"

/**
 * A card charge still PROCESSING long after any request could be sending it, as the operator sees it
 * (`npm run cli -- charges pending`): the acquirer may have charged the buyer and its answer was lost, and
 * `reconcile_charges` has not learnt the outcome (its status query keeps failing). Looked up at the acquirer
 * by its transaction id (the idempotency key every acquirer call carries) or its reference, when recorded.
 */
export interface PendingCardCharge {
  readonly accountId: AccountId
  readonly id: TransactionId
  readonly orderId: OrderId | null
  /** What the buyer was charged (amount_total, centavos). */
  readonly amount: number
  readonly installments: number | null
  readonly acquirer: string | null
  readonly acquirerReference: string | null
  readonly createdAt: Date
  /** Since when no request has worked on it (`updated_at`): its age in the operator queue. */
  readonly processingSince: Date
}

/**
 * Card charges whose outcome the gateway could not learn, every tenant's (docs/operations.md
 * `card_charge_unknown`): PROCESSING and not worked on by a request for UNDECIDED_CHARGE_AGE.
 */
export class UndecidedChargeReads extends Context.Tag("UndecidedChargeReads")<
  UndecidedChargeReads,
  {
    /** Oldest first (the one left longest first), at most `limit`. */
    readonly pending: (limit: number) => Effect.Effect<ReadonlyArray<PendingCardCharge>>
    /** The one with this transaction id, in whichever account (the operator names only the transaction). */
    readonly findPending: (id: TransactionId) => Effect.Effect<PendingCardCharge | undefined>
  }
>() {}
