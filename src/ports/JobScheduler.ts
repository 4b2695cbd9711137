import type { AccountId, TransactionId } from "../domain/ids.ts"
import { Context, type Effect } from "effect"

/**
 * Jobs a state change schedules, enqueued on the caller's connection so that they commit (or roll
 * back) with it.
 */
export class JobScheduler extends Context.Tag("JobScheduler")<
  JobScheduler,
  {
    /** Expire a PENDING PIX or boleto at its deadline (no table scans). */
    readonly expireAt: (accountId: AccountId, transactionId: TransactionId, at: Date) => Effect.Effect<void>
    /**
     * Withdraw a bolepix's due-date charge at the PSP now that its boleto takes no more payments (one keyed
     * job per transaction, retried with back-off while the PSP is unavailable).
     */
    readonly withdrawDueChargeSoon: (accountId: AccountId, transactionId: TransactionId) => Effect.Effect<void>
    /** Make sure the boleto confirmation job runs soon (one job for all pending slips). */
    readonly confirmBoletosSoon: Effect.Effect<void>
    /** Next pass of the boleto confirmation job, while slips are pending. */
    readonly confirmBoletosAt: (at: Date) => Effect.Effect<void>
    /** Make a receivable available at its date (CONTRACT-v1 §7): one keyed job per receivable, never a scan. */
    readonly settleAt: (accountId: AccountId, receivableId: string, at: Date) => Effect.Effect<void>
    /** Pay a withdrawal at the bank after its delay. */
    readonly payWithdrawalAt: (accountId: AccountId, withdrawalId: string, at: Date) => Effect.Effect<void>
    /** The sandbox acquirer's announced chargeback (its dispute test card), at `at`. */
    readonly sandboxDisputeAt: (accountId: AccountId, transactionId: TransactionId, at: Date) => Effect.Effect<void>
    /** The bank files' cycle (remessa, watched retornos): one keyed job for all workers, at `at`. */
    readonly bankFilesCycleAt: (at: Date) => Effect.Effect<void>
    /** The bank files' cycle soon, unless it is already scheduled (a worker's start). */
    readonly bankFilesCycleSoon: Effect.Effect<void>
    /** (Re)schedule a webhook delivery attempt; one job per delivery. */
    readonly deliverAt: (deliveryId: string, at: Date) => Effect.Effect<void>
  }
>() {}
