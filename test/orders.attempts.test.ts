import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { newOrder, orderStatus, pixBody, PROCESS, transactionStatus } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * An order with several attempts at paying it (docs/decisions.md "Orders"; CONTRACT §7): it expires with its
 * last attempt, not while another may still be paid; a transaction that reaches PAID moves it to PAID; a full
 * refund cancels it unless another of its transactions still holds the buyer's money. Before, the first
 * attempt's expiry made the order EXPIRED while a second PIX could still be paid, and the buyer's payment of
 * it left the order EXPIRED (a second payment refused with 409 order_not_payable).
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

describe("an order with several attempts", () => {
  const pix = async (orderId: string) => {
    const reply = await api.post(PROCESS, pixBody(orderId, 1000), { key })
    expect(reply.status, reply.text).toBe(201)
    return reply.body.transactionId as string
  }
  const sandbox = async (id: string, action: string, body?: unknown) => {
    const reply = await api.post(`/api/sandbox/transactions/${id}/${action}`, body, { key })
    expect(reply.status, reply.text).toBeLessThan(300)
  }

  it("PIX A expires while PIX B may still be paid: the order stays PENDING; B paid, it is PAID", async () => {
    const { orderId } = await newOrder(api, key, 1000)
    const a = await pix(orderId)
    const b = await pix(orderId)
    await sandbox(a, "expire")
    expect(await transactionStatus(api, key, a)).toBe("FAILED")
    expect(await orderStatus(api, key, orderId)).toBe("PENDING")
    await sandbox(b, "pay")
    expect(await transactionStatus(api, key, b)).toBe("PAID")
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
  })

  it("the last attempt's expiry ends the order: EXPIRED", async () => {
    const { orderId } = await newOrder(api, key, 1000)
    const a = await pix(orderId)
    const b = await pix(orderId)
    await sandbox(a, "expire")
    await sandbox(b, "expire")
    expect(await orderStatus(api, key, orderId)).toBe("EXPIRED")
  })

  it("both paid: refunding one in full leaves the order PAID; refunding the other too cancels it", async () => {
    const { orderId } = await newOrder(api, key, 1000)
    const a = await pix(orderId)
    const b = await pix(orderId)
    await sandbox(a, "pay")
    await sandbox(b, "pay")
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
    const refund = async (id: string) => {
      const reply = await api.post("/api/payment-gateway/refund", { transactionId: id }, { key })
      expect(reply.status, reply.text).toBe(200)
    }
    await refund(a)
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
    await refund(b)
    expect(await orderStatus(api, key, orderId)).toBe("CANCELLED")
  })
})
