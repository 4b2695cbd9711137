import { randomInt, randomUUID } from "node:crypto"
import { Clock, type Context, Effect, Layer } from "effect"
import { cardExpired, detectBrand, luhnValid } from "../../../domain/card.ts"
import {
  Acquirer,
  AcquirerUnavailable,
  type AuthorizationResult,
  type CardData,
  type ChargeStatus,
  type DeclineCode,
  type VerificationResult
} from "../../../ports/Acquirer.ts"
import { testCardOutcomes } from "./testCards.ts"
import { fn, withSpan } from "../../../spans.ts"

// The sandbox acquirer of CONTRACT §7. It never logs or traces card data: spans carry only their names.

type ChargeRequest = Parameters<Context.Tag.Service<Acquirer>["charge"]>[0]

interface Refusal {
  readonly code: DeclineCode
  readonly message: string
}

/** The card's own problems, which a charge and a verification both see before any test-card rule. */
const cardProblem = (card: CardData, now: Date): Refusal | null => {
  if (!luhnValid(card.pan) || detectBrand(card.pan) !== card.brand) {
    return { code: "card_declined", message: "The card number is invalid." }
  }
  // cardExpired takes the two-digit year; a year outside 2000–2099 reads as expired (fail closed).
  if (cardExpired(card.expMonth, card.expYear - 2000, now))
    return { code: "expired_card", message: "The card has expired." }
  return null
}

/** The authorisation, or null when the acquirer "fails" (the processing_error test card). */
const authorize = (card: CardData, now: Date): AuthorizationResult | null => {
  const problem = cardProblem(card, now)
  if (problem !== null) return { _tag: "Declined", ...problem }
  const outcome = testCardOutcomes.get(card.pan)
  if (outcome?._tag === "Fail") return null
  if (outcome?._tag === "Decline") return { _tag: "Declined", code: outcome.code, message: outcome.message }
  return {
    _tag: "Approved",
    authorizationCode: String(randomInt(0, 1_000_000)).padStart(6, "0"),
    acquirerReference: `sbx_${randomUUID()}`,
    ...(outcome?._tag === "Approve" && outcome.dispute ? { chargebackExpected: true as const } : {})
  }
}

const verification = (card: CardData, now: Date): VerificationResult => {
  const problem = cardProblem(card, now) ?? testCardRefusalAtVerify(card.pan)
  return problem === null ? { _tag: "Verified" } : { _tag: "Rejected", ...problem }
}

// Only expiry and CVV show at a zero-amount verification; funds and failures show at the charge.
const testCardRefusalAtVerify = (pan: string): Refusal | null => {
  const outcome = testCardOutcomes.get(pan)
  return outcome?._tag === "Decline" && outcome.atVerify ? { code: outcome.code, message: outcome.message } : null
}

// Bounds the idempotency memory of a long-running sandbox; the oldest keys are forgotten first.
const MAX_REMEMBERED = 100_000

const unavailable = () => new AcquirerUnavailable({ message: "The acquirer could not process the card." })

export const SandboxAcquirerLive = Layer.sync(Acquirer, () => {
  // A real acquirer keeps idempotency keys on its side, for every client. The sandbox keeps them in this
  // process's memory only: a retry reaching another process (or this one after a restart) is authorised anew.
  const results = new Map<string, AuthorizationResult>()
  const remember = (key: string, result: AuthorizationResult) => {
    if (results.size >= MAX_REMEMBERED) {
      const oldest = results.keys().next()
      if (!oldest.done) results.delete(oldest.value)
    }
    results.set(key, result)
  }

  return Acquirer.of({
    charge: fn("SandboxAcquirer.charge")(function* (request: ChargeRequest) {
      const now = new Date(yield* Clock.currentTimeMillis)
      // Look-up, decision and record in one synchronous step, so two concurrent calls with one key agree.
      const result = yield* Effect.sync(() => {
        const known = results.get(request.idempotencyKey)
        if (known !== undefined) return known
        const fresh = authorize(request.card, now)
        // A failure is not remembered: the caller retries it, as with a real acquirer's outage.
        if (fresh !== null) remember(request.idempotencyKey, fresh)
        return fresh
      })
      return result ?? (yield* unavailable())
    }),
    status: (idempotencyKey: string) =>
      Effect.sync((): ChargeStatus => results.get(idempotencyKey) ?? { _tag: "NotReceived" }).pipe(
        withSpan("SandboxAcquirer.status")
      ),
    verify: fn("SandboxAcquirer.verify")(function* (card: CardData) {
      const now = new Date(yield* Clock.currentTimeMillis)
      return verification(card, now)
    }),
    // Refunds must work across processes (the charge may have been made by another one), so every
    // refund of the sandbox succeeds.
    refund: () => Effect.void.pipe(withSpan("SandboxAcquirer.refund"))
  })
})
