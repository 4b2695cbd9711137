import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, expectError, newOrder, PROCESS, tokenCardBody, TOKENIZE, tokenizeBody } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A saved card whose expiry has passed since it was tokenized is judged by the gateway from its own vault
 * (docs/decisions.md "Card data the gateway can judge itself": "an expiry date already past is a 400 … at
 * tokenization and at charge alike … and no acquirer is asked"): 400 naming `cardToken` (v1 `card_token`),
 * before the antifraud and the acquirer, and no transaction recorded. Time passing is simulated by moving
 * the stored expiry into the past (the expiry is kept in clear, outside the ciphertext's associated data).
 */

let server: TestServer
let api: Client
let key: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
}, 60_000)
afterAll(async () => {
  await server?.close()
})

/** A card saved for the order's customer, then expired (12/2020). */
const expiredToken = async (customerId: string) => {
  const tokenized = await api.post(TOKENIZE, tokenizeBody(customerId, CARDS.visa), { key })
  expect(tokenized.status, tokenized.text).toBe(201)
  const token: string = tokenized.body.cardToken
  await server.db.query("update cards set exp_month = 12, exp_year = 2020 where token = $1", [token])
  return token
}

const chargesOf = async (token: string) =>
  (await server.db.query("select status, decline_code from transactions where card_token = $1", [token])).rows

describe("a saved card that has expired since it was tokenized", () => {
  it("is refused with 400 naming cardToken, without asking the acquirer or recording a charge", async () => {
    const order = await newOrder(api, key)
    const token = await expiredToken(order.customerId)
    const reply = await api.post(PROCESS, tokenCardBody(order.orderId, order.amount, token), { key })
    const body = expectError(reply, 400, "validation_failed")
    expect(body.errors?.[0]?.field).toBe("cardToken")
    expect(body.message).toMatch(/expired \(12\/2020\)/)
    expect(await chargesOf(token), "a charge was sent to the acquirer and recorded").toEqual([])
    const { rows } = await server.db.query("select id from transactions where order_id = $1", [order.orderId])
    expect(rows).toEqual([])
  })

  it("is refused on /public/v1 with 400 naming card_token, and no charge recorded", async () => {
    const order = await newOrder(api, key)
    const token = await expiredToken(order.customerId)
    const reply = await api.post(
      "/public/v1/transactions",
      {
        method: "credit_card",
        amount: 2_000,
        customer: { name: "Maria Silva", email: "maria@example.com", document: order.document },
        card_token: token
      },
      { token: key }
    )
    expect(reply.status, reply.text).toBe(400)
    expect(reply.body).toMatchObject({ success: false, code: "validation_failed" })
    expect(reply.body.errors[0].field).toBe("card_token")
    expect(await chargesOf(token)).toEqual([])
  })
})
