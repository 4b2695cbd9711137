import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { freshCpf, newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Round trips of a charge (issue 10). Every statement the service sends to PostgreSQL goes through
 * `pg.Client#query`; counting its calls during one request shows what the request costs the database,
 * so a later change cannot silently add reads back. The server runs as an API process only (no worker
 * polling in the count); the batched `last_used_at` write (once a second for many requests) and the request
 * log's batched insert (every 200 ms for many requests, off the request path: docs/webhooks.md) are left out.
 */

let server: TestServer
let api: Client
let key: string
const seen: Array<string> = []
let counting = false
const original = pg.Client.prototype.query

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 }, { role: "api" })
  api = client(server.baseUrl)
  key = (await signup(api)).key
  pg.Client.prototype.query = function (this: pg.Client, ...args: Array<unknown>) {
    if (counting) {
      const first = args[0] as string | { text?: string } | undefined
      const text = typeof first === "string" ? first : (first?.text ?? "?")
      if (!/last_used_at|insert into request_log/.test(text)) seen.push(text.replace(/\s+/g, " ").trim().slice(0, 90))
    }
    return (original as (...a: Array<unknown>) => unknown).apply(this, args)
  } as typeof original
})
afterAll(async () => {
  pg.Client.prototype.query = original
  await server?.close()
})

const count = async (request: () => Promise<{ status: number; text: string }>, status = 201) => {
  seen.length = 0
  counting = true
  const reply = await request()
  counting = false
  expect(reply.status, reply.text).toBe(status)
  return [...seen]
}

describe("round trips of a PIX charge", () => {
  it("POST /api/payment-gateway/process makes at most 2", async () => {
    const warm = await newOrder(api, key, 5_000)
    await api.post(PROCESS, pixBody(warm.orderId, 5_000), { key, headers: { "idempotency-key": crypto.randomUUID() } })
    const { orderId } = await newOrder(api, key, 5_000)
    const statements = await count(() =>
      api.post(PROCESS, pixBody(orderId, 5_000), { key, headers: { "idempotency-key": crypto.randomUUID() } })
    )
    // Admission (key, scope, rate limit, idempotency claim, and the order with its customer read once
    // admitted: docs/performance.md "The order read with the admission"), then one statement without
    // BEGIN or COMMIT (issue 22 §2): the order expected as read under its row lock, the transaction, its
    // event, documents, expiry job and the idempotency record's reply.
    expect(statements.length, statements.join("\n")).toBeLessThanOrEqual(2)
  })

  it("POST /public/v1/transactions makes at most 2", async () => {
    const body = () => ({
      method: "pix",
      amount: 5_000,
      customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf() }
    })
    await api.post("/public/v1/transactions", body(), { token: key })
    const statements = await count(() =>
      api.post("/public/v1/transactions", body(), { token: key, headers: { "idempotency-key": crypto.randomUUID() } })
    )
    // No order to check or lock: admission with the claim, then the transaction, event, documents, job
    // and reply in one statement.
    expect(statements.length, statements.join("\n")).toBeLessThanOrEqual(2)
  })
})

describe("round trips of a read", () => {
  it("GET /api/customers/{id} makes 1", async () => {
    const customer = await api.post<{ id: string }>(
      "/api/customers",
      { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), phone: "11999999999" },
      { key }
    )
    expect(customer.status, customer.text).toBe(201)
    await api.get(`/api/customers/${customer.body.id}`, { key })
    const statements = await count(() => api.get(`/api/customers/${customer.body.id}`, { key }), 200)
    // The admission, and the customer read in its statement once the request has its slot
    // (docs/performance.md "Admissions in batches").
    expect(statements.length, statements.join("\n")).toBe(1)
  })

  it("GET /api/orders/{id} makes 1", async () => {
    const { orderId } = await newOrder(api, key, 5_000)
    await api.get(`/api/orders/${orderId}`, { key })
    const statements = await count(() => api.get(`/api/orders/${orderId}`, { key }), 200)
    expect(statements.length, statements.join("\n")).toBe(1)
  })

  it("GET /api/transactions/{id} and GET /public/v1/transactions/{hash} make 1", async () => {
    const { orderId } = await newOrder(api, key, 5_000)
    const charged = await api.post<{ transactionId: string }>(PROCESS, pixBody(orderId, 5_000), {
      key,
      headers: { "idempotency-key": crypto.randomUUID() }
    })
    expect(charged.status, charged.text).toBe(201)
    const id = charged.body.transactionId
    await api.get(`/api/transactions/${id}`, { key })
    expect((await count(() => api.get(`/api/transactions/${id}`, { key }), 200)).length).toBe(1)
    const v1 = await api.post<{ data: { hash: string } }>(
      "/public/v1/transactions",
      { method: "pix", amount: 5_000, customer: { name: "Maria Silva", email: "m@example.com", document: freshCpf() } },
      { token: key }
    )
    expect(v1.status, v1.text).toBe(201)
    const statements = await count(() => api.get(`/public/v1/transactions/${v1.body.data.hash}`, { token: key }), 200)
    expect(statements.length, statements.join("\n")).toBe(1)
  })
})
