import { randomUUID } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Effect, Either, Redacted, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startFakeCielo, type FakeCielo } from "../../../../test/fakes/cielo/fake.ts"
import { type Listener, listen, readBody, sendJson } from "../../../../test/fakes/shared/server.ts"
import { card, panEndingIn } from "../../../../test/providers/acquirer.kit.ts"
import { makeCieloAcquirer, saleOutcome, voidOutcome } from "./CieloAcquirer.ts"
import { cieloDecline } from "./returnCodes.ts"
import { type Sale, VoidResponse } from "./wire.ts"

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

// DeveloperCielo/API-3.0 source/index.md, "Cancelamento total" and "Cancelamento parcial", Resposta.
const MANUAL_FULL_VOID = {
  Status: 10,
  ReturnCode: "9",
  ReturnMessage: "Operation Successful",
  Links: [{ Method: "GET", Rel: "self", Href: "https://apiquerysandbox.cieloecommerce.cielo.com.br/1/sales/p" }]
}
const MANUAL_PARTIAL_VOID = {
  Status: 2,
  ReasonCode: 0,
  ReasonMessage: "Successful",
  ProviderReturnCode: "0",
  ProviderReturnMessage: "Operation Successful",
  ReturnCode: "0",
  ReturnMessage: "Operation Successful",
  Links: []
}

describe("Cielo: what a void's answer says", () => {
  const read = (body: unknown) => Schema.decodeUnknownSync(VoidResponse)(body)

  it("the manual's full void (no ReasonCode) and partial void (Status 2, ReasonCode 0) are voids done", () => {
    expect(voidOutcome(read(MANUAL_FULL_VOID))).toBe("done")
    expect(voidOutcome(read(MANUAL_PARTIAL_VOID))).toBe("done")
  })

  it("anything else is not taken at its word (the amount is read back)", () => {
    // docs.cielo.com.br "Códigos de Retorno de Cancelamento": 17 a dispute exists, 5 "Erro de efetivação", 98 Timeout.
    for (const ReturnCode of ["17", "5", "98", "6"]) {
      expect(voidOutcome(read({ Status: 2, ReturnCode }))).toBe("unclear")
    }
    expect(voidOutcome(read({ ...MANUAL_PARTIAL_VOID, ReasonCode: 7, ReasonMessage: "Denied" }))).toBe("unclear")
    expect(voidOutcome(read({ Status: 12, ReturnCode: "0" }))).toBe("unclear")
  })
})

describe("Cielo over a proxy answering as the manual does", () => {
  let cielo: FakeCielo
  const listeners: Array<Listener> = []
  beforeAll(async () => {
    cielo = await startFakeCielo()
  })
  afterAll(async () => {
    await Promise.all(listeners.map((l) => l.close()))
    await cielo?.close()
  })
  const APPROVED = card(panEndingIn("402400719769", "1"), "Visa")
  const cieloVia = (apiUrl: string) =>
    makeCieloAcquirer({
      merchantId: cielo.merchantId,
      merchantKey: Redacted.make(cielo.merchantKey),
      apiUrl,
      queryUrl: cielo.query.url(),
      timeoutMs: 2_000
    })

  /** A proxy in front of the fake: the fake acts, `rewrite` may replace the answer the adapter gets. */
  const proxy = async (rewrite: (req: IncomingMessage, answer: { status: number; body: unknown }) => typeof answer) => {
    const server = await listen(async (req: IncomingMessage, res: ServerResponse) => {
      const body = await readBody(req)
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === "string" && !["host", "content-length", "connection"].includes(k)) headers[k] = v
      }
      const answer = await fetch(`${cielo.api.url()}${req.url ?? "/"}`, {
        method: req.method ?? "GET",
        headers,
        ...(body.length > 0 ? { body } : {})
      })
      const text = await answer.text()
      const out = rewrite(req, { status: answer.status, body: text.length > 0 ? JSON.parse(text) : undefined })
      sendJson(res, out.status, out.body)
    })
    listeners.push(server)
    return server
  }

  // Requiring a ReasonCode read Cielo's own full-void answer as unreadable: a void Cielo made was reported
  // failed, and Refunds recorded it FAILED with the money given back to the merchant as well.
  it("a full void answered as the manual shows is a refund done", async () => {
    const charged = await Effect.runPromise(
      cieloVia(cielo.api.url()).charge({
        idempotencyKey: randomUUID(),
        amount: 10_000,
        installments: 1,
        card: APPROVED
      })
    )
    expect(charged._tag).toBe("Approved")
    const paymentId = charged._tag === "Approved" ? charged.acquirerReference : ""
    const front = await proxy((req, answer) =>
      req.method === "PUT" && (req.url ?? "").includes("/void") && answer.status === 200
        ? { status: 200, body: MANUAL_FULL_VOID }
        : answer
    )
    const refund = await Effect.runPromise(
      Effect.either(
        cieloVia(front.url()).refund({ idempotencyKey: randomUUID(), acquirerReference: paymentId, amount: 10_000 })
      )
    )
    // Cielo voided it…
    expect(cielo.refunded(paymentId)).toBe(10_000)
    // …so the adapter must say so.
    expect(Either.isRight(refund) ? "refunded" : `failed: ${refund.left.message}`).toBe("refunded")
  })

  it("a void answer it cannot read is settled by reading the voided amount back, not reported failed", async () => {
    const charged = await Effect.runPromise(
      cieloVia(cielo.api.url()).charge({
        idempotencyKey: randomUUID(),
        amount: 10_000,
        installments: 1,
        card: APPROVED
      })
    )
    const paymentId = charged._tag === "Approved" ? charged.acquirerReference : ""
    const front = await proxy((req, answer) =>
      req.method === "PUT" && answer.status === 200 ? { status: 200, body: { Unexpected: true } } : answer
    )
    const refund = await Effect.runPromise(
      Effect.either(
        cieloVia(front.url()).refund({ idempotencyKey: randomUUID(), acquirerReference: paymentId, amount: 4_000 })
      )
    )
    expect(cielo.refunded(paymentId)).toBe(4_000)
    expect(Either.isRight(refund)).toBe(true)
  })

  it("the fake answers a full void exactly as the manual does, and a partial one with ReasonCode 0", async () => {
    const charged = await Effect.runPromise(
      cieloVia(cielo.api.url()).charge({
        idempotencyKey: randomUUID(),
        amount: 10_000,
        installments: 1,
        card: APPROVED
      })
    )
    const paymentId = charged._tag === "Approved" ? charged.acquirerReference : ""
    const answers: Array<unknown> = []
    const front = await proxy((_req, answer) => {
      answers.push(answer.body)
      return answer
    })
    const refund = (amount: number) =>
      Effect.runPromise(
        cieloVia(front.url()).refund({ idempotencyKey: randomUUID(), acquirerReference: paymentId, amount })
      )
    await refund(3_000)
    await refund(7_000)
    expect(answers[0]).toMatchObject({ Status: 2, ReasonCode: 0, ReturnCode: "0" })
    expect(Object.keys(answers[1] as object).sort()).toEqual(["Links", "ReturnCode", "ReturnMessage", "Status"])
    expect(answers[1]).toMatchObject({ Status: 10, ReturnCode: "9", ReturnMessage: "Operation Successful" })
    expect(cielo.refunded(paymentId)).toBe(10_000)
  })
})

describe("Cielo's 400 error codes (API-3.0 manual, 'Códigos de Erros da API')", () => {
  // The manual's table: 129 "Affiliation not found" (payment method not linked to the store), 130 "Could not
  // get Credit Card", 131 "MerchantKey is required"; the card's own fields are 117 (holder), 118/127/174
  // (number required), 128 (number length), 146 (SecurityCode length), 177/213 (number invalid), 182/185
  // (brand), 125/126 (expiry). Read the other way round, a store problem was told to the buyer as a card
  // declined, and a buyer's typo was an acquirer failure (failover + breaker).
  const listeners: Array<Listener> = []
  afterAll(async () => {
    await Promise.all(listeners.map((l) => l.close()))
  })
  const sale = async (code: number, message: string) => {
    const server = await listen(async (req, res) => {
      await readBody(req)
      sendJson(res, 400, [{ Code: code, Message: message }])
    })
    listeners.push(server)
    return Effect.runPromise(
      Effect.either(
        makeCieloAcquirer({
          merchantId: randomUUID(),
          merchantKey: Redacted.make("k".repeat(40)),
          apiUrl: server.url(),
          queryUrl: server.url(),
          timeoutMs: 2_000
        }).charge({
          idempotencyKey: randomUUID(),
          amount: 1_000,
          installments: 1,
          card: card(panEndingIn("402400719769", "1"), "Visa")
        })
      )
    )
  }
  const outcome = (result: Awaited<ReturnType<typeof sale>>) =>
    Either.isRight(result) ? result.right._tag : `failure ${result.left.outcome}`

  it("131 MerchantKey is required (our credentials) is not the buyer's card declined", async () => {
    expect(outcome(await sale(131, "MerchantKey is required"))).toBe("failure not_charged")
  })

  it("129 Affiliation not found (the store has no such payment method) may fail over: not a decline", async () => {
    expect(outcome(await sale(129, "Affiliation not found"))).toBe("failure not_charged")
  })

  it("213 Credit Card Number is invalid (the buyer's typo) is a decline, not an acquirer failure", async () => {
    expect(outcome(await sale(213, "Credit Card Number is invalid"))).toBe("Declined")
  })

  it("every card-field code of the manual is a decline", async () => {
    for (const code of [117, 118, 125, 126, 127, 128, 146, 174, 177, 182, 185, 213, 214]) {
      expect(outcome(await sale(code, "card field")), String(code)).toBe("Declined")
    }
  })
})
