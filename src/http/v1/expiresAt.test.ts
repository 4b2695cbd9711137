import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { PaymentLinkId } from "../../domain/ids.ts"
import { decodeCreateLink } from "./paymentLinks/command.ts"
import { decodeCreate } from "./transactions/command.ts"

/**
 * `expires_at` on v1 charges and payment links (src/http/shared/instant.ts): a day that does not exist is
 * refused, not rolled over by JavaScript to the next month's (2026-11-31 would be 1 December, within a
 * PIX's 30 days and taken silently); both offset forms, ±HH:MM and ±HHMM, are instants.
 */
const now = new Date("2026-11-27T12:00:00-03:00")
const rules = { max: 12, withoutInterest: 3, monthlyInterestPercent: "2.99", minAmount: 500 }
const customer = { name: "Maria Silva", email: "maria@example.com", document: "52998224725" }
const pix = (expires_at: string) =>
  decodeCreate({ method: "pix", amount: 1_000, customer, expires_at } as never, now, rules)
const link = (expires_at: string) =>
  decodeCreateLink(
    { name: "Camiseta", amount: 1_000, payment_methods: ["pix"], expires_at } as never,
    PaymentLinkId.make("00000000-0000-4000-8000-000000000001"),
    now,
    rules
  )
const fields = (e: Either.Either<unknown, ReadonlyArray<{ field: string }>>) =>
  Either.isLeft(e) ? e.left.map((x) => x.field) : []

describe("expires_at names a real day", () => {
  it("2026-11-31 is refused on a PIX and on a payment link; 1 December is taken in both offset forms", () => {
    expect(fields(pix("2026-11-31T10:00:00-03:00"))).toEqual(["expires_at"])
    expect(fields(link("2026-11-31T10:00:00-03:00"))).toEqual(["expires_at"])
    expect(fields(pix("2026-02-29T10:00:00Z"))).toEqual(["expires_at"])
    for (const text of ["2026-12-01T10:00:00-03:00", "2026-12-01T10:00:00-0300", " 2026-12-01T13:00:00Z "]) {
      expect(Either.isRight(pix(text)), text).toBe(true)
      expect(Either.isRight(link(text)), text).toBe(true)
    }
  })
})
