import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, TestClock } from "effect"
import { type CardBrand, detectBrand } from "../../../domain/card.ts"
import { Acquirer, type CardData } from "../../../ports/Acquirer.ts"
import { SandboxAcquirerLive } from "./SandboxAcquirer.ts"

const NOW = Date.UTC(2026, 5, 15, 12)

const card = (pan: string, overrides: Partial<CardData> = {}): CardData => ({
  pan,
  expMonth: 12,
  expYear: 2030,
  holderName: "MARIA DA SILVA",
  brand: detectBrand(pan) as CardBrand,
  cvv: "123",
  ...overrides
})

let keys = 0
/** Charges under a fresh idempotency key with the clock at NOW. */
const charge = (data: CardData, idempotencyKey = `key-${++keys}`) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(NOW)
    const acquirer = yield* Acquirer
    return yield* acquirer.charge({ idempotencyKey, amount: 400, installments: 1, card: data })
  })

const verify = (data: CardData) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(NOW)
    return yield* (yield* Acquirer).verify(data)
  })

describe("SandboxAcquirer", () => {
  it.effect.each([
    "4242424242424242",
    "4111111111111111",
    "5555555555554444",
    "6362970000457013",
    "4000000000000259",
    "5105105105105100" // any other Luhn-valid number of a supported brand
  ])("approves %s with a 6-digit code and a reference, and verifies it", (pan) =>
    Effect.gen(function* () {
      const result = yield* charge(card(pan))
      expect(result._tag).toBe("Approved")
      if (result._tag === "Approved") {
        expect(result.authorizationCode).toMatch(/^\d{6}$/)
        expect(result.acquirerReference).not.toBe("")
        expect(result.acquirerReference).not.toContain(pan)
      }
      expect(yield* verify(card(pan))).toEqual({ _tag: "Verified" })
    }).pipe(Effect.provide(SandboxAcquirerLive))
  )

  it.effect.each([
    ["4000000000000002", "card_declined", "Verified"],
    ["4000000000009995", "insufficient_funds", "Verified"],
    ["4000000000000069", "expired_card", "Rejected"],
    ["4000000000000127", "incorrect_cvc", "Rejected"]
  ] as const)("declines %s with %s (verification: %s)", ([pan, code, verification]) =>
    Effect.gen(function* () {
      const result = yield* charge(card(pan))
      expect(result).toMatchObject({ _tag: "Declined", code })
      const verified = yield* verify(card(pan))
      expect(verified._tag).toBe(verification)
      if (verified._tag === "Rejected") expect(verified.code).toBe(code)
    }).pipe(Effect.provide(SandboxAcquirerLive))
  )

  it.effect("fails with AcquirerUnavailable on the processing_error card, and does not remember the failure", () =>
    Effect.gen(function* () {
      const first = yield* Effect.either(charge(card("4000000000000119"), "same"))
      const again = yield* Effect.either(charge(card("4000000000000119"), "same"))
      for (const result of [first, again]) {
        expect(Either.isLeft(result) && result.left._tag).toBe("AcquirerUnavailable")
      }
      expect(yield* verify(card("4000000000000119"))).toEqual({ _tag: "Verified" })
    }).pipe(Effect.provide(SandboxAcquirerLive))
  )

  it.effect("answers a repeated idempotency key with the first result", () =>
    Effect.gen(function* () {
      const first = yield* charge(card("4242424242424242"), "tx-1")
      const second = yield* charge(card("4242424242424242"), "tx-1")
      // Even if the retry carried another card, the acquirer answers what it answered before.
      const third = yield* charge(card("4000000000000002"), "tx-1")
      const other = yield* charge(card("4242424242424242"), "tx-2")
      expect(second).toEqual(first)
      expect(third).toEqual(first)
      expect(other).not.toEqual(first)
    }).pipe(Effect.provide(SandboxAcquirerLive))
  )

  it.effect("rejects a card whose expiry has passed on the Clock, for charge and verify", () =>
    Effect.gen(function* () {
      const lastMonth = card("4242424242424242", { expMonth: 5, expYear: 2026 })
      expect(yield* charge(lastMonth)).toMatchObject({ _tag: "Declined", code: "expired_card" })
      expect(yield* verify(lastMonth)).toMatchObject({ _tag: "Rejected", code: "expired_card" })
      // Still good through the last day of its month.
      const thisMonth = card("4242424242424242", { expMonth: 6, expYear: 2026 })
      expect((yield* charge(thisMonth))._tag).toBe("Approved")
    }).pipe(Effect.provide(SandboxAcquirerLive))
  )

  it.effect("declines a number that fails Luhn or does not match its brand", () =>
    Effect.gen(function* () {
      expect(yield* charge(card("4242424242424241", { brand: "Visa" }))).toMatchObject({ code: "card_declined" })
      expect(yield* charge(card("4242424242424242", { brand: "Mastercard" }))).toMatchObject({ code: "card_declined" })
    }).pipe(Effect.provide(SandboxAcquirerLive))
  )

  it.effect("refunds any reference, including one charged by another process", () =>
    Effect.gen(function* () {
      const acquirer = yield* Acquirer
      yield* acquirer.refund({ idempotencyKey: "r-1", acquirerReference: "sbx_unknown", amount: 100 })
    }).pipe(Effect.provide(SandboxAcquirerLive))
  )
})
