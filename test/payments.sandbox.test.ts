import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import {
  boletoBody,
  CARDS,
  cardBody,
  expectError,
  ISO_UTC,
  newOrder,
  orderStatus,
  pixBody,
  PROCESS,
  transactionStatus
} from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The sandbox endpoints of CONTRACT §7 (SANDBOX_ENABLED=true): pay and expire act as the buyer and
 * the clock would, and a transaction in the wrong state is 409.
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

const pay = (id: string, apiKey = key) => api.post(`/api/sandbox/transactions/${id}/pay`, undefined, { key: apiKey })
const expire = (id: string, apiKey = key) =>
  api.post(`/api/sandbox/transactions/${id}/expire`, undefined, { key: apiKey })

const charge = async (method: "PIX" | "BOLETO" | "CARD", amount = 3_000) => {
  const { orderId } = await newOrder(api, key, amount)
  const body =
    method === "PIX"
      ? pixBody(orderId, amount)
      : method === "BOLETO"
        ? boletoBody(orderId, amount)
        : cardBody(orderId, amount, CARDS.visa)
  const reply = await api.post(PROCESS, body, { key })
  expect(reply.status, reply.text).toBe(201)
  return { orderId, id: reply.body.transactionId as string, amount }
}

describe("pay", () => {
  it("a PENDING PIX: 200 with the Transaction PAID, the order PAID; paying it again 409", async () => {
    const { amount, id, orderId } = await charge("PIX")
    const reply = await pay(id)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toEqual({
      id,
      orderId,
      method: "PIX",
      amount,
      status: "PAID",
      createdAt: expect.stringMatching(ISO_UTC),
      updatedAt: expect.stringMatching(ISO_UTC)
    })
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
    expectError(await pay(id), 409)
    expectError(await expire(id), 409)
    expect(await transactionStatus(api, key, id)).toBe("PAID")
  })

  it("a CARD transaction: 409", async () => {
    const { id } = await charge("CARD")
    expectError(await pay(id), 409)
    expectError(await expire(id), 409)
    expect(await transactionStatus(api, key, id)).toBe("CAPTURED")
  })

  it("a BOLETO: 202 with the Transaction still PENDING", async () => {
    const { amount, id, orderId } = await charge("BOLETO")
    const reply = await pay(id)
    expect(reply.status, reply.text).toBe(202)
    expect(reply.body).toMatchObject({ id, orderId, method: "BOLETO", amount, status: "PENDING" })
  })

  it("unknown, another account's, malformed: 404, 404, 400", async () => {
    expectError(await pay("00000000-0000-4000-8000-000000000000"), 404)
    const { id } = await charge("PIX")
    const other = await signup(api, "Outra Loja")
    expectError(await pay(id, other.key), 404)
    expectError(await expire(id, other.key), 404)
    expect(await transactionStatus(api, key, id)).toBe("PENDING")
    expectError(await pay("nope"), 400)
  })
})

describe("expire", () => {
  it("a PENDING PIX: 200 FAILED, the order EXPIRED; then pay and expire 409", async () => {
    const { amount, id, orderId } = await charge("PIX")
    const reply = await expire(id)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toMatchObject({ id, orderId, method: "PIX", amount, status: "FAILED" })
    expect(await transactionStatus(api, key, id)).toBe("FAILED")
    expect(await orderStatus(api, key, orderId)).toBe("EXPIRED")
    expectError(await pay(id), 409)
    expectError(await expire(id), 409)
  })

  it("a PENDING BOLETO: 200 FAILED, the order EXPIRED", async () => {
    const { id, orderId } = await charge("BOLETO")
    const reply = await expire(id)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body.status).toBe("FAILED")
    expect(await orderStatus(api, key, orderId)).toBe("EXPIRED")
  })
})
