import { Context, type Effect } from "effect"
import type { ChargeTerms } from "../domain/chargeTerms.ts"
import type { ProviderUnavailable, Unprocessable } from "../domain/errors.ts"

/** Who the charge is addressed to (the API Pix `devedor`): not necessarily who pays it. */
export interface PixPayer {
  readonly name: string
  /** Digits (or an alphanumeric CNPJ's upper-case letters), without punctuation. */
  readonly document: string
  readonly documentType: "cpf" | "cnpj"
}

export interface PixChargeRequest {
  /** Our transaction id; the provider derives the txid from it (idempotent). */
  readonly transactionId: string
  readonly amount: number
  readonly expiresAt: Date
  readonly merchantName: string
  readonly merchantCity: string
  /**
   * The buyer, when the charge names one; a PSP shows it to the payer and may check it. Asked for only by
   * an adapter that sends it (finding it may cost a query the charge path does not otherwise make:
   * docs/performance.md "Round trips").
   */
  readonly payer?: Effect.Effect<PixPayer | null> | undefined
}

/**
 * A due-date charge (API Pix `cobv`): a bolepix's PIX side, with the boleto's amount, due date and charge
 * terms, so both rails ask the same on any day (docs/boleto.md "Bolepix").
 */
export interface PixDueChargeRequest {
  /** Our transaction id (the boleto's); the provider derives the txid from it (idempotent). */
  readonly transactionId: string
  readonly amount: number
  /** YYYY-MM-DD */
  readonly dueDate: string
  /** Calendar days after the due date it may still be paid (`validadeAposVencimento`). */
  readonly payableDaysAfterDue: number
  readonly terms?: ChargeTerms | undefined
  readonly merchantName: string
  readonly merchantCity: string
  /** A due-date charge always names its debtor (the boleto's pagador). */
  readonly payer: PixPayer
}

export interface PixCharge {
  /** The BR Code (EMV MPM) "copia e cola" payload, exactly as the PSP issued it. */
  readonly emv: string
  readonly txid: string
}

/**
 * A due-date charge as issued, with the DICT key it is paid to: a bank that registers the boleto's slip
 * names that key and the txid beside it (CNAB 240 segment Y-03, docs/providers.md "Boleto: banks by CNAB 240").
 */
export interface PixDueCharge extends PixCharge {
  readonly key: string
}

/**
 * Where a charge stands at the PSP: open, paid, or withdrawn (by us at expiry or cancellation, or by the
 * PSP itself). A withdrawn charge can no longer be paid.
 */
export type PixChargeStatus = "OPEN" | "PAID" | "REMOVED_BY_RECEIVER" | "REMOVED_BY_PSP"

/** Where a refund (devolução) stands: asked for, the money returned to the payer, or not returned. */
export type PixRefundStatus = "PROCESSING" | "RETURNED" | "NOT_RETURNED"

export interface PixRefundState {
  /** Our refund id, as the PSP echoes it. */
  readonly refundId: string
  readonly amount: number
  readonly status: PixRefundStatus
  /** When the refund was settled (RETURNED), if the PSP says. */
  readonly settledAt: Date | null
  /** The PSP's reason for NOT_RETURNED, for operators only (never shown to merchants raw). */
  readonly reason: string | null
}

/** A payment received at the merchant's key, as the PSP reports it (by webhook or by listing). */
export interface ReceivedPix {
  /** The SPI's end-to-end id: the one identity of a payment. */
  readonly endToEndId: string
  /** The charge it pays; null for a payment to the key without a charge. */
  readonly txid: string | null
  /** In centavos. */
  readonly amount: number
  readonly paidAt: Date
  /** Refunds of this payment the PSP reports with it (a refund's final status arrives this way too). */
  readonly refunds: ReadonlyArray<PixRefundState>
}

export interface PixChargeState {
  readonly txid: string
  readonly status: PixChargeStatus
  /** The payments the PSP attributes to the charge (one, normally). */
  readonly payments: ReadonlyArray<ReceivedPix>
}

/**
 * A PSP that issues PIX charges (cobranças) and returns the money (devoluções). An outage is a
 * ProviderUnavailable: nothing was created or the operation is safe to repeat (every write is keyed by
 * our own id: the txid from the transaction id, the refund id), and the caller may retry. A request the
 * PSP refuses on its merits is Unprocessable, in our words (the PSP's problem body is never passed on).
 */
export class PixProvider extends Context.Tag("PixProvider")<
  PixProvider,
  {
    readonly createCharge: (request: PixChargeRequest) => Effect.Effect<PixCharge, ProviderUnavailable | Unprocessable>
    /**
     * Issues a due-date charge (`cobv`), the PIX side of a bolepix; keyed by the transaction id. Optional to a
     * PSP: one that has no due-date charges (the test-only loopback) refuses every one, issuing nothing, as
     * Unprocessable `pix_due_charge_unsupported` (a bolepix is then refused in those words, 422; PIX charges and
     * plain boletos are unaffected), and its `withdrawDueCharge` knows none (`pix_charge_unknown`).
     */
    readonly createDueCharge: (
      request: PixDueChargeRequest
    ) => Effect.Effect<PixDueCharge, ProviderUnavailable | Unprocessable>
    /** The charge's state now; a charge the PSP does not know is Unprocessable `pix_charge_unknown`. */
    readonly chargeStatus: (txid: string) => Effect.Effect<PixChargeState, ProviderUnavailable | Unprocessable>
    /**
     * Withdraws an open charge (expiry or cancellation) so it can no longer be paid. Answers the state the
     * charge ends in: a charge paid meanwhile stays PAID, and the caller must settle it instead.
     */
    readonly cancelCharge: (txid: string) => Effect.Effect<PixChargeState, ProviderUnavailable | Unprocessable>
    /**
     * Withdraws a due-date charge (`cobv`) whose boleto takes no more payments (settled by its barcode,
     * expired, cancelled), so its QR can no longer be paid (docs/boleto.md "Bolepix"). Answers the state the
     * charge ends in: REMOVED_BY_RECEIVER (now, or already: asking again is safe), or PAID with its payments
     * when it was paid meanwhile — the PSP's refusal to withdraw a paid charge is that answer, not an error —
     * and the caller hands them on to be returned. Unknown to the PSP: Unprocessable `pix_charge_unknown`.
     */
    readonly withdrawDueCharge: (txid: string) => Effect.Effect<PixChargeState, ProviderUnavailable | Unprocessable>
    /**
     * Asks for `amount` back to the payer, keyed by `refundId` (retrying with the same id is safe). The
     * answer is often PROCESSING: the final status comes later, by notification or `refundStatus`.
     * `endToEndId` names the payment to return, and an adapter returns that one: a charge may have more than
     * one payment (two payers of one QR code, an amount that differed; the API Pix lists them all under it),
     * and only the caller knows which settled it. The core names it whenever it has it recorded (the payment
     * that settled the charge, a bolepix's second payment). Absent (a charge paid in the sandbox, of which
     * nothing was recorded), the adapter takes the charge's payment as the PSP lists it.
     */
    readonly refund: (request: {
      readonly txid: string
      readonly endToEndId?: string | null | undefined
      readonly refundId: string
      readonly amount: number
    }) => Effect.Effect<PixRefundState, ProviderUnavailable | Unprocessable>
    readonly refundStatus: (request: {
      readonly endToEndId: string
      readonly refundId: string
    }) => Effect.Effect<PixRefundState, ProviderUnavailable | Unprocessable>
    /**
     * Registers where the PSP sends payment notices for the merchant's key (it appends `/pix`). A PSP that
     * registers them by its staff answers Unprocessable `pix_webhook_manual`.
     */
    readonly registerNotifications: (url: string) => Effect.Effect<void, ProviderUnavailable | Unprocessable>
    /** The payments received from `from` to `to` (the reconciliation poll), every page of them. */
    readonly receivedPayments: (window: {
      readonly from: Date
      readonly to: Date
    }) => Effect.Effect<ReadonlyArray<ReceivedPix>, ProviderUnavailable | Unprocessable>
  }
>() {}
