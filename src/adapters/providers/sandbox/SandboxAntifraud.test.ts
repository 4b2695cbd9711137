import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { AccountId, TransactionId } from "../../../domain/ids.ts"
import { Antifraud, type AntifraudRequest } from "../../../ports/Antifraud.ts"
import { SandboxAntifraudLive } from "./SandboxAntifraud.ts"

const request = (pan: string, amount = 400): AntifraudRequest => ({
  accountId: AccountId.make("0b7a3c1e-2d4f-4a6b-8c9d-1e2f3a4b5c6d"),
  transactionId: TransactionId.make("8d2f0a9e-5b1c-4e7a-9f3d-2c6b8a1e4f70"),
  amount,
  pan,
  bin: pan.slice(0, 6),
  last4: pan.slice(-4),
  brand: "Visa",
  holderName: "MARIA SILVA",
  buyer: { name: null, email: null, document: null, ip: null, birthdate: null }
})

const assess = (r: AntifraudRequest) =>
  Effect.flatMap(Antifraud, (a) => a.assess(r)).pipe(Effect.provide(SandboxAntifraudLive))

describe("SandboxAntifraud", () => {
  it.effect("rejects the fraud test card and reviews the review card", () =>
    Effect.gen(function* () {
      expect(yield* assess(request("4100000000000019"))).toEqual({
        decision: "reject",
        score: 95,
        reason: "fraud_suspected",
        status: "completed"
      })
      expect(yield* assess(request("4000000000000101"))).toMatchObject({ decision: "review", status: "in_review" })
    })
  )

  it.effect.each(["4242424242424242", "5555555555554444", "4000000000000002", "4100000000000027"])(
    "approves %s with a low score",
    (pan) =>
      Effect.gen(function* () {
        expect(yield* assess(request(pan))).toEqual({
          decision: "approve",
          score: 0,
          reason: null,
          status: "completed"
        })
      })
  )

  // At most 59: an approval stays below the review threshold of CONTRACT-v1 §9.
  it.effect("scores by amount, deterministically and at most 59", () =>
    Effect.gen(function* () {
      expect((yield* assess(request("4242424242424242", 2_500_000))).score).toBe(25)
      expect((yield* assess(request("4242424242424242", 2_500_000))).score).toBe(25)
      expect((yield* assess(request("4242424242424242", 999_999_999))).score).toBe(59)
    })
  )
})
