import { randomUUID } from "node:crypto"
import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AcquirerUnavailable, CardData, DeclineCode } from "../../src/ports/Acquirer.ts"
import type { AcquirerService } from "../../src/adapters/providers/failover/FailoverAcquirer.ts"
import type { Fault } from "../fakes/shared/server.ts"

/**
 * The Acquirer port's conformance kit (issue 24 §4, docs/providers.md "Adding a provider"): one suite
 * every adapter passes, the sandbox and each real adapter over its local fake. The fault cases need a
 * fake that can misbehave; an adapter without one (the sandbox) skips them, and says so in its name.
 */

export interface KitFaults {
  readonly inject: (op: "charge" | "status" | "refund", fault: Fault) => void
  /** Refuse connections until `up`. */
  readonly down: () => Promise<void>
  readonly up: () => Promise<void>
  /** Captured charges the provider holds for our transaction id. */
  readonly captures: (idempotencyKey: string) => number
  /** What the provider refunded of a charge, by its reference. */
  readonly refunded: (acquirerReference: string) => number
}

export interface KitHarness {
  readonly acquirer: AcquirerService
  readonly cards: {
    readonly approved: CardData
    /**
     * A card the acquirer declines, with the code; `amount` (10,000 unless given) for an acquirer that declines
     * by amount, not by card (the loopback, which is told no card number).
     */
    readonly declined: { readonly card: CardData; readonly code: DeclineCode; readonly amount?: number }
    readonly verified: CardData
    readonly rejected: { readonly card: CardData; readonly code: DeclineCode }
  }
  readonly faults?: KitFaults
  readonly close: () => Promise<void>
}

const run = <A>(effect: Effect.Effect<A, AcquirerUnavailable>) => Effect.runPromise(Effect.either(effect))

/** A Luhn-valid number of `length` digits, starting with `prefix` and ending in `last` (the digit before is solved). */
export const panEndingIn = (prefix: string, last: string, length = 16) => {
  const body = prefix.padEnd(length - 2, "0")
  for (let x = 0; x < 10; x++) {
    const pan = `${body}${x}${last}`
    let sum = 0
    for (let i = 0; i < pan.length; i++) {
      let d = Number(pan[pan.length - 1 - i])
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2
      sum += d
    }
    if (sum % 10 === 0) return pan
  }
  throw new Error("unreachable")
}

export const card = (pan: string, brand: CardData["brand"], overrides: Partial<CardData> = {}): CardData => ({
  pan,
  brand,
  expMonth: 12,
  expYear: new Date().getUTCFullYear() + 3,
  holderName: "MARIA DA SILVA",
  cvv: "123",
  ...overrides
})

export const acquirerKit = (name: string, start: () => Promise<KitHarness>, options: { readonly fake: boolean }) =>
  describe(`Acquirer conformance: ${name}`, () => {
    let h: KitHarness
    beforeAll(async () => {
      h = await start()
    })
    afterAll(async () => {
      await h?.close()
    })
    const charge = (amount = 10_000, idempotencyKey: string = randomUUID(), c?: CardData, sentBefore = false) =>
      run(
        h.acquirer.charge({
          idempotencyKey,
          amount,
          installments: 1,
          card: c ?? h.cards.approved,
          ...(sentBefore ? { sentBefore } : {})
        })
      )
    const faulty = (label: string, body: (f: KitFaults) => Promise<void>) =>
      it.skipIf(!options.fake)(`${label}${options.fake ? "" : " (no fake to misbehave)"}`, async () => {
        await body(h.faults!)
      })

    it("approves: an authorisation code and a reference; the status query finds it", async () => {
      const key = randomUUID()
      const result = await charge(12_345, key)
      expect(Either.isRight(result) && result.right._tag).toBe("Approved")
      const approved = Either.getOrThrow(result) as Extract<
        typeof result extends Either.Either<infer R, any> ? R : never,
        { _tag: "Approved" }
      >
      expect(approved.acquirerReference.length).toBeGreaterThan(0)
      const status = await run(h.acquirer.status(key, approved.acquirer ?? null))
      expect(Either.getOrThrow(status)).toMatchObject({
        _tag: "Approved",
        acquirerReference: approved.acquirerReference
      })
      if (h.faults) expect(h.faults.captures(key)).toBe(1)
    })

    it("declines with our decline code, and charges nothing", async () => {
      const key = randomUUID()
      const result = await charge(h.cards.declined.amount ?? 10_000, key, h.cards.declined.card)
      expect(Either.getOrThrow(result)).toMatchObject({ _tag: "Declined", code: h.cards.declined.code })
      if (h.faults) expect(h.faults.captures(key)).toBe(0)
    })

    it("a card number the acquirer refuses as malformed: declined card_declined, not a failure", async () => {
      const key = randomUUID()
      const good = h.cards.approved.pan
      const bad = `${good.slice(0, -1)}${(Number(good.slice(-1)) + 5) % 10}`
      const result = await charge(10_000, key, { ...h.cards.approved, pan: bad })
      expect(Either.getOrThrow(result)).toMatchObject({ _tag: "Declined", code: "card_declined" })
      if (h.faults) expect(h.faults.captures(key)).toBe(0)
    })

    it("a key it never saw: NotReceived", async () => {
      expect(Either.getOrThrow(await run(h.acquirer.status(randomUUID())))).toEqual({ _tag: "NotReceived" })
    })

    it("idempotent retry: the same key charged again (sentBefore) answers the first charge, one capture", async () => {
      const key = randomUUID()
      const first = Either.getOrThrow(await charge(5_000, key))
      const again = Either.getOrThrow(await charge(5_000, key, undefined, true))
      expect(again).toMatchObject({ _tag: "Approved" })
      expect((again as { acquirerReference: string }).acquirerReference).toBe(
        (first as { acquirerReference: string }).acquirerReference
      )
      if (h.faults) expect(h.faults.captures(key)).toBe(1)
    })

    it("refunds part, then the rest; a refund beyond the charge is refused", async () => {
      const approved = Either.getOrThrow(await charge(10_000)) as { acquirerReference: string; acquirer?: string }
      const refund = (amount: number) =>
        run(
          h.acquirer.refund({
            idempotencyKey: randomUUID(),
            acquirerReference: approved.acquirerReference,
            amount,
            acquirer: approved.acquirer ?? null
          })
        )
      expect(Either.isRight(await refund(3_000))).toBe(true)
      if (h.faults) expect(h.faults.refunded(approved.acquirerReference)).toBe(3_000)
      expect(Either.isRight(await refund(7_000))).toBe(true)
      if (h.faults) {
        expect(h.faults.refunded(approved.acquirerReference)).toBe(10_000)
        const beyond = await refund(1)
        expect(Either.isLeft(beyond)).toBe(true)
        expect(h.faults.refunded(approved.acquirerReference)).toBe(10_000)
      }
    })

    it("zero-amount verification: a good card verified, a bad one rejected with our code", async () => {
      expect(Either.getOrThrow(await run(h.acquirer.verify(h.cards.verified)))).toEqual({ _tag: "Verified" })
      expect(Either.getOrThrow(await run(h.acquirer.verify(h.cards.rejected.card)))).toMatchObject({
        _tag: "Rejected",
        code: h.cards.rejected.code
      })
    })

    faulty("timeout before accepting: the status query says not received, so certainly not charged", async (f) => {
      const key = randomUUID()
      f.inject("charge", { kind: "timeout" })
      const result = await charge(10_000, key)
      expect(Either.isLeft(result) && result.left.outcome).toBe("not_charged")
      expect(f.captures(key)).toBe(0)
    })

    faulty("5xx before acting: the status query says not received, so not charged", async (f) => {
      const key = randomUUID()
      f.inject("charge", { kind: "error", status: 503 })
      const result = await charge(10_000, key)
      expect(Either.isLeft(result) && result.left.outcome).toBe("not_charged")
      expect(f.captures(key)).toBe(0)
    })

    // No acquirer documents a 5xx as "not processed" (docs/providers.md): one after the charge was made
    // is a lost answer, and the status query finds the charge.
    faulty("5xx after acting: the status query finds the charge, approved once", async (f) => {
      const key = randomUUID()
      f.inject("charge", { kind: "error-after", status: 502 })
      expect(Either.getOrThrow(await charge(10_000, key))).toMatchObject({ _tag: "Approved" })
      expect(f.captures(key)).toBe(1)
    })

    faulty("connection refused: not charged", async (f) => {
      const key = randomUUID()
      await f.down()
      try {
        const result = await charge(10_000, key)
        expect(Either.isLeft(result) && result.left.outcome).toBe("not_charged")
      } finally {
        await f.up()
      }
      expect(f.captures(key)).toBe(0)
    })

    faulty("commit then drop the connection: the status query finds the charge, approved once", async (f) => {
      const key = randomUUID()
      f.inject("charge", { kind: "drop" })
      const result = await charge(10_000, key)
      expect(Either.getOrThrow(result)).toMatchObject({ _tag: "Approved" })
      expect(f.captures(key)).toBe(1)
    })

    faulty(
      "unknown outcome (answer lost and status down) stays unknown; a later status finds the charge",
      async (f) => {
        const key = randomUUID()
        f.inject("charge", { kind: "drop" })
        f.inject("status", { kind: "error", status: 503 })
        const result = await charge(10_000, key)
        expect(Either.isLeft(result) && result.left.outcome).toBe("unknown")
        expect(Either.getOrThrow(await run(h.acquirer.status(key)))).toMatchObject({ _tag: "Approved" })
        // The retry that resumes it charges nothing more.
        expect(Either.getOrThrow(await charge(10_000, key, undefined, true))).toMatchObject({ _tag: "Approved" })
        expect(f.captures(key)).toBe(1)
      }
    )

    const chargedForRefund = async () =>
      Either.getOrThrow(await charge(10_000)) as { acquirerReference: string; acquirer?: string }
    const refundOf = (approved: { acquirerReference: string; acquirer?: string }, amount: number) =>
      run(
        h.acquirer.refund({
          idempotencyKey: randomUUID(),
          acquirerReference: approved.acquirerReference,
          amount,
          acquirer: approved.acquirer ?? null
        })
      )

    faulty(
      "refund, commit then drop: the refunded amount is read back, the refund stands, nothing twice",
      async (f) => {
        const approved = await chargedForRefund()
        f.inject("refund", { kind: "drop" })
        expect(Either.isRight(await refundOf(approved, 4_000))).toBe(true)
        expect(f.refunded(approved.acquirerReference)).toBe(4_000)
      }
    )

    faulty("refund, 5xx after acting: the refunded amount is read back, the refund stands", async (f) => {
      const approved = await chargedForRefund()
      f.inject("refund", { kind: "error-after", status: 502 })
      expect(Either.isRight(await refundOf(approved, 4_000))).toBe(true)
      expect(f.refunded(approved.acquirerReference)).toBe(4_000)
    })

    faulty("refund, 5xx before acting: read back, not refunded, and it says so (not_charged)", async (f) => {
      const approved = await chargedForRefund()
      f.inject("refund", { kind: "error", status: 503 })
      const result = await refundOf(approved, 4_000)
      expect(Either.isLeft(result) && result.left.outcome).toBe("not_charged")
      expect(f.refunded(approved.acquirerReference)).toBe(0)
    })

    faulty("refund times out before accepting: not refunded, and it says so (not_charged)", async (f) => {
      const approved = await chargedForRefund()
      f.inject("refund", { kind: "timeout" })
      const result = await refundOf(approved, 4_000)
      expect(Either.isLeft(result) && result.left.outcome).toBe("not_charged")
      expect(f.refunded(approved.acquirerReference)).toBe(0)
    })

    faulty("a slow answer within the timeout is an ordinary approval", async (f) => {
      const key = randomUUID()
      f.inject("charge", { kind: "slow", ms: 100 })
      expect(Either.getOrThrow(await charge(10_000, key))).toMatchObject({ _tag: "Approved" })
      expect(f.captures(key)).toBe(1)
    })
  })
