import { describe, expect, it } from "vitest"
import { bankPaymentParts } from "./bankPayment.ts"
import type { ChargeTerms } from "./chargeTerms.ts"

// Due Friday 2027-02-05; fine 2 %, interest 1 % a month, R$ 1.000,00 (docs/boleto.md).
const TERMS: ChargeTerms = {
  fine: { kind: "percentage", value: 200 },
  interest: { kind: "percentage_per_month", value: 100 }
}

describe("bankPaymentParts: the bank's amounts, in parts that add up to what was paid", () => {
  it("paid 5 days late, the bank charging what the terms ask: fine 20,00 and interest 1,67", () => {
    // 100,000 × 2 % = 2,000; 100,000 × 1 % × 5 / 30 = 166.67 → 167.
    expect(
      bankPaymentParts(100_000, "2027-02-05", TERMS, "2027-02-10", {
        paid: 102_167,
        charges: 2_167,
        discount: 0,
        abatement: 0
      })
    ).toEqual({
      paidOn: "2027-02-10",
      amount: 102_167,
      principal: 100_000,
      abatement: 0,
      discount: 0,
      fine: 2_000,
      interest: 167
    })
  })

  it("the bank charged less than the fine: all of it is fine, no interest", () => {
    const parts = bankPaymentParts(100_000, "2027-02-05", TERMS, "2027-02-10", {
      paid: 101_500,
      charges: 1_500,
      discount: 0,
      abatement: 0
    })
    expect([parts.fine, parts.interest, parts.discount]).toEqual([1_500, 0, 0])
  })

  it("the bank's discount and abatement stand; what its amounts leave unexplained is interest or discount", () => {
    const more = bankPaymentParts(100_000, "2027-02-05", undefined, "2027-02-01", {
      paid: 98_010,
      charges: 0,
      discount: 1_000,
      abatement: 1_000
    })
    expect(more).toMatchObject({ abatement: 1_000, discount: 1_000, fine: 0, interest: 10 })
    const less = bankPaymentParts(100_000, "2027-02-05", undefined, "2027-02-01", {
      paid: 97_990,
      charges: 0,
      discount: 1_000,
      abatement: 1_000
    })
    expect(less).toMatchObject({ abatement: 1_000, discount: 1_010, fine: 0, interest: 0 })
    for (const p of [more, less]) {
      expect(p.principal - p.abatement - p.discount + p.fine + p.interest).toBe(p.amount)
    }
  })
})
