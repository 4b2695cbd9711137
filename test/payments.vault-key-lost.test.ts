import { randomBytes } from "node:crypto"
import { Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import {
  CARDS,
  cardBody,
  expectError,
  freshCpf,
  newOrder,
  pixBody,
  PROCESS,
  tokenCardBody,
  TOKENIZE,
  tokenizeBody
} from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Saved cards the vault can no longer decrypt: CARD_VAULT_KEY is not the key they were stored under (a
 * rotation, a replica started with another key). ops/README.md "Secrets": losing the key "makes saved cards
 * unusable (they must be tokenized again)". Charging such a token is 422 `card_token_unusable` naming
 * `cardToken` (v1: 409, as every refusal on its merits there), nothing recorded; approving a held review
 * whose card cannot be read fails that charge (`processing_error`), as when the card left the vault, and
 * leaves its order free for another payment (docs/decisions.md "Saved cards the gateway cannot charge").
 */

const REVIEW_CARD = "4000000000000101"
const newKey = () => Redacted.make(randomBytes(32).toString("base64"))

let before: TestServer | undefined
let after: TestServer | undefined
let api: Client
let key: string
let token: string
let order: Awaited<ReturnType<typeof newOrder>>
let v1HeldId: string
let heldOrder: Awaited<ReturnType<typeof newOrder>>
let heldId: string

beforeAll(async () => {
  before = await startTestServer({ rateLimitPerMinute: 100_000, cardVaultKey: newKey() })
  const first = client(before.baseUrl)
  key = (await signup(first)).key
  order = await newOrder(first, key)
  const tokenized = await first.post(TOKENIZE, tokenizeBody(order.customerId, CARDS.visa), { key })
  expect(tokenized.status, tokenized.text).toBe(201)
  token = tokenized.body.cardToken
  // Charges held for manual review: their cards wait in the vault (docs/antifraud.md "Manual review").
  const v1Held = await first.post(
    "/public/v1/transactions",
    {
      method: "credit_card",
      amount: 1_000,
      customer: { name: "Ana Souza", email: "ana@example.com", document: freshCpf() },
      card: { number: REVIEW_CARD, holder_name: "ANA SOUZA", exp_month: "12", exp_year: "2035", cvv: "123" }
    },
    { token: key }
  )
  expect(v1Held.status, v1Held.text).toBe(201)
  expect(v1Held.body.data.status).toBe("antifraud")
  v1HeldId = v1Held.body.data.hash
  heldOrder = await newOrder(first, key)
  const held = await first.post(PROCESS, cardBody(heldOrder.orderId, heldOrder.amount, REVIEW_CARD), { key })
  expect(held.status, held.text).toBe(201)
  expect(held.body.status).toBe("ANTIFRAUD")
  heldId = held.body.transactionId
  const databaseUrl = before.databaseUrl
  await before.close()
  before = undefined
  // The same database, another vault key.
  after = await startTestServer({ rateLimitPerMinute: 100_000, cardVaultKey: newKey() }, { databaseUrl })
  api = client(after.baseUrl)
}, 120_000)
afterAll(async () => {
  await before?.close()
  await after?.close()
})

const statusOf = async (id: string) => {
  const { rows } = await after!.db.query<{ status: string; decline_code: string | null }>(
    "select status, decline_code from transactions where id = $1",
    [id]
  )
  return rows[0]
}

describe("a saved card the vault can no longer decrypt", () => {
  it("charging its token is 422 card_token_unusable naming cardToken, and nothing is recorded", async () => {
    const reply = await api.post(PROCESS, tokenCardBody(order.orderId, order.amount, token), { key })
    const body = expectError(reply, 422, "card_token_unusable")
    expect(body.message).toMatch(/tokenize the card again/)
    expect(body.errors?.[0]?.field).toBe("cardToken")
    expect(body.transactionId).toBeUndefined()
    const { rows } = await after!.db.query("select id from transactions where order_id = $1", [order.orderId])
    expect(rows).toEqual([])
    // The order is still payable: a new card, or another method, pays it.
    const paid = await api.post(PROCESS, pixBody(order.orderId, order.amount), { key })
    expect(paid.status, paid.text).toBe(201)
  })

  it("charging its token on /public/v1 is 409 card_token_unusable, and nothing is recorded", async () => {
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
    expect(reply.status, reply.text).toBe(409)
    expect(reply.body).toMatchObject({ success: false, code: "card_token_unusable" })
    const { rows } = await after!.db.query("select id from transactions where card_token = $1", [token])
    expect(rows).toEqual([])
  })

  it("approving a held v1 review fails the charge (processing_error) instead of leaving it PROCESSING", async () => {
    const reply = await api.post(`/api/sandbox/transactions/${v1HeldId}/antifraud`, { decision: "approve" }, { key })
    expect(reply.status, reply.text).toBeLessThan(500)
    expect(await statusOf(v1HeldId)).toEqual({ status: "FAILED", decline_code: "processing_error" })
  })

  it("approving a held /api review fails the charge and leaves its order payable", async () => {
    const reply = await api.post(`/api/sandbox/transactions/${heldId}/antifraud`, { decision: "approve" }, { key })
    expect(reply.status, reply.text).toBeLessThan(500)
    expect(await statusOf(heldId)).toEqual({ status: "FAILED", decline_code: "processing_error" })
    // Not blocked by a charge left PROCESSING (409 payment_in_progress).
    const paid = await api.post(PROCESS, pixBody(heldOrder.orderId, heldOrder.amount), { key })
    expect(paid.status, paid.text).toBe(201)
  })
})
