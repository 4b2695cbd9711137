import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, type Reply, signup } from "./support/http.ts"
import { freshCpf, newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * CONTRACT §6 on /public/v1 and across the interfaces: replays byte for byte with Idempotent-Replayed, a v2
 * charge's key reused on v1 is 422, concurrent refunds and withdrawals with one key make one.
 */

let server: TestServer
let api: Client
let key: string
const V1 = "/public/v1"
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

const replayed = (r: Reply) => r.headers.get("idempotent-replayed")
const v1Pix = () => ({
  method: "pix",
  amount: 5_000,
  customer: { name: "Maria Silva", email: "m@example.com", document: freshCpf() }
})

const paidV1 = async () => {
  const created = await api.post(`${V1}/transactions`, v1Pix(), { token: key })
  expect(created.status, created.text).toBe(201)
  const hash = created.body.data.hash as string
  const paid = await api.post(`/api/sandbox/transactions/${hash}/pay`, undefined, { key })
  expect(paid.status, paid.text).toBe(200)
  return hash
}

describe("idempotency on /public/v1 and across the interfaces", () => {
  it("v1 create: replay has the same status, content-type and body", async () => {
    const idem = randomUUID()
    const body = v1Pix()
    const first = await api.post(`${V1}/transactions`, body, { token: key, headers: { "idempotency-key": idem } })
    expect(first.status, first.text).toBe(201)
    const again = await api.post(`${V1}/transactions`, body, { token: key, headers: { "idempotency-key": idem } })
    expect(again.status).toBe(201)
    expect(again.text).toBe(first.text)
    expect(replayed(again)).toBe("true")
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"))
  })

  it("v1 full refund with an Idempotency-Key and no body: never a 500, and a 200 replays", async () => {
    const hash = await paidV1()
    const idem = randomUUID()
    const refund = () =>
      api.request("POST", `${V1}/transactions/${hash}/refund`, undefined, {
        token: key,
        // An empty body (Content-Length: 0), as undici writes it: set by hand, the header made undici refuse the
        // request once in a full run ("invalid content-length header"), before it reached the service.
        raw: "",
        headers: { "idempotency-key": idem, "content-type": "application/json" }
      })
    const first = await refund()
    expect(first.status, first.text).toBeLessThan(500)
    const second = await refund()
    expect(second.status, second.text).toBeLessThan(500)
    if (first.status === 200) {
      expect(second.text).toBe(first.text)
      expect(replayed(second)).toBe("true")
    }
  })

  it("v1 full refund with an Idempotency-Key and body {}: 200, then a replay", async () => {
    const hash = await paidV1()
    const idem = randomUUID()
    const refund = () =>
      api.post(`${V1}/transactions/${hash}/refund`, {}, { token: key, headers: { "idempotency-key": idem } })
    const first = await refund()
    expect(first.status, first.text).toBe(200)
    const second = await refund()
    expect(second.text).toBe(first.text)
    expect(replayed(second)).toBe("true")
  })

  it("a key of a v2 charge reused on v1 create: 422, nothing charged", async () => {
    const idem = randomUUID()
    const { amount, orderId } = await newOrder(api, key)
    const v2 = await api.post(PROCESS, pixBody(orderId, amount), { key, headers: { "idempotency-key": idem } })
    expect(v2.status, v2.text).toBe(201)
    const v1 = await api.post(`${V1}/transactions`, v1Pix(), { token: key, headers: { "idempotency-key": idem } })
    expect(v1.status, v1.text).toBe(422)
    expect(v1.body.code).toBe("idempotency_key_reused")
  })

  it("v1 refund: 10 concurrent with one key refund once", async () => {
    const hash = await paidV1()
    const idem = randomUUID()
    const replies = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.post(
          `${V1}/transactions/${hash}/refund`,
          { amount: 100 },
          { token: key, headers: { "idempotency-key": idem } }
        )
      )
    )
    const ok = replies.filter((r) => r.status === 200)
    expect(ok.length).toBeGreaterThanOrEqual(1)
    for (const r of replies.filter((r) => r.status !== 200)) expect(r.body.code, r.text).toBe("idempotency_key_in_use")
    const rows = await server.db.query("select count(*)::int as n from refunds where transaction_id = $1", [hash])
    expect(rows.rows[0].n).toBe(1)
  })

  it("v1 withdrawals: 10 concurrent with one key withdraw once", async () => {
    await paidV1()
    await paidV1()
    const idem = randomUUID()
    const BANK = { bank_code: "341", agency: "0001", account: "0123456", account_digit: "7", type: "checking" }
    const replies = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.post(
          `${V1}/withdrawals`,
          { amount: 100, bank_account: BANK },
          {
            token: key,
            headers: { "idempotency-key": idem }
          }
        )
      )
    )
    const ok = replies.filter((r) => r.status === 201)
    expect(ok.length, replies.map((r) => r.text).join("\n")).toBeGreaterThanOrEqual(1)
    for (const r of replies.filter((r) => r.status !== 201)) expect(r.body.code, r.text).toBe("idempotency_key_in_use")
    const ids = new Set(ok.map((r) => r.body.data.id))
    expect(ids.size).toBe(1)
  })
})
