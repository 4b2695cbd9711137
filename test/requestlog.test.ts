import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { randomCpf as freshCpf } from "./support/payments-fixtures.ts"
import { client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The request log (issue 20 §2, docs/webhooks.md "Request log"): the requests of the account's API keys
 * with method, path, status, latency, request id, Idempotency-Key and a redacted body; by API and by the
 * dashboard (login token only); purged by the cleanup job after REQUEST_LOG_RETENTION_DAYS.
 */

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, requestLogRetentionDays: 7 })
})
afterAll(async () => {
  await server?.close()
})

const PAN = "4242424242424242"
const CVV = "987"

const until = async <T>(what: string, probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> => {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe("the request log", () => {
  it("keeps each API-key request with its request id and Idempotency-Key, the card data redacted", async () => {
    const api = client(server.baseUrl)
    const m = await signup(api, "Loja Log")
    const charge = await api.post(
      "/public/v1/transactions",
      {
        method: "credit_card",
        amount: 10_000,
        customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" },
        card: { number: PAN, holder_name: "MARIA SILVA", exp_month: "12", exp_year: "2031", cvv: CVV }
      },
      { token: m.key, headers: { "idempotency-key": "order-77" } }
    )
    expect(charge.status, charge.text).toBe(201)
    const inQuery = await api.get(`/public/v1/installments?amount=1000&api_token=${m.key}`)
    expect(inQuery.status).toBe(200)

    const page = await until("both requests logged", async () => {
      const reply = await api.get("/api/request-log", { key: m.key })
      expect(reply.status, reply.text).toBe(200)
      // The list call itself is logged too, a moment later: look for the two made before.
      const found = reply.body.requests.filter((r: any) => r.path.startsWith("/public/v1"))
      return found.length === 2 ? found : undefined
    })
    const [installments, created] = page
    expect(created).toMatchObject({
      method: "POST",
      path: "/public/v1/transactions",
      status: 201,
      requestId: charge.headers.get("x-request-id"),
      idempotencyKey: "order-77",
      latencyMs: expect.any(Number),
      keyId: expect.any(String)
    })
    const body = JSON.parse(created.body)
    expect(body.card).toEqual({
      number: "[REDACTED]",
      holder_name: "MARIA SILVA",
      // The expiry goes too: with the number gone it says little, but nothing needs it in a log.
      exp_month: "[REDACTED]",
      exp_year: "[REDACTED]",
      cvv: "[REDACTED]"
    })
    expect(body.amount).toBe(10_000)
    expect(installments).toMatchObject({
      method: "GET",
      path: "/public/v1/installments?amount=1000&api_token=[REDACTED]",
      status: 200,
      body: null,
      idempotencyKey: null
    })
    // Nowhere in the table: the card number, the CVV as a field value, the API key.
    const rows = await server.db.query("select * from request_log")
    const stored = JSON.stringify(rows.rows)
    expect(stored).not.toContain(PAN)
    expect(stored).not.toContain(`"${CVV}"`)
    expect(stored).not.toContain(m.key)

    // Pages, the key filter, the dashboard twin, another account, an API key on the dashboard.
    const first = await api.get("/api/request-log?limit=1", { key: m.key })
    expect(first.body.requests).toHaveLength(1)
    const next = await api.get(`/api/request-log?limit=1&cursor=${first.body.nextCursor}`, { key: m.key })
    expect(next.status, next.text).toBe(200)
    expect(next.body.requests[0].id).not.toBe(first.body.requests[0].id)
    const byKey = await api.get(`/api/request-log?keyId=${created.keyId}`, { key: m.key })
    expect(byKey.body.requests.length).toBeGreaterThanOrEqual(2)
    const none = await api.get("/api/request-log?keyId=00000000-0000-4000-8000-000000000000", { key: m.key })
    expect(none.body.requests).toEqual([])
    expect((await api.get("/api/request-log?keyId=nope", { key: m.key })).status).toBe(400)

    const board = await api.get("/api/dashboard/request-log", { token: m.token })
    expect(board.status, board.text).toBe(200)
    expect(board.body.requests.map((r: any) => r.id)).toContain(created.id)
    expect((await api.get("/api/dashboard/request-log", { key: m.key })).status).toBe(401)
    const other = await signup(api, "Outra")
    expect((await api.get("/api/request-log", { key: other.key })).body.requests).toEqual([])
    // Only the other account's own line, if the log was flushed (every 200 ms) since its GET above: it failed
    // once when the flush fell between the two reads.
    const theirs: Array<{ method: string; path: string }> = (
      await api.get("/api/dashboard/request-log", { token: other.token })
    ).body.requests
    expect(theirs.map((r) => `${r.method} ${r.path}`)).toEqual(theirs.length === 0 ? [] : ["GET /api/request-log"])
  })

  it("keeps no CVV, card number or expiry of a card charge whose JSON is malformed (it answers 400)", async () => {
    const api = client(server.baseUrl)
    const m = await signup(api, "Loja Log Quebrada")
    // Authenticated before its body is decoded, so the request log sees it whole; a trailing comma.
    const text = JSON.stringify({
      method: "credit_card",
      amount: 10_000,
      card: { number: PAN, holder_name: "MARIA SILVA", exp_month: "12", exp_year: "2033", cvv: CVV }
    }).replace(/}$/, ",}")
    const reply = await api.post("/public/v1/transactions", undefined, { token: m.key, raw: text })
    expect(reply.status, reply.text).toBe(400)
    const logged = await until("the malformed request logged", async () => {
      const page = await api.get("/api/request-log", { key: m.key })
      return page.body.requests.find((r: any) => r.path === "/public/v1/transactions")
    })
    expect(logged.status).toBe(400)
    for (const secret of [PAN, "4242", CVV, "2033", '"12"']) expect(logged.body).not.toContain(secret)
    // The rest stays, to show the merchant what was wrong: the trailing comma.
    expect(logged.body).toContain('"holder_name":"MARIA SILVA"')
    expect(logged.body).toMatch(/,}$/)
  })

  it("is purged by the cleanup job after the retention (7 days here), nothing younger", async () => {
    const api = client(server.baseUrl)
    const m = await signup(api, "Loja Retenção")
    const line = (age: string, path: string) =>
      server.db.query(
        `insert into request_log (account_id, method, path, status, latency_ms, request_id, created_at)
         values ($1, 'GET', $2, 200, 1, 'r', now() - $3::interval)`,
        [m.accountId, path, age]
      )
    await line("8 days", "/old")
    await line("6 days", "/young")
    await server.db.query(`select graphile_worker.add_job('cleanup', '{}'::json)`)
    await until("the old line purged", async () => {
      const { rows } = await server.db.query(`select path from request_log where account_id = $1`, [m.accountId])
      return rows.length === 1 ? rows : undefined
    })
    const { rows } = await server.db.query(`select path from request_log where account_id = $1`, [m.accountId])
    expect(rows.map((r) => r.path)).toEqual(["/young"])
  })
})
