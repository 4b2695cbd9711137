import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { customerBody, expectError, expectFieldErrors, ISO_UTC, UUID } from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/** /api/orders (interface-v2 "Orders"): creation, validation of amount and customerId, isolation. */

type Account = Awaited<ReturnType<typeof signup>>

let server: TestServer
let api: Client
let a: Account
let b: Account
let customerId: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  ;[a, b] = await Promise.all([signup(api, "Loja A"), signup(api, "Loja B")])
  const customer = await api.post("/api/customers", customerBody(), { key: a.key })
  expect(customer.status).toBe(201)
  customerId = customer.body.id
})
afterAll(async () => {
  await server?.close()
})

const createOrder = (account: Account, body: unknown) => api.post("/api/orders", body, { key: account.key })

describe("POST /api/orders", () => {
  it("201 with a PENDING order echoing the amount", async () => {
    const reply = await createOrder(a, { customerId, amount: 15_990 })
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body).toEqual({
      id: expect.stringMatching(UUID),
      customerId,
      amount: 15_990,
      status: "PENDING",
      createdAt: expect.stringMatching(ISO_UTC)
    })
  })

  it("accepts 1 centavo and large integer amounts, returned as JSON numbers", async () => {
    for (const amount of [1, 2_147_483_648, 9_999_999_999]) {
      const reply = await createOrder(a, { customerId, amount })
      expect(reply.status, reply.text).toBe(201)
      expect(reply.body.amount).toBe(amount)
      expect((await api.get(`/api/orders/${reply.body.id}`, { key: a.key })).body.amount).toBe(amount)
    }
  })

  const badAmounts: Array<[string, unknown]> = [
    ["0", 0],
    ["negative", -100],
    ["fractional 1.5", 1.5],
    ["a numeric string", "100"],
    ["null", null],
    ["a boolean", true],
    ["an object", { value: 100 }],
    ["above the maximum", 1e20]
  ]
  it.each(badAmounts)("400 naming amount for %s, and no order is made", async (_name, amount) => {
    const before = (await api.get("/api/orders", { key: a.key })).body.length
    const body = expectFieldErrors(await createOrder(a, { customerId, amount }), ["amount"])
    expect(body.code).toBe("validation_failed")
    expect(body.message).toMatch(/^amount/)
    expect((await api.get("/api/orders", { key: a.key })).body.length).toBe(before)
  })

  it("400 naming amount when it is missing", async () => {
    expectFieldErrors(await createOrder(a, { customerId }), ["amount"])
  })

  it("400 naming customerId when it is not a UUID or missing", async () => {
    for (const bad of ["123", "", 42, null])
      expectFieldErrors(await createOrder(a, { customerId: bad, amount: 100 }), ["customerId"])
    expectFieldErrors(await createOrder(a, { amount: 100 }), ["customerId"])
    expectFieldErrors(await createOrder(a, {}), ["customerId", "amount"])
  })

  it("404 `customerId not found` for an unknown customer or one of another account", async () => {
    const unknown = expectError(await createOrder(a, { customerId: randomUUID(), amount: 100 }), 404)
    expect(unknown.message).toBe("customerId not found")
    const foreign = expectError(await createOrder(b, { customerId, amount: 100 }), 404)
    expect(foreign.message).toBe("customerId not found")
    expect((await api.get("/api/orders", { key: b.key })).body).toEqual([])
  })
})

describe("GET /api/orders and /api/orders/{id}", () => {
  it("list has the account's orders newest first; get returns one", async () => {
    const fresh = await signup(api)
    expect((await api.get("/api/orders", { key: fresh.key })).body).toEqual([])
    const customer = (await api.post("/api/customers", customerBody(), { key: fresh.key })).body
    const first = (await createOrder(fresh, { customerId: customer.id, amount: 100 })).body
    const second = (await createOrder(fresh, { customerId: customer.id, amount: 200 })).body
    const listed = await api.get("/api/orders", { key: fresh.key })
    expect(listed.status).toBe(200)
    expect(listed.body).toEqual([second, first])
    const got = await api.get(`/api/orders/${second.id}`, { key: fresh.key })
    expect(got.status).toBe(200)
    expect(got.body).toEqual(second)
  })

  it("404 for an unknown id, 400 naming id for a non-UUID", async () => {
    expect(expectError(await api.get(`/api/orders/${randomUUID()}`, { key: a.key }), 404).message).toMatch(/order/i)
    expectFieldErrors(await api.get("/api/orders/not-a-uuid", { key: a.key }), ["id"])
  })

  it("another account gets 404 for the order and never lists it", async () => {
    const order = (await createOrder(a, { customerId, amount: 777 })).body
    const foreign = expectError(await api.get(`/api/orders/${order.id}`, { key: b.key }), 404)
    expect(foreign).toEqual(expectError(await api.get(`/api/orders/${randomUUID()}`, { key: b.key }), 404))
    expect((await api.get("/api/orders", { key: b.key })).body.map((o: { id: string }) => o.id)).not.toContain(order.id)
    expect((await api.get(`/api/orders/${order.id}`, { key: a.key })).body).toEqual(order)
  })
})
