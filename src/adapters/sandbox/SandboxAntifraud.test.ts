import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Antifraud, type AntifraudRequest } from "../../ports/Antifraud.ts"
import { SandboxAntifraudLive } from "./SandboxAntifraud.ts"

const request = (pan: string, amount = 400): AntifraudRequest => ({
  transactionId: "8d2f0a9e-5b1c-4e7a-9f3d-2c6b8a1e4f70",
  amount,
  bin: pan.slice(0, 6),
  last4: pan.slice(-4),
  brand: "Visa"
})

const assess = (r: AntifraudRequest) =>
  Effect.flatMap(Antifraud, (a) => a.assess(r)).pipe(Effect.provide(SandboxAntifraudLive))

describe("SandboxAntifraud", () => {
  it.effect("denies the fraud test card", () =>
    Effect.gen(function* () {
      expect(yield* assess(request("4100000000000019"))).toEqual({
        decision: "deny",
        score: 95,
        reason: "fraud_suspected"
      })
    })
  )

  it.effect.each(["4242424242424242", "5555555555554444", "4000000000000002", "4100000000000027"])(
    "approves %s with a low score",
    (pan) =>
      Effect.gen(function* () {
        expect(yield* assess(request(pan))).toEqual({ decision: "approve", score: 0, reason: null })
      })
  )

  it.effect("scores by amount, deterministically and at most 60", () =>
    Effect.gen(function* () {
      expect((yield* assess(request("4242424242424242", 2_500_000))).score).toBe(25)
      expect((yield* assess(request("4242424242424242", 2_500_000))).score).toBe(25)
      expect((yield* assess(request("4242424242424242", 999_999_999))).score).toBe(60)
    })
  )
})
