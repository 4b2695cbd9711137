import { Context, type Effect } from "effect"
import type { ProviderUnavailable } from "../domain/errors.ts"

export interface PixChargeRequest {
  /** Our transaction id; the provider derives the txid from it (idempotent). */
  readonly transactionId: string
  readonly amount: number
  readonly expiresAt: Date
  readonly merchantName: string
  readonly merchantCity: string
}

export interface PixCharge {
  /** The BR Code (EMV MPM) "copia e cola" payload. */
  readonly emv: string
  readonly txid: string
}

/**
 * A PSP that issues PIX charges (cobranças) and returns the money (devoluções). An outage is a
 * ProviderUnavailable: nothing was created, and the caller may retry.
 */
export class PixProvider extends Context.Tag("PixProvider")<
  PixProvider,
  {
    readonly createCharge: (request: PixChargeRequest) => Effect.Effect<PixCharge, ProviderUnavailable>
    readonly refund: (request: {
      readonly txid: string
      readonly refundId: string
      readonly amount: number
    }) => Effect.Effect<void, ProviderUnavailable>
  }
>() {}
