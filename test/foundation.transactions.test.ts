import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { customerAndOrder, expectError, expectFieldErrors } from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * /api/transactions (interface-v2 "Transactions"). Nothing in the foundation creates transactions, so
 * rows are inserted directly to check the read side: shape, order, isolation.
 */

type Account = Awaited<ReturnType<typeof signup>>

let server: TestServer
let api: Client
let a: Account
let b: Account
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  ;[a, b] = await Promise.all([signup(api, "Loja A"), signup(api, "Loja B")])
})
afterAll(async () => {
  await server?.close()
})

const insertTransaction = async (
  accountId: string,
  row: { orderId: string; method: string; amount: number; status: string; createdAt: string; updatedAt: string }
) => {
  const id = randomUUID()
  await server.db.query(
    `insert into transactions (id, account_id, order_id, method, amount, status, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [id, accountId, row.orderId, row.method, row.amount, row.status, row.createdAt, row.updatedAt]
  )
  return id
}

describe("GET /api/transactions", () => {
  it("200 [] for a new account", async () => {
    const reply = await api.get("/api/transactions", { key: b.key })
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual([])
    expect(reply.text).toBe("[]")
  })

  it("lists the account's transactions, newest first, with the spec's Transaction shape", async () => {
    const { order } = await customerAndOrder(api, a.key, 5000)
    const paidId = await insertTransaction(a.accountId, {
      orderId: order.id,
      method: "PIX",
      amount: 5000,
      status: "PAID",
      createdAt: "2026-01-02T03:04:05.678Z",
      updatedAt: "2026-01-02T03:10:00.000Z"
    })
    const pendingId = await insertTransaction(a.accountId, {
      orderId: order.id,
      method: "BOLETO",
      amount: 5000,
      status: "PENDING",
      createdAt: "2026-01-03T00:00:00.000Z",
      updatedAt: "2026-01-03T00:00:00.000Z"
    })
    const paid = {
      id: paidId,
      orderId: order.id,
      method: "PIX",
      amount: 5000,
      status: "PAID",
      createdAt: "2026-01-02T03:04:05.678Z",
      updatedAt: "2026-01-02T03:10:00.000Z"
    }
    const pending = {
      ...paid,
      id: pendingId,
      method: "BOLETO",
      status: "PENDING",
      createdAt: "2026-01-03T00:00:00.000Z",
      updatedAt: "2026-01-03T00:00:00.000Z"
    }

    const listed = await api.get("/api/transactions", { key: a.key })
    expect(listed.status).toBe(200)
    expect(listed.body).toEqual([pending, paid])

    const got = await api.get(`/api/transactions/${paidId}`, { key: a.key })
    expect(got.status).toBe(200)
    expect(got.body).toEqual(paid)
    expect(Object.keys(got.body).sort()).toEqual([
      "amount",
      "createdAt",
      "id",
      "method",
      "orderId",
      "status",
      "updatedAt"
    ])

    // Account B sees none of it.
    expectError(await api.get(`/api/transactions/${paidId}`, { key: b.key }), 404)
    expect((await api.get("/api/transactions", { key: b.key })).body).toEqual([])
  })
})

describe("GET /api/transactions/{transactionId}", () => {
  it("404 for an unknown id", async () => {
    const body = expectError(await api.get(`/api/transactions/${randomUUID()}`, { key: a.key }), 404)
    expect(body.message).toMatch(/transaction/i)
  })

  it("400 naming transactionId for a non-UUID", async () => {
    expectFieldErrors(await api.get("/api/transactions/not-a-uuid", { key: a.key }), ["transactionId"])
    expectFieldErrors(await api.get("/api/transactions/12345", { key: a.key }), ["transactionId"])
  })
})
