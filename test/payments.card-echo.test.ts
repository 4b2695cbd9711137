import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf, newOrder, PROCESS, rawCard, TOKENIZE, tokenizeBody } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * docs/input.md "Secrets in error messages": a 400 never quotes a card number or a CVV back, also when the
 * type error is at a parent of the card's fields (the v1 `card` sent as a string or a list, a whole body sent
 * as a list), whose quoted value is the card itself.
 */

const PAN = CARDS.visa
const CVV = "9731"

let server: TestServer
let api: Client
let key: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

const v1card = { number: PAN, holder_name: "MARIA SILVA", exp_month: "12", exp_year: "2035", cvv: CVV }
const customer = () => ({ name: "Ana Souza", email: "ana@example.com", document: freshCpf() })

const expectNoCardIn = (status: number, text: string) => {
  expect(status).toBe(400)
  expect(text, "the 400 quotes the card number").not.toContain(PAN)
  expect(text, "the 400 quotes the CVV").not.toContain(CVV)
}

describe("a 400 never quotes the card back", () => {
  it("v1: `card` sent as a JSON string (double-encoded)", async () => {
    const r = await api.post(
      "/public/v1/transactions",
      { method: "credit_card", amount: 1_000, customer: customer(), card: JSON.stringify(v1card) },
      { token: key }
    )
    expectNoCardIn(r.status, r.text)
  })

  it("v1: `card` sent as a list", async () => {
    const r = await api.post(
      "/public/v1/transactions",
      { method: "credit_card", amount: 1_000, customer: customer(), card: [PAN, CVV] },
      { token: key }
    )
    expectNoCardIn(r.status, r.text)
  })

  it("/api process: a card charge body wrapped in a list", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const r = await api.post(PROCESS, [{ orderId, amount, method: "CARD", ...rawCard(PAN, CVV) }], { key })
    expectNoCardIn(r.status, r.text)
  })

  it("/api tokenize-card: the body wrapped in a list", async () => {
    const { customerId } = await newOrder(api, key)
    const r = await api.post(TOKENIZE, [tokenizeBody(customerId, PAN, { securityCode: CVV })], { key })
    expectNoCardIn(r.status, r.text)
  })
})
