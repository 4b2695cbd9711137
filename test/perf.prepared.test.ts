import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import {
  CARDS,
  createCustomer,
  createOrder,
  newOrder,
  pixBody,
  PROCESS,
  REFUND,
  TOKENIZE,
  tokenCardBody,
  tokenizeBody
} from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Prepared statements and rolling deploys (issue 10, README "Performance"). The service keeps its
 * statements prepared per connection; PostgreSQL re-plans one by itself after a migration, but refuses
 * one whose result columns changed ("cached plan must not change result type"). So every statement names
 * its columns: a newer process adding columns to any table must not break the older one still serving.
 */

let server: TestServer
let api: Client

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

/** A merchant's everyday requests over every repository; each status is checked by the caller. */
const everyday = async () => {
  const account = await signup(api)
  const { token } = account
  const replies: Array<[string, { status: number; text: string }]> = []
  const note = (name: string, reply: { status: number; text: string }) => {
    replies.push([name, reply])
    return reply as { status: number; text: string; body: any }
  }
  note("login", await api.post("/api/auth/login", { email: account.email, password: account.password }))
  note("api key", await api.get("/api/api-keys/me", { token }))
  const regenerated = note("regenerate", await api.post("/api/api-keys/me/regenerate", undefined, { token }))
  const current = regenerated.body.fullKey as string
  const customer = await createCustomer(api, current)
  note("customer", await api.get(`/api/customers/${customer.id}`, { key: current }))
  note("customers", await api.get("/api/customers", { key: current }))
  const { orderId } = await newOrder(api, current, 5_000)
  note("order", await api.get(`/api/orders/${orderId}`, { key: current }))
  const pix = note("pix", await api.post(PROCESS, pixBody(orderId, 5_000), { key: current }))
  note("transaction", await api.get(`/api/transactions/${pix.body.transactionId}`, { key: current }))
  const card = note("tokenize", await api.post(TOKENIZE, tokenizeBody(customer.id, CARDS.visa), { key: current }))
  const second = await createOrder(api, current, customer.id, 3_000)
  const charged = note(
    "card",
    await api.post(PROCESS, tokenCardBody(second, 3_000, card.body.cardToken), { key: current })
  )
  note("refund", await api.post(REFUND, { transactionId: charged.body.transactionId, amount: 1_000 }, { key: current }))
  note(
    "v1",
    await api.post(
      "/public/v1/transactions",
      { method: "pix", amount: 1_500, customer: { name: "Maria", email: "m@example.com", document: "52998224725" } },
      { token: current }
    )
  )
  note("v1 list", await api.get("/public/v1/transactions", { token: current }))
  note("balance", await api.get("/public/v1/balance", { token: current }))
  return replies
}

describe("prepared statements across a migration (issue 10)", () => {
  it("a column added to every table while the service runs breaks none of its statements", async () => {
    // Twice, so that each statement is prepared on the connections the pool hands out.
    for (const [name, reply] of [...(await everyday()), ...(await everyday())])
      expect(reply.status, `${name}: ${reply.text}`).toBeLessThan(300)
    const { rows: tables } = await server.db.query<{ name: string }>(
      `select format('%I.%I', schemaname, tablename) as name from pg_tables where schemaname = 'public'`
    )
    expect(tables.length).toBeGreaterThan(10)
    for (const { name } of tables) await server.db.query(`alter table ${name} add column probe_added text`)
    for (const [name, reply] of [...(await everyday()), ...(await everyday())])
      expect(reply.status, `${name}: ${reply.text}`).toBeLessThan(300)
  })
})
