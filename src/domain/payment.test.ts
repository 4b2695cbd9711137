import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { checkRawCard } from "./payment.ts"

/** A card of the sandbox, good in every field but the holder name under test. */
const card = (holder: string) =>
  checkRawCard(
    {
      holderName: ["holder_name", holder],
      number: ["number", "4111111111111111"],
      expMonth: ["exp_month", "12"],
      expYear: ["exp_year", "2035"],
      cvv: ["cvv", "123"],
      brand: ["brand", "Visa"]
    },
    new Date("2026-11-27T12:00:00Z")
  )

const holderErrors = (holder: string) =>
  Either.match(card(holder), { onLeft: (errors) => errors.filter((e) => e.field === "holder_name"), onRight: () => [] })

describe("the holder name is not a card number (docs/checkout.md)", () => {
  it("refuses twelve digits or more however they are spaced, without repeating them", () => {
    for (const holder of ["4111 1111 1111 1111", "4111111111111111", "4111.1111.1111.1111", "MARIA 4111-1111-1111"]) {
      const errors = holderErrors(holder)
      expect(errors.length, holder).toBe(1)
      expect(errors[0]!.message).not.toMatch(/\d{4}/)
    }
  })

  it("accepts names, with a few digits too", () => {
    for (const holder of ["MARIA SILVA", "João da Silva", "JOHN SMITH 3RD", "ANA 12 34"]) {
      expect(holderErrors(holder), holder).toEqual([])
    }
  })
})
