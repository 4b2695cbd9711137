import { describe, expect, it } from "vitest"
import { v1EventPayload } from "./events.ts"

describe("v1 event body of a boleto paid with its terms (docs/boleto.md)", () => {
  const snapshot = {
    id: "0b5e1f1c-2f47-4f59-8f06-1b0c4c1f7c2a",
    orderId: null,
    method: "BOLETO" as const,
    amount: 100_000,
    amountTotal: 100_000,
    status: "PAID" as const,
    paidAt: "2027-02-16T13:00:00.000Z",
    refundedAmount: 0,
    declineCode: null,
    metadata: null
  }
  const event = (extra: object) => ({
    name: "transaction.paid",
    kind: "transaction" as const,
    origin: "v1" as const,
    createdAt: new Date("2027-02-16T13:00:01Z"),
    snapshot: { ...snapshot, ...extra }
  })

  it("shows what was paid and its parts", () => {
    const payment = {
      paidOn: "2027-02-16",
      amount: 102_333,
      principal: 100_000,
      abatement: 0,
      discount: 0,
      fine: 2_000,
      interest: 333
    }
    expect(v1EventPayload(event({ payment }) as never).data).toMatchObject({
      hash: snapshot.id,
      status: "paid",
      amount: 100_000,
      billet_payment: {
        paid_on: "2027-02-16",
        amount_paid: 102_333,
        principal: 100_000,
        fine: 2_000,
        interest: 333,
        discount: 0,
        abatement: 0
      }
    })
  })

  it("carries nothing more for other transactions", () => {
    expect(v1EventPayload(event({}) as never).data).not.toHaveProperty("billet_payment")
  })
})
