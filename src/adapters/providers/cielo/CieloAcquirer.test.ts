import { describe, expect, it } from "vitest"
import { saleOutcome } from "./CieloAcquirer.ts"
import { cieloDecline } from "./returnCodes.ts"
import type { Sale } from "./wire.ts"

const sale = (Status: number, ReturnCode: string): Sale => ({
  MerchantOrderId: "t",
  Payment: { PaymentId: "p", Status, Amount: 100, ReturnCode, ReturnMessage: "m", AuthorizationCode: "123456" }
})

describe("Cielo: what a sale says (issue 24 §3: HTTP 201 alone is not success)", () => {
  it("approved only when the ReturnCode approves AND the payment is PaymentConfirmed", () => {
    for (const code of ["00", "4", "6"]) {
      expect(saleOutcome(sale(2, code))).toMatchObject({ _tag: "Approved", acquirerReference: "p", acquirer: "cielo" })
    }
    // Confirmed without an approving code, or an approving code on a payment not captured: not success.
    expect(saleOutcome(sale(2, "05"))).toBe("pending")
    expect(saleOutcome(sale(1, "4"))).toBe("pending")
    expect(saleOutcome(sale(12, "6"))).toBe("pending")
  })

  it("denied and aborted sales are declines with our code; voided and refunded ones were charged", () => {
    expect(saleOutcome(sale(3, "57"))).toMatchObject({ _tag: "Declined", code: "expired_card" })
    expect(saleOutcome(sale(13, "51"))).toMatchObject({ _tag: "Declined", code: "insufficient_funds" })
    expect(saleOutcome(sale(10, "9"))).toMatchObject({ _tag: "Approved" })
    expect(saleOutcome(sale(11, "9"))).toMatchObject({ _tag: "Approved" })
  })

  it("the return-code table (docs/providers.md)", () => {
    expect(
      ["05", "57", "78", "99", "77", "70", "51", "54", "N7", "59", "FD", "XX", undefined].map((c) => cieloDecline(c))
    ).toEqual([
      "card_declined",
      "expired_card",
      "card_declined",
      "card_declined",
      "card_declined",
      "card_declined",
      "insufficient_funds",
      "expired_card",
      "incorrect_cvc",
      "fraud_suspected",
      "fraud_suspected",
      "card_declined",
      "card_declined"
    ])
  })
})
