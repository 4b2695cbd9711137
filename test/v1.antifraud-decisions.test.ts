import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { cardBody, freshCpf, newOrder, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A review decided by two operators at once, or twice: one decision stands, and an order with two reviewed
 * attempts approved at once is paid by one charge only (docs/antifraud.md "Manual review").
 */

const V1 = "/public/v1"
const REVIEW_CARD = "4000000000000101"

let server: TestServer
let api: Client
let merchant: Awaited<ReturnType<typeof signup>>

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  merchant = await signup(api)
})
afterAll(async () => {
  await server?.close()
})

const reviewCharge = async () => {
  const reply = await api.post(
    `${V1}/transactions`,
    {
      method: "credit_card",
      amount: 10_000,
      customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "8.8.8.8" },
      card: {
        number: REVIEW_CARD,
        holder_name: "MARIA SILVA",
        exp_month: "12",
        exp_year: String(new Date().getUTCFullYear() + 3),
        cvv: "123"
      }
    },
    { token: merchant.key }
  )
  expect(reply.status, reply.text).toBe(201)
  expect(reply.body.data.status).toBe("antifraud")
  return reply.body.data.hash as string
}
const sandboxDecide = (id: string, decision: string) =>
  api.post(`/api/sandbox/transactions/${id}/antifraud`, { decision }, { key: merchant.key })
const dashboardDecide = (id: string, decision: string) =>
  api.post(`/api/dashboard/transactions/${id}/antifraud`, { decision }, { token: merchant.token })

describe("two operators deciding one review at once", () => {
  it("approve (sandbox) and reject (dashboard) concurrently: exactly one wins, state matches it", async () => {
    for (let i = 0; i < 6; i++) {
      const id = await reviewCharge()
      const [a, r] = await Promise.all([sandboxDecide(id, "approve"), dashboardDecide(id, "reject")])
      const ok = [a, r].filter((x) => x.status === 200)
      expect(ok.length, `${a.status} ${a.text} / ${r.status} ${r.text}`).toBe(1)
      for (const x of [a, r]) expect([200, 409], x.text).toContain(x.status)
      const row = await server.db.query("select status, antifraud from transactions where id = $1", [id])
      const expected = a.status === 200 ? "CAPTURED" : "DECLINED"
      expect(row.rows[0].status).toBe(expected)
      expect(row.rows[0].antifraud.decision).toBe(a.status === 200 ? "approve" : "reject")
    }
  })

  it("approve twice at once: one 200, one 409, captured once", async () => {
    for (let i = 0; i < 6; i++) {
      const id = await reviewCharge()
      const [a, b] = await Promise.all([sandboxDecide(id, "approve"), dashboardDecide(id, "approve")])
      expect([a.status, b.status].sort(), `${a.text} / ${b.text}`).toEqual([200, 409])
      const row = await server.db.query("select status from transactions where id = $1", [id])
      expect(row.rows[0].status).toBe("CAPTURED")
    }
  })

  it("two reviews of one /api order approved at once: the order is paid by one charge only", async () => {
    for (let i = 0; i < 4; i++) {
      const order = await newOrder(api, merchant.key)
      const one = await api.post(PROCESS, cardBody(order.orderId, order.amount, REVIEW_CARD), { key: merchant.key })
      const two = await api.post(PROCESS, cardBody(order.orderId, order.amount, REVIEW_CARD), { key: merchant.key })
      expect(one.status, one.text).toBeLessThan(300)
      expect(two.status, two.text).toBeLessThan(300)
      const ids = [one.body.transactionId as string, two.body.transactionId as string]
      const replies = await Promise.all([sandboxDecide(ids[0]!, "approve"), dashboardDecide(ids[1]!, "approve")])
      const rows = await server.db.query("select status from transactions where id = any($1::uuid[])", [ids])
      const captured = rows.rows.filter((r) => r.status === "CAPTURED").length
      expect(captured, replies.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join(" / ")).toBe(1)
    }
  })
})
