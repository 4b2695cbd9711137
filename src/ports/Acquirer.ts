import { Context, Data, type Effect } from "effect"
import type { CardBrand } from "../domain/card.ts"

/** Card data as the acquirer needs it. Lives only in memory for the length of a call. */
export interface CardData {
  readonly pan: string
  readonly expMonth: number
  /** Four digits, e.g. 2030. */
  readonly expYear: number
  readonly holderName: string
  readonly brand: CardBrand
  /** Absent when charging a vaulted card: the CVV is never stored. */
  readonly cvv?: string | undefined
}

export type AuthorizationResult =
  | {
      readonly _tag: "Approved"
      readonly authorizationCode: string
      readonly acquirerReference: string
      /**
       * The acquirer announced that a chargeback notification will follow (the sandbox's dispute
       * card, CONTRACT-v1 §10); the core opens it after SANDBOX_DISPUTE_DELAY_SECONDS.
       */
      readonly chargebackExpected?: true
      /**
       * Which acquirer charged it, when the deployment routes among several (docs/providers.md "Cards:
       * acquirers and failover"): recorded on the transaction, so refunds and status queries go back to it.
       * An opaque name in the core; the sandbox leaves it out.
       */
      readonly acquirer?: string
    }
  | { readonly _tag: "Declined"; readonly code: DeclineCode; readonly message: string }

export type ChargeStatus = AuthorizationResult | { readonly _tag: "NotReceived" }

/** Stable machine codes of CONTRACT §4/§7. */
export type DeclineCode = "card_declined" | "insufficient_funds" | "expired_card" | "incorrect_cvc" | "fraud_suspected"

export type VerificationResult =
  { readonly _tag: "Verified" } | { readonly _tag: "Rejected"; readonly code: DeclineCode; readonly message: string }

/**
 * The acquirer could not give an answer (network, timeout, its own error).
 * - `not_charged` (or absent): it certainly charged nothing (connection refused, an error before it
 *   accepted the request, or a status query that says it never received it): the charge is FAILED and
 *   a failover may try the next acquirer.
 * - `unknown`: it may have charged and could not be asked (a timeout, then the status query failed
 *   too): the transaction stays PROCESSING and the reconcile_charges job asks `status` later. Never
 *   retried elsewhere (docs/providers.md "Failover rules").
 */
export class AcquirerUnavailable extends Data.TaggedError("AcquirerUnavailable")<{
  readonly message: string
  readonly outcome?: "not_charged" | "unknown"
}> {}

/**
 * The card acquirer (Cielo, Rede, Stone, …). Every call carries our own id as the acquirer's
 * idempotency key, so a retry after a crash never charges twice.
 */
export class Acquirer extends Context.Tag("Acquirer")<
  Acquirer,
  {
    /** Authorise and capture at once (the spec's synchronous CAPTURED). */
    readonly charge: (request: {
      readonly idempotencyKey: string
      readonly amount: number
      readonly installments: number
      readonly card: CardData
      /**
       * This key may have reached the acquirer before (a retry resuming a charge whose process died):
       * an acquirer without idempotency keys asks what it did with it before charging again.
       */
      readonly sentBefore?: boolean
    }) => Effect.Effect<AuthorizationResult, AcquirerUnavailable>
    /**
     * What the acquirer knows of the charge made with this idempotency key: the reconciliation job
     * asks it about charges whose process died before recording the answer. NotReceived: it never
     * got the request, so nothing was charged.
     */
    readonly status: (
      idempotencyKey: string,
      /** The acquirer recorded on the transaction, when known; a router asks each of its acquirers otherwise. */
      acquirer?: string | null
    ) => Effect.Effect<ChargeStatus, AcquirerUnavailable>
    /** Zero-amount verification used at tokenization (expiry, CVV). */
    readonly verify: (card: CardData) => Effect.Effect<VerificationResult, AcquirerUnavailable>
    readonly refund: (request: {
      readonly idempotencyKey: string
      readonly acquirerReference: string
      readonly amount: number
      /** The acquirer that charged the transaction (its `Approved.acquirer`), when recorded. */
      readonly acquirer?: string | null
    }) => Effect.Effect<void, AcquirerUnavailable>
  }
>() {}
