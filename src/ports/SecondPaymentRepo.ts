import { Context, type Effect, type Option } from "effect"
import type { AccountId, TransactionId } from "../domain/ids.ts"
import type { Mode } from "../domain/mode.ts"

/** The rail a bolepix was paid by: its barcode (the bank) or its QR code (the PIX due-date charge). */
export type Rail = "pix" | "barcode"

/** to_return: owed to the payer; returning: asked of the PSP; returned: given back (docs/boleto.md "Bolepix"). */
export type SecondPaymentStatus = "to_return" | "returning" | "returned"

export interface SecondPayment {
  readonly id: string
  readonly transactionId: TransactionId
  readonly rail: Rail
  /**
   * The PIX's end-to-end id; for the slip, the retorno's occurrence (`<nosso número>:<code>:<day>`), or
   * `barcode` where the bank reports one payment of a slip (the confirmation job; CNAB before migration 0055).
   */
  readonly reference: string
  readonly amount: number
  readonly paidAt: Date
  readonly status: SecondPaymentStatus
}

/** A second PIX the job asks the PSP to return again: what `Bolepix.giveBackPix` needs, and how often it was asked. */
export interface ReturningPix {
  readonly id: string
  readonly accountId: AccountId
  readonly transactionId: TransactionId
  /** The bolepix's due-date charge (its txid); the devolução names the payment by `endToEndId`. */
  readonly txid: string
  readonly endToEndId: string
  readonly amount: number
  /** The job's asks so far, this one included. */
  readonly askedAgain: number
}

/**
 * When a `returning` second PIX is due to be asked again: its last ask at least `everySeconds` ago while it
 * was asked again fewer than `slowAfter` times, at least `slowEverySeconds` ago after that.
 */
export interface AskAgainPolicy {
  readonly limit: number
  readonly everySeconds: number
  readonly slowAfter: number
  readonly slowEverySeconds: number
}

/** A bolepix's payments that came after it was settled, by the other rail: recorded once, never settled. */
export class SecondPaymentRepo extends Context.Tag("SecondPaymentRepo")<
  SecondPaymentRepo,
  {
    /** Records it in the caller's database transaction: false when this rail and reference were already recorded. */
    readonly record: (accountId: AccountId, payment: SecondPayment) => Effect.Effect<boolean>
    readonly setStatus: (accountId: AccountId, id: string, status: SecondPaymentStatus) => Effect.Effect<void>
    /** Every tenant's second payments not yet given back, oldest first: the operator's list. */
    readonly open: (limit: number) => Effect.Effect<ReadonlyArray<SecondPayment & { readonly accountId: AccountId }>>
    /**
     * Locks one in the caller's database transaction (any tenant: the operator names it by id), so that
     * closing it by hand and the PSP's answer cannot both post its return.
     */
    readonly findForUpdate: (
      id: string
    ) => Effect.Effect<Option.Option<SecondPayment & { readonly accountId: AccountId }>>
    /**
     * A second PIX asked back of the PSP (`returning`), by its id (the devolução's), in whichever account of
     * this mode: the PSP's report of the devolução names only that id (as `RefundRepo.findPendingPix` does).
     */
    readonly findReturning: (
      id: string,
      mode: Mode
    ) => Effect.Effect<
      Option.Option<{ readonly accountId: AccountId; readonly transactionId: TransactionId; readonly amount: number }>
    >
    /**
     * Claims, in its own statement, at most `limit` second PIX `returning` and due by `policy`, the longest
     * unasked first: each one marked asked now (and counted), those another worker is claiming skipped, so
     * two workers never ask for the same one at once and the next claim waits its interval.
     */
    readonly claimAskAgain: (policy: AskAgainPolicy) => Effect.Effect<ReadonlyArray<ReturningPix>>
    readonly ofTransaction: (
      accountId: AccountId,
      transactionId: TransactionId
    ) => Effect.Effect<ReadonlyArray<SecondPayment>>
  }
>() {}
