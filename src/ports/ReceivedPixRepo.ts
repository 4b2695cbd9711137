import { Context, type Effect, type Option } from "effect"
import type { AccountId, TransactionId } from "../domain/ids.ts"
import type { Mode } from "../domain/mode.ts"
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
  /** When an operator marked the exception handled, and what they did; null while it waits. */
  readonly handledAt: Date | null
  readonly handledNote: string | null
}

/**
 * One of an operator's marks on an exception, as kept (docs/operations.md "What waits for an operator"): what
 * was done, or why a mark was undone. The marks of a payment are kept in order and never changed.
 */
export interface ReceivedPixMark {
  readonly action: "handled" | "reopened"
  readonly note: string
  readonly at: Date
}

/** What marking an exception handled found: marked now, or why not (nothing is changed then). */
export type MarkHandled =
  | { readonly _tag: "Marked"; readonly record: ReceivedPixRecord }
  | { readonly _tag: "AlreadyHandled"; readonly record: ReceivedPixRecord }
  | { readonly _tag: "NotAnException"; readonly record: ReceivedPixRecord }
  | { readonly _tag: "Unknown" }

/** What undoing a mark did: the record waiting again, with the mark it had; or why there was none. */
export type Reopen =
  | {
      readonly _tag: "Reopened"
      readonly record: ReceivedPixRecord
      readonly mark: { readonly handledAt: Date; readonly handledNote: string }
    }
  | { readonly _tag: "NotHandled"; readonly record: ReceivedPixRecord }
  | { readonly _tag: "Unknown" }

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
    /**
     * The PIX transaction a txid names, in whichever account of `mode` (a notification names no account,
     * but it comes from one mode's PSP: a live payment can only pay a live charge).
     */
    readonly chargeOf: (
      txid: string,
      mode: Mode
    ) => Effect.Effect<Option.Option<{ readonly accountId: AccountId; readonly transactionId: TransactionId }>>
    /**
     * The payments that did not settle their charge and wait for an operator (not handled yet), oldest first
     * (the one GatewayPixExceptionWaiting is about leads);
     * a bolepix's PIX given back (`returned`) is not one of them: the bolepix's own queue counts it.
     */
    readonly exceptions: (limit: number) => Effect.Effect<ReadonlyArray<ReceivedPixRecord>>
    /**
     * Marks a waiting exception handled, once, with what the operator did. Settled or returned payments are
     * not exceptions; one already handled keeps its first mark.
     */
    readonly markHandled: (endToEndId: string, note: string) => Effect.Effect<MarkHandled>
    /** Undoes a mark made by mistake, saying why: the exception waits for an operator again. */
    readonly reopen: (endToEndId: string, why: string) => Effect.Effect<Reopen>
    /** Every mark made on the payment and every mark undone, oldest first. */
    readonly marks: (endToEndId: string) => Effect.Effect<ReadonlyArray<ReceivedPixMark>>
    readonly find: (endToEndId: string) => Effect.Effect<Option.Option<ReceivedPixRecord>>
    /**
     * The payment that settled the transaction (recorded `settled`): the one a refund of the sale returns. A
     * charge may have more payments than that one (a second payer of the same QR code, an amount that
     * differed), which wait for an operator and are never the sale's (docs/providers.md "Refunds"). None when
     * no payment the PSP reported settled it (a charge paid in the sandbox, a boleto paid by its barcode).
     */
    readonly settlingPayment: (
      accountId: AccountId,
      transactionId: TransactionId
    ) => Effect.Effect<Option.Option<ReceivedPixRecord>>
  }
>() {}

/**
 * The gateway's side of a PSP's payment notices: the receiver and the reconciliation job hand them here,
 * in the mode (`CurrentMode`) of the PSP that reported them, whose charges alone they can pay: the live
 * PSP's receiver and listing run in live mode, the sandbox's in test mode (docs/decisions.md "Test and
 * live modes"). Received outside a mode is a defect.
 */
export class PixInbox extends Context.Tag("PixInbox")<
  PixInbox,
  {
    readonly receive: (
      payments: ReadonlyArray<ReceivedPix>,
      source: ReceivedPixSource
    ) => Effect.Effect<{ readonly settled: number; readonly duplicates: number; readonly exceptions: number }>
  }
>() {}
