import { Context, type Effect, type Option } from "effect"
import type { AccountId, TransactionId } from "../domain/ids.ts"

/** The rail a bolepix was paid by: its barcode (the bank) or its QR code (the PIX due-date charge). */
export type Rail = "pix" | "barcode"

/** to_return: owed to the payer; returning: asked of the PSP; returned: given back (docs/boleto.md "Bolepix"). */
export type SecondPaymentStatus = "to_return" | "returning" | "returned"

export interface SecondPayment {
  readonly id: string
  readonly transactionId: TransactionId
  readonly rail: Rail
  /** The PIX's end-to-end id; `barcode` for the slip (a bank takes one payment of it). */
  readonly reference: string
  readonly amount: number
  readonly paidAt: Date
  readonly status: SecondPaymentStatus
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
     * A second PIX asked back of the PSP (`returning`), by its id (the devolução's), in whichever account: the
     * PSP's report of the devolução names only that id (as `RefundRepo.findPendingPix` does for refunds).
     */
    readonly findReturning: (
      id: string
    ) => Effect.Effect<
      Option.Option<{ readonly accountId: AccountId; readonly transactionId: TransactionId; readonly amount: number }>
    >
    readonly ofTransaction: (
      accountId: AccountId,
      transactionId: TransactionId
    ) => Effect.Effect<ReadonlyArray<SecondPayment>>
  }
>() {}
