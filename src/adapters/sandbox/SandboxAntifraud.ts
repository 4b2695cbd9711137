import { Effect, Layer } from "effect"
import { Antifraud, type AntifraudAnalysis, type AntifraudRequest } from "../../ports/Antifraud.ts"
import { fraudTestCard, reviewTestCard } from "./testCards.ts"

// The sandbox antifraud of CONTRACT §7: one card is blocked, everything else passes with a score that
// grows with the amount (one point per R$ 1,000, at most 60) so that the analysis looks plausible and
// stays the same on every run.

const assess = (request: AntifraudRequest): AntifraudAnalysis =>
  request.bin === fraudTestCard.bin && request.last4 === fraudTestCard.last4
    ? { decision: "deny", score: 95, reason: "fraud_suspected" }
    : request.bin === reviewTestCard.bin && request.last4 === reviewTestCard.last4
      ? { decision: "review", score: 70, reason: "sandbox_review_card" }
      : { decision: "approve", score: Math.min(60, Math.floor(request.amount / 100_000)), reason: null }

export const SandboxAntifraudLive = Layer.succeed(
  Antifraud,
  Antifraud.of({
    assess: (request) => Effect.sync(() => assess(request)).pipe(Effect.withSpan("SandboxAntifraud.assess"))
  })
)
