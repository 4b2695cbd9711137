import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import {
  CARDS,
  createOrder,
  expectError,
  newOrder,
  PROCESS,
  tokenCardBody,
  TOKENIZE,
  tokenizeBody
} from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A deleted customer's saved cards. Interface-v2 Customers rule 2 makes the id invalid for new payments, and
 * the gateway refuses every charge of such a token (409 customer_deleted on /api, 400 on /public/v1), so
 * nothing can use the PAN again: like a held card once its review is decided (ports/CardVault.ts `discard`,
 * PCI DSS 3.1), it leaves the vault, with the customer's deletion.
 */

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

describe("a deleted customer's saved cards", () => {
  it("leave the vault once the customer is deleted (their tokens can never be charged again)", async () => {
    const { amount, customerId, orderId } = await newOrder(api, key, 5_000)
    const tokenized = await api.post(TOKENIZE, tokenizeBody(customerId, CARDS.visa), { key })
    expect(tokenized.status, tokenized.text).toBe(201)
    const token = tokenized.body.cardToken as string

    const deleted = await api.del(`/api/customers/${customerId}`, { key })
    expect(deleted.status).toBe(204)

    // The token is dead: the order of the deleted customer cannot be paid with it.
    expectError(await api.post(PROCESS, tokenCardBody(orderId, amount, token), { key }), 409, "customer_deleted")

    // …and its encrypted PAN is no longer kept.
    const left = await server.db.query(
      "select count(*)::int as n from cards where token = $1 and pan_ciphertext is not null",
      [token]
    )
    expect(left.rows[0].n).toBe(0)
  }, 60_000)

  it("are unlinked from their charges, except one a charge in review (ANTIFRAUD) still needs", async () => {
    const { amount, customerId, orderId } = await newOrder(api, key, 5_000)
    const secondOrderId = await createOrder(api, key, customerId, amount)
    const tokens: Array<string> = []
    for (let i = 0; i < 2; i++) {
      const tokenized = await api.post(TOKENIZE, tokenizeBody(customerId, CARDS.visa), { key })
      expect(tokenized.status, tokenized.text).toBe(201)
      tokens.push(tokenized.body.cardToken as string)
    }
    const [inReview, paid] = tokens as [string, string]
    for (const [order, token] of [
      [orderId, inReview],
      [secondOrderId, paid]
    ] as const) {
      const charged = await api.post(PROCESS, tokenCardBody(order, amount, token), { key })
      expect(charged.status, charged.text).toBeLessThan(300)
    }
    // A charge waiting for its manual review: its approval reads the card.
    await server.db.query("update transactions set status = 'ANTIFRAUD' where card_token = $1", [inReview])

    expect((await api.del(`/api/customers/${customerId}`, { key })).status).toBe(204)

    const cards = await server.db.query("select token from cards where token = any($1)", [tokens])
    expect(cards.rows.map((r) => r.token)).toEqual([inReview])
    const charges = await server.db.query(
      "select status, card_token from transactions where order_id = any($1) order by status",
      [[orderId, secondOrderId]]
    )
    expect(charges.rows).toEqual([
      { status: "ANTIFRAUD", card_token: inReview },
      { status: "CAPTURED", card_token: null }
    ])
  }, 60_000)
})
