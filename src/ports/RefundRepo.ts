import type { AccountId, RefundId, TransactionId } from "../domain/ids.ts"
import type { Mode } from "../domain/mode.ts"
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

/** A card refund left PENDING, as the operator sees it (`npm run cli -- refunds pending`). */
export interface PendingCardRefund {
  readonly accountId: AccountId
  readonly id: RefundId
  readonly transactionId: TransactionId
  readonly amount: number
  readonly acquirer: string | null
  readonly acquirerReference: string | null
  readonly createdAt: Date
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
    /**
     * The PENDING PIX refund with this id, in whichever account of this mode (a PSP's notice names no account;
     * a live PSP's never concludes a test refund, nor the sandbox a live one).
     */
    readonly findPendingPix: (
      id: RefundId,
      mode: Mode
    ) => Effect.Effect<
      | {
          readonly accountId: AccountId
          readonly id: RefundId
          readonly transactionId: TransactionId
          readonly amount: number
        }
      | undefined
    >
    /**
     * Card refunds still PENDING, in every account, oldest first: asked of an acquirer that may have made them
     * and could not say (an answer lost and not read back), they wait for an operator to conclude them from
     * the acquirer's records (docs/providers.md "Known limits"). With the charge's acquirer and reference.
     */
    readonly pendingCard: (limit: number) => Effect.Effect<ReadonlyArray<PendingCardRefund>>
    /** The PENDING card refund with this id, in whichever account (the operator names only the refund). */
    readonly findPendingCard: (id: RefundId) => Effect.Effect<PendingCardRefund | undefined>
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
