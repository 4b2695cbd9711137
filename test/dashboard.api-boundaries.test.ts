import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { cardBody, newOrder, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The dashboard API's boundaries (docs/dashboard.md "API"): another account's ids answer 404 on every route
 * that takes one, a state-changing request a cross-site form could send is refused, odd periods are a 4xx
 * not a 500, and a 401 says which credential to send (docs/api.md "Every 401 carries a WWW-Authenticate
 * challenge … saying what to send").
 */
let server: TestServer
let api: Client
let owner: Awaited<ReturnType<typeof signup>>
let stranger: Awaited<ReturnType<typeof signup>>
const foreign = { tx: "", link: "", delivery: "", event: "", key: "" }

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, webhookAllowPrivateUrls: true })
  api = client(server.baseUrl)
  owner = await signup(api, "Loja Dona")
  stranger = await signup(api, "Loja Estranha")
  const order = await newOrder(api, stranger.key, 4_200)
  const paid = await api.post(PROCESS, cardBody(order.orderId, 4_200), { key: stranger.key })
  expect(paid.status, paid.text).toBe(201)
  foreign.tx = paid.body.transactionId
  const s = { token: stranger.token }
  const link = await api.post(
    "/api/dashboard/payment-links",
    { name: "Camiseta", amount: 8_990, payment_methods: ["pix"] },
    s
  )
  expect(link.status, link.text).toBe(201)
  foreign.link = link.body.id
  const hook = await api.request("PUT", "/api/dashboard/webhook", { url: "http://127.0.0.1:9/hook" }, s)
  expect(hook.status, hook.text).toBe(200)
  const test = await api.post("/api/dashboard/webhooks/test", undefined, s)
  expect(test.status, test.text).toBeLessThan(300)
  foreign.delivery = test.body.deliveryId
  const events = await api.get("/api/dashboard/events", s)
  foreign.event = events.body.events[0].id
  const key = await api.post("/api/dashboard/api-keys", { label: "x", scopes: ["transactions:read"] }, s)
  expect(key.status, key.text).toBe(201)
  foreign.key = key.body.id
}, 120_000)
afterAll(async () => {
  await server?.close()
})

describe("the dashboard API's boundaries", () => {
  it("another account's ids answer 404 on every route that takes one", async () => {
    const o = { token: owner.token }
    const replies = {
      tx: await api.get(`/api/dashboard/transactions/${foreign.tx}`, o),
      refund: await api.post(`/api/dashboard/transactions/${foreign.tx}/refund`, {}, o),
      review: await api.post(`/api/dashboard/transactions/${foreign.tx}/antifraud`, { decision: "reject" }, o),
      linkEdit: await api.patch(`/api/dashboard/payment-links/${foreign.link}`, { name: "mine" }, o),
      linkOff: await api.post(`/api/dashboard/payment-links/${foreign.link}/deactivate`, undefined, o),
      linkTx: await api.get(`/api/dashboard/payment-links/${foreign.link}/transactions`, o),
      delivery: await api.get(`/api/dashboard/webhooks/deliveries/${foreign.delivery}`, o),
      resend: await api.post(`/api/dashboard/webhooks/deliveries/${foreign.delivery}/resend`, undefined, o),
      retry: await api.post(`/api/dashboard/deliveries/${foreign.delivery}/retry`, undefined, o),
      event: await api.get(`/api/dashboard/events/${foreign.event}`, o),
      revoke: await api.del(`/api/dashboard/api-keys/${foreign.key}`, o)
    }
    const statuses = Object.fromEntries(Object.entries(replies).map(([k, r]) => [k, r.status]))
    expect(statuses).toEqual(Object.fromEntries(Object.keys(replies).map((k) => [k, 404])))
  })

  it("a request a cross-site form can send (text/plain, urlencoded) changes nothing", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const reply = await api.request("PUT", "/api/dashboard/webhook", undefined, {
        token: owner.token,
        raw: '{"url":"http://127.0.0.1:9/evil"}',
        headers: { "content-type": type }
      })
      expect(reply.status, type).toBe(415)
    }
  })

  it("odd periods and filters are a 4xx, never a 500", async () => {
    const o = { token: owner.token }
    const paths = [
      "/transactions?from=0000-01-01",
      "/transactions?to=9999-12-31",
      "/transactions?from=0001-01-01T00:00:00%2B14:00",
      "/exports/transactions.csv?from=0000-01-01&to=9999-12-31",
      "/summary?from=9999-12-01&to=9999-12-31",
      "/summary?from=0000-01-01&to=0000-01-31",
      "/financials?from=0000-01-01&to=0000-01-31",
      "/customers?search=%25_%5C",
      "/transactions?metadata_key=a%27b&metadata_value=%22"
    ]
    const statuses: Record<string, number> = {}
    for (const p of paths) statuses[p] = (await api.get(`/api/dashboard${p}`, o)).status
    expect(
      Object.values(statuses).filter((s) => s >= 500),
      JSON.stringify(statuses)
    ).toEqual([])
  })

  it("a 401 of a dashboard route challenges for the login token it takes, not for an X-Api-Key", async () => {
    // docs/dashboard.md "API": the dashboard's credential is `Authorization: Bearer <accessToken>`; an
    // API key, as X-Api-Key, is itself a 401. docs/api.md: every 401 says "what to send".
    const missing = await api.get("/api/dashboard/me")
    expect(missing.status).toBe(401)
    const withKey = await api.get("/api/dashboard/me", { key: owner.key })
    expect(withKey.status).toBe(401)
    for (const reply of [missing, withKey]) {
      const challenge = reply.headers.get("www-authenticate") ?? ""
      expect(challenge, "the challenge names the credential the dashboard refuses").not.toContain("X-Api-Key")
      expect(challenge).toMatch(/^Bearer /)
    }
  })
})
