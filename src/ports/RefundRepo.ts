import type { AccountId, RefundId, TransactionId } from "../domain/ids.ts"
import { Context, type Effect } from "effect"

export interface Refund {
  readonly id: RefundId
  readonly transactionId: TransactionId
  readonly amount: number
  readonly reason: string | null
  readonly status: "PENDING" | "SUCCEEDED" | "FAILED"
  readonly createdAt: Date
  readonly completedAt: Date | null
}

export class RefundRepo extends Context.Tag("RefundRepo")<
  RefundRepo,
  {
    readonly insertPending: (
      accountId: AccountId,
      refund: {
        readonly id: RefundId
        readonly transactionId: TransactionId
        readonly amount: number
        readonly reason: string | null
      }
    ) => Effect.Effect<Refund>
    readonly finish: (accountId: AccountId, id: RefundId, status: "SUCCEEDED" | "FAILED") => Effect.Effect<Refund>
    readonly find: (accountId: AccountId, id: RefundId) => Effect.Effect<Refund | undefined>
    /**
     * PIX refunds the PSP has not yet decided, asked for before `olderThan`, in every account (the
     * reconciliation sweep, like the other jobs that sweep every account).
     */
    /** The PENDING PIX refund with this id, in whichever account (a PSP's notice names no account). */
    readonly findPendingPix: (id: RefundId) => Effect.Effect<
      | {
          readonly accountId: AccountId
          readonly id: RefundId
          readonly transactionId: TransactionId
          readonly amount: number
        }
      | undefined
    >
    readonly pendingPix: (
      olderThan: Date,
      limit: number
    ) => Effect.Effect<
      ReadonlyArray<{
        readonly accountId: AccountId
        readonly id: RefundId
        readonly transactionId: TransactionId
        readonly amount: number
        readonly txid: string | null
      }>
    >
  }
>() {}
