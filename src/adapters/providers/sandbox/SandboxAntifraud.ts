import { Effect, FiberRef, Layer } from "effect"
import type { Mode } from "../../../domain/mode.ts"
import { CurrentMode } from "../../../ports/Modes.ts"
import { Antifraud, type AntifraudAnalysis, type AntifraudRequest } from "../../../ports/Antifraud.ts"
import { forcedAntifraud } from "./testCards.ts"
import { withSpan } from "../../../spans.ts"

// The sandbox antifraud of CONTRACT §7 (ANTIFRAUD=sandbox; the rules engine is the default): one card is
// blocked, one is sent to review, everything else passes with a score that grows with the amount (one
// point per R$ 1,000, at most 59) so that the analysis looks plausible and stays the same on every run.

const assess = (request: AntifraudRequest, mode: Mode | undefined): AntifraudAnalysis => {
  const forced = forcedAntifraud(request.pan, mode)
  return forced === "reject"
    ? { decision: "reject", score: 95, reason: "fraud_suspected", status: "completed" }
    : forced === "review"
      ? { decision: "review", score: 70, reason: "sandbox_review_card", status: "in_review" }
      : {
          decision: "approve",
          score: Math.min(59, Math.floor(request.amount / 100_000)),
          reason: null,
          status: "completed"
        }
}

export const SandboxAntifraudLive = Layer.succeed(
  Antifraud,
  Antifraud.of({
    assess: (request) =>
      Effect.map(FiberRef.get(CurrentMode), (mode) => assess(request, mode)).pipe(withSpan("SandboxAntifraud.assess"))
  })
)
