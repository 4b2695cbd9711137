import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { expectError, newOrder, pixBody, PROCESS, transactionStatus } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/** CONTRACT §7: with SANDBOX_ENABLED=false the sandbox endpoints do not exist (404). */

let server: TestServer
let api: Client
let key: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, sandboxEnabled: false })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

describe("sandbox disabled", () => {
  it("pay and expire are 404 and change nothing", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const reply = await api.post(PROCESS, pixBody(orderId, amount), { key })
    expect(reply.status, reply.text).toBe(201)
    const id = reply.body.transactionId as string
    for (const action of ["pay", "expire"]) {
      expectError(await api.post(`/api/sandbox/transactions/${id}/${action}`, undefined, { key }), 404)
    }
    expect(await transactionStatus(api, key, id)).toBe("PENDING")
    const order = await api.get(`/api/orders/${orderId}`, { key })
    expect(order.body.status).toBe("PENDING")
  })
})
