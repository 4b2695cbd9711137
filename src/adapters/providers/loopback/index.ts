import { Effect, Layer, Schema } from "effect"
import { luhnValid } from "../../../domain/card.ts"
import { ProviderUnavailable, Unprocessable } from "../../../domain/errors.ts"
import { Acquirer, AcquirerUnavailable, type ChargeStatus } from "../../../ports/Acquirer.ts"
import { PixProvider } from "../../../ports/PixProvider.ts"
import { call, loopbackBaseUrl } from "./client.ts"

const DeclineCode = Schema.Literal(
  "card_declined",
  "insufficient_funds",
  "expired_card",
  "incorrect_cvc",
  "fraud_suspected"
)
const Outcome = Schema.Union(
  Schema.Struct({ outcome: Schema.Literal("approved"), authorizationCode: Schema.String, reference: Schema.String }),
  Schema.Struct({ outcome: Schema.Literal("declined"), code: DeclineCode })
)
const toResult = (o: typeof Outcome.Type) =>
  o.outcome === "approved"
    ? ({ _tag: "Approved", authorizationCode: o.authorizationCode, acquirerReference: o.reference } as const)
    : ({ _tag: "Declined", code: o.code, message: "declined by the loopback acquirer" } as const)
const Ok = Schema.Struct({ ok: Schema.Boolean })
const Verification = Schema.Struct({ ok: Schema.Boolean, code: Schema.optional(DeclineCode) })

// The server is told the last four digits only, so it cannot see a number that fails its check digit. An
// acquirer declines such a charge (the port's conformance kit), so the adapter does, in memory, sending nothing.
const malformed = { _tag: "Declined", code: "card_declined", message: "the card number fails its check digit" } as const

const unavailable = (e: { readonly message: string }) => new AcquirerUnavailable({ message: e.message })

/**
 * The loopback acquirer (client.ts): charges by idempotency key; it is told the card's last four digits only,
 * and to verify a card also its expiry (what a zero-amount verification checks).
 */
export const LoopbackAcquirerLive = Layer.effect(
  Acquirer,
  Effect.map(loopbackBaseUrl, (base) =>
    Acquirer.of({
      charge: (request) =>
        !luhnValid(request.card.pan)
          ? Effect.succeed(malformed)
          : call(base, "POST", "/charges", Outcome, {
              idempotencyKey: request.idempotencyKey,
              amount: request.amount,
              installments: request.installments,
              last4: request.card.pan.slice(-4)
            }).pipe(
              Effect.mapError(unavailable),
              Effect.flatMap((o) =>
                o === null ? Effect.fail(new AcquirerUnavailable({ message: "no such route" })) : Effect.succeed(o)
              ),
              Effect.map(toResult)
            ),
      status: (idempotencyKey) =>
        call(base, "GET", `/charges/${encodeURIComponent(idempotencyKey)}`, Outcome).pipe(
          Effect.mapError(unavailable),
          Effect.map((o): ChargeStatus => (o === null ? { _tag: "NotReceived" } : toResult(o)))
        ),
      verify: (card) =>
        call(base, "POST", "/verifications", Verification, {
          last4: card.pan.slice(-4),
          expMonth: card.expMonth,
          expYear: card.expYear
        }).pipe(
          Effect.mapError(unavailable),
          Effect.map((o) =>
            o?.ok
              ? ({ _tag: "Verified" } as const)
              : ({
                  _tag: "Rejected",
                  code: o?.code ?? "card_declined",
                  message: "rejected by the loopback acquirer"
                } as const)
          )
        ),
      refund: (request) => call(base, "POST", "/refunds", Ok, request).pipe(Effect.mapError(unavailable), Effect.asVoid)
    })
  )
)

const Charge = Schema.Struct({ emv: Schema.String, txid: Schema.String })
const ChargeStatus = Schema.Struct({ txid: Schema.String, status: Schema.Literal("OPEN") })
const pixUnavailable = (e: { readonly message: string }) =>
  new ProviderUnavailable({ provider: "pix", message: e.message, retryAfterSeconds: 30 })

/** The loopback PSP (client.ts): returns the BR Code the local server makes up. */
export const LoopbackPixLive = Layer.effect(
  PixProvider,
  Effect.map(loopbackBaseUrl, (base) =>
    PixProvider.of({
      createCharge: (request) =>
        call(base, "POST", "/pix", Charge, {
          transactionId: request.transactionId,
          amount: request.amount,
          expiresAt: request.expiresAt.toISOString()
        }).pipe(
          Effect.mapError(pixUnavailable),
          Effect.flatMap((c) =>
            c === null ? Effect.fail(pixUnavailable({ message: "no such route" })) : Effect.succeed(c)
          )
        ),
      // No due-date charges here (bolepix is the sandbox's and the API Pix adapter's): refused on its merits.
      createDueCharge: () =>
        Effect.fail(
          new Unprocessable({ code: "pix_due_charge_unsupported", message: "the PIX provider has no due-date charges" })
        ),
      // The loopback PSP models charges and refunds only: a charge stays open until it expires, a refund
      // is returned at once, and no payment is ever reported (the isolation tests need no more). A txid
      // it never issued is not found there, and refused as the port says.
      chargeStatus: (txid) =>
        call(base, "GET", `/pix/${encodeURIComponent(txid)}`, ChargeStatus).pipe(
          Effect.mapError(pixUnavailable),
          Effect.flatMap((found) =>
            found === null
              ? Effect.fail(
                  new Unprocessable({
                    code: "pix_charge_unknown",
                    message: "the PIX provider does not know this charge"
                  })
                )
              : Effect.succeed({ txid: found.txid, status: "OPEN" as const, payments: [] })
          )
        ),
      cancelCharge: (txid) => Effect.succeed({ txid, status: "REMOVED_BY_RECEIVER" as const, payments: [] }),
      // It issues no due-date charges, so it knows none to withdraw.
      withdrawDueCharge: () =>
        Effect.fail(
          new Unprocessable({ code: "pix_charge_unknown", message: "the PIX provider does not know this charge" })
        ),
      refund: (request) =>
        call(base, "POST", "/pix/refunds", Ok, {
          txid: request.txid,
          refundId: request.refundId,
          amount: request.amount
        }).pipe(
          Effect.mapError(pixUnavailable),
          Effect.as({
            refundId: request.refundId,
            amount: request.amount,
            status: "RETURNED" as const,
            settledAt: null,
            reason: null
          })
        ),
      refundStatus: ({ refundId }) =>
        Effect.succeed({ refundId, amount: 0, status: "RETURNED" as const, settledAt: null, reason: null }),
      registerNotifications: () => Effect.void,
      receivedPayments: () => Effect.succeed([])
    })
  )
)
