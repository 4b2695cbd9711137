import { Context, type Effect, type Option } from "effect"
import type { AccountId, TransactionId } from "../domain/ids.ts"
import type { ReceivedPix } from "./PixProvider.ts"

/**
 * What became of a received payment. Anything but `settled` is an exception an operator looks at; `returned`
 * is a PIX on a bolepix already settled by its barcode, given back (docs/boleto.md "Bolepix").
 */
export type ReceivedPixOutcome = "settled" | "amount_mismatch" | "unknown_charge" | "not_payable" | "returned"
export type ReceivedPixSource = "webhook" | "reconciliation"

export interface ReceivedPixRecord {
  readonly endToEndId: string
  readonly txid: string | null
  readonly amount: number
  readonly paidAt: Date
  readonly source: ReceivedPixSource
  readonly outcome: ReceivedPixOutcome
  readonly accountId: AccountId | null
  readonly transactionId: TransactionId | null
  readonly receivedAt: Date
}

/** The PIX payments the PSP reported, once each by end-to-end id. */
export class ReceivedPixRepo extends Context.Tag("ReceivedPixRepo")<
  ReceivedPixRepo,
  {
    /**
     * Claims the payment inside the caller's database transaction: false when it was already recorded
     * (a duplicate, or the other path got there first; a concurrent claim waits for the first to commit).
     */
    readonly claim: (payment: ReceivedPix, source: ReceivedPixSource) => Effect.Effect<boolean>
    readonly setOutcome: (
      endToEndId: string,
      outcome: ReceivedPixOutcome,
      charge: { readonly accountId: AccountId; readonly transactionId: TransactionId } | null
    ) => Effect.Effect<void>
    /** The PIX transaction a txid names, in whichever account (a notification names no account). */
    readonly chargeOf: (
      txid: string
    ) => Effect.Effect<Option.Option<{ readonly accountId: AccountId; readonly transactionId: TransactionId }>>
    /** The payments that did not settle their charge, newest first. */
    readonly exceptions: (limit: number) => Effect.Effect<ReadonlyArray<ReceivedPixRecord>>
    readonly find: (endToEndId: string) => Effect.Effect<Option.Option<ReceivedPixRecord>>
  }
>() {}

/** The gateway's side of a PSP's payment notices: the receiver and the reconciliation job hand them here. */
export class PixInbox extends Context.Tag("PixInbox")<
  PixInbox,
  {
    readonly receive: (
      payments: ReadonlyArray<ReceivedPix>,
      source: ReceivedPixSource
    ) => Effect.Effect<{ readonly settled: number; readonly duplicates: number; readonly exceptions: number }>
  }
>() {}
