import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signWebhook } from "../src/adapters/crypto/webhook-signature.ts"
import { EVENT_TYPES } from "../src/domain/events.ts"
import { client, signup } from "./support/http.ts"
import { CARDS, freshCpf, v1Card } from "./support/payments.ts"
import { chargePix, type Merchant, sandboxPay, until, UUID } from "./support/payments-fixtures.ts"
import { jsonBody, type Receiver, startReceiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Issue 20 §2 (docs/webhooks.md): the account's events with the payload that was delivered, deliveries
 * that keep their request and response, resend (one, and every failed one since a time) with the same
 * `webhook-id`, secret rotation with both signatures during the overlap, the test event; the same
 * operations under /api/dashboard with the login token, never an API key.
 */

let server: TestServer
const receivers: Array<Receiver> = []
beforeAll(async () => {
  // No retries: a refused attempt is FAILED at once, which is what resend-failed acts on.
  server = await startTestServer({
    webhookAllowPrivateUrls: true,
    webhookRetrySchedule: [],
    webhookTimeoutMs: 2000,
    rateLimitPerMinute: 100_000
  })
})
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()))
  await server?.close()
})

const receiver = async () => {
  const r = await startReceiver()
  receivers.push(r)
  return r
}

type Seller = Merchant & { readonly token: string }
const seller = async (): Promise<Seller> => {
  const api = client(server.baseUrl)
  const account = await signup(api, "Loja Operações")
  return { api, key: account.key, accountId: account.accountId, token: account.token }
}

const hook = async (m: Seller, url: string) => {
  const reply = await m.api.post("/api/webhooks/upsert", { url }, { key: m.key })
  expect([200, 201], reply.text).toContain(reply.status)
  return reply.body.secret as string
}

const verifies = (secret: string, headers: Readonly<Record<string, string>>, body: string) =>
  headers["webhook-signature"]!.split(" ").includes(
    signWebhook({
      secret,
      msgId: headers["webhook-id"]!,
      timestamp: Number(headers["webhook-timestamp"]),
      body
    })
  )

describe("events", () => {
  it("lists the account's events newest first with the payload delivered; filters, pages, 404s and auth", async () => {
    const m = await seller()
    const r = await receiver()
    await hook(m, r.url)
    const first = await chargePix(m, 12_345)
    expect((await sandboxPay(m, first.transactionId)).status).toBe(200)
    const second = await chargePix(m, 6_789)
    const delivered = await r.waitFor((rs) => rs.length >= 3, 10_000, "three deliveries")

    const all = await m.api.get("/api/events", { key: m.key })
    expect(all.status, all.text).toBe(200)
    expect(all.body.nextCursor).toBeNull()
    expect(all.body.events.map((e: any) => [e.type, e.transactionId])).toEqual([
      ["transaction.created", second.transactionId],
      ["transaction.paid", first.transactionId],
      ["transaction.created", first.transactionId]
    ])
    for (const event of all.body.events) {
      expect(event.id).toMatch(UUID)
      // The same payload the receiver got, byte for byte once parsed.
      const sent = delivered.find(
        (x) => jsonBody(x).event === event.type && jsonBody(x).data.transactionId === event.transactionId
      )
      expect(sent, event.type).toBeDefined()
      expect(event.payload).toEqual(JSON.parse(sent!.body))
    }

    const one = await m.api.get(`/api/events/${all.body.events[1].id}`, { key: m.key })
    expect(one.status, one.text).toBe(200)
    expect(one.body).toEqual(all.body.events[1])

    const ofFirst = await m.api.get(`/api/events?transactionId=${first.transactionId}`, { key: m.key })
    expect(ofFirst.body.events.map((e: any) => e.type)).toEqual(["transaction.paid", "transaction.created"])
    const paid = await m.api.get("/api/events?type=transaction.paid", { key: m.key })
    expect(paid.body.events.map((e: any) => e.transactionId)).toEqual([first.transactionId])
    const future = await m.api.get("/api/events?createdFrom=2999-01-01", { key: m.key })
    expect(future.body.events).toEqual([])

    // Keyset pages: limit 2, then the rest after the cursor.
    const page1 = await m.api.get("/api/events?limit=2", { key: m.key })
    expect(page1.body.events.map((e: any) => e.id)).toEqual(all.body.events.slice(0, 2).map((e: any) => e.id))
    expect(page1.body.nextCursor).toEqual(expect.any(String))
    const page2 = await m.api.get(`/api/events?limit=2&cursor=${page1.body.nextCursor}`, { key: m.key })
    expect(page2.status, page2.text).toBe(200)
    expect(page2.body.events.map((e: any) => e.id)).toEqual([all.body.events[2].id])
    expect(page2.body.nextCursor).toBeNull()

    for (const [query, field] of [
      ["limit=0", "limit"],
      ["limit=abc", "limit"],
      ["cursor=bogus", "cursor"],
      ["createdFrom=yesterday", "createdFrom"],
      ["colour=red", "colour"]
    ] as const) {
      const bad = await m.api.get(`/api/events?${query}`, { key: m.key })
      expect(bad.status, `${query}: ${bad.text}`).toBe(400)
      expect(bad.body.message, query).toContain(field)
    }

    // Another account: its ids are 404 and its list is empty.
    const other = await seller()
    expect((await other.api.get(`/api/events/${all.body.events[0].id}`, { key: other.key })).status).toBe(404)
    expect((await other.api.get("/api/events", { key: other.key })).body.events).toEqual([])

    // The dashboard twin: the login token only.
    const board = await m.api.get("/api/dashboard/events?limit=2", { token: m.token })
    expect(board.status, board.text).toBe(200)
    expect(board.body).toEqual(page1.body)
    expect((await m.api.get(`/api/dashboard/events/${all.body.events[0].id}`, { token: m.token })).body).toEqual(
      all.body.events[0]
    )
    expect((await m.api.get("/api/dashboard/events", { key: m.key })).status).toBe(401)
    expect((await m.api.get("/api/dashboard/events", { headers: { authorization: `Bearer ${m.key}` } })).status).toBe(
      401
    )
    expect((await other.api.get(`/api/dashboard/events/${all.body.events[0].id}`, { token: other.token })).status).toBe(
      404
    )
    // And the token is no API key.
    expect((await m.api.get("/api/events", { token: m.token })).status).toBe(401)
  })
})

describe("deliveries", () => {
  it("keep the request as sent and the response (status, first 4 KB, latency); resend keeps its id", async () => {
    const m = await seller()
    const r = await receiver()
    const secret = await hook(m, r.url)
    r.script({ status: 500, body: "x".repeat(5000) + "tail" })
    const charge = await chargePix(m)
    const [got] = await r.waitFor((rs) => rs.length >= 1, 10_000, "first attempt")
    const deliveryId = got!.headers["webhook-id"]!

    const detail = await until(
      "the attempt recorded",
      async () => {
        const reply = await m.api.get(`/api/webhooks/deliveries/${deliveryId}`, { key: m.key })
        return reply.body?.status === "FAILED" ? reply.body : undefined
      },
      5_000,
      50
    )
    expect(detail).toMatchObject({
      deliveryId,
      event: "transaction.created",
      url: r.url,
      status: "FAILED",
      attempts: 1,
      error: "HTTP 500",
      request: {
        headers: {
          "content-type": "application/json",
          "webhook-id": deliveryId,
          "webhook-timestamp": got!.headers["webhook-timestamp"],
          "webhook-signature": got!.headers["webhook-signature"]
        },
        body: got!.body
      },
      response: { status: 500, latencyMs: expect.any(Number) }
    })
    expect(detail.response.body).toBe("x".repeat(4096))
    expect(JSON.stringify(detail)).not.toContain(secret.slice("whsec_".length))
    expect(jsonBody(got!).data.transactionId).toBe(charge.transactionId)

    // Resend: the same webhook-id and body, signed again.
    const resent = await m.api.post(`/api/webhooks/deliveries/${deliveryId}/resend`, undefined, { key: m.key })
    expect(resent.status, resent.text).toBe(202)
    const twice = await r.waitFor((rs) => rs.length >= 2, 10_000, "the resend")
    expect(twice.map((x) => x.headers["webhook-id"])).toEqual([deliveryId, deliveryId])
    expect(twice[1]!.body).toBe(twice[0]!.body)
    const ok = await until(
      "the resend recorded",
      async () => {
        const reply = await m.api.get(`/api/webhooks/deliveries/${deliveryId}`, { key: m.key })
        return reply.body?.status === "SUCCESS" ? reply.body : undefined
      },
      5_000,
      50
    )
    expect(ok).toMatchObject({ attempts: 2, error: null, response: { status: 200, body: "ok" } })

    // Another account: 404, on the API and on the dashboard; an API key on the dashboard: 401.
    const other = await seller()
    expect((await other.api.get(`/api/webhooks/deliveries/${deliveryId}`, { key: other.key })).status).toBe(404)
    expect(
      (await other.api.post(`/api/webhooks/deliveries/${deliveryId}/resend`, undefined, { key: other.key })).status
    ).toBe(404)
    expect(
      (await other.api.get(`/api/dashboard/webhooks/deliveries/${deliveryId}`, { token: other.token })).status
    ).toBe(404)
    expect((await m.api.get(`/api/dashboard/webhooks/deliveries/${deliveryId}`, { key: m.key })).status).toBe(401)
    const listed = await m.api.get("/api/dashboard/webhooks/deliveries?status=SUCCESS", { token: m.token })
    expect(listed.status, listed.text).toBe(200)
    expect(listed.body.deliveries.map((d: any) => d.deliveryId)).toEqual([deliveryId])
    expect((await m.api.get("/api/dashboard/webhooks/deliveries", { key: m.key })).status).toBe(401)
    const board = await m.api.get(`/api/dashboard/webhooks/deliveries/${deliveryId}`, { token: m.token })
    expect(board.status, board.text).toBe(200)
    expect(board.body).toEqual(ok)
  })

  it("an unreachable receiver is recorded as such: no response, the error, the latency", async () => {
    const m = await seller()
    const r = await receiver()
    const url = r.url
    await r.close() // the port refuses connections now
    await hook(m, url)
    await chargePix(m)
    const detail = await until(
      "the refused attempt recorded",
      async () => {
        const [d] = (await m.api.get("/api/webhooks/deliveries", { key: m.key })).body.deliveries
        if (d?.status !== "FAILED") return undefined
        return (await m.api.get(`/api/webhooks/deliveries/${d.deliveryId}`, { key: m.key })).body
      },
      5_000,
      50
    )
    expect(detail.error).toBe("connection failed (ECONNREFUSED)")
    expect(detail.response).toEqual({ status: null, body: null, latencyMs: expect.any(Number) })
    expect(detail.request.headers["webhook-signature"]).toMatch(/^v1,/)
  })

  it("record where each attempt went: a resend after a URL change shows the new URL and its response", async () => {
    const m = await seller()
    const before = await receiver()
    await hook(m, before.url)
    before.respond({ status: 500 })
    const charge = await chargePix(m)
    const [got] = await before.waitFor((rs) => rs.length >= 1, 10_000, "the refused attempt")
    const deliveryId = got!.headers["webhook-id"]!
    const detailUntil = (status: string) =>
      until(
        `the delivery ${status}`,
        async () => {
          const reply = await m.api.get(`/api/webhooks/deliveries/${deliveryId}`, { key: m.key })
          return reply.body?.status === status ? reply.body : undefined
        },
        5_000,
        50
      )
    expect(await detailUntil("FAILED")).toMatchObject({ url: before.url, response: { status: 500 } })

    // The URL is replaced (200, the secret kept); the resend goes to the new one, and the record says so.
    const after = await receiver()
    await hook(m, after.url)
    const resent = await m.api.post(`/api/webhooks/deliveries/${deliveryId}/resend`, undefined, { key: m.key })
    expect(resent.status, resent.text).toBe(202)
    const [again] = await after.waitFor((rs) => rs.length >= 1, 10_000, "the resend at the new URL")
    expect(again!.headers["webhook-id"]).toBe(deliveryId)
    expect(await detailUntil("SUCCESS")).toMatchObject({
      url: after.url,
      attempts: 2,
      response: { status: 200, body: "ok" },
      error: null
    })
    expect(before.requests).toHaveLength(1)
    // The transaction's timeline on the dashboard shows the same URL.
    const board = await m.api.get(`/api/dashboard/transactions/${charge.transactionId}`, { token: m.token })
    expect(board.status, board.text).toBe(200)
    const delivery = board.body.timeline.find((e: any) => e.kind === "delivery" && e.detail.id === deliveryId)
    expect(delivery.detail).toMatchObject({ url: after.url, status: "SUCCESS", attempts: 2 })
  })

  it("filters by every name a delivery carries (v1's, withdrawals', the test event); another is a 400", async () => {
    const m = await seller()
    const r = await receiver()
    await hook(m, r.url)
    const refused = await m.api.post(
      "/public/v1/transactions",
      {
        method: "credit_card",
        amount: 5_000,
        installments: 1,
        customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" },
        card: v1Card(CARDS.declined)
      },
      { token: m.key }
    )
    expect(refused.status, refused.text).toBe(201)
    expect(refused.body.data.status).toBe("refused")
    const test = await m.api.post("/api/webhooks/test", undefined, { key: m.key })
    expect(test.status, test.text).toBe(202)
    const sent = await r.waitFor(
      (rs) => ["transaction.refused", "webhook.test"].every((name) => rs.some((x) => jsonBody(x).event === name)),
      10_000,
      "the refusal and the test event"
    )
    const refusedId = sent.find((x) => jsonBody(x).event === "transaction.refused")!.headers["webhook-id"]

    for (const name of EVENT_TYPES) {
      for (const [path, auth] of [
        ["/api/webhooks/deliveries", { key: m.key }],
        ["/api/dashboard/webhooks/deliveries", { token: m.token }]
      ] as const) {
        const reply = await m.api.get(`${path}?event=${name}`, auth)
        expect(reply.status, `${path} ${name}: ${reply.text}`).toBe(200)
        expect(
          reply.body.deliveries.every((d: any) => d.event === name),
          name
        ).toBe(true)
      }
    }
    const byName = async (name: string) =>
      (await m.api.get(`/api/webhooks/deliveries?event=${name}`, { key: m.key })).body.deliveries.map(
        (d: any) => d.deliveryId
      )
    expect(await byName("transaction.refused")).toEqual([refusedId])
    expect(await byName("webhook.test")).toEqual([test.body.deliveryId])
    for (const name of ["transaction.cancelled", "withdraw.paid", "withdraw.failed"])
      expect(await byName(name)).toEqual([])

    for (const name of ["transaction.unknown", "withdraw", "TRANSACTION.PAID"]) {
      const bad = await m.api.get(`/api/webhooks/deliveries?event=${name}`, { key: m.key })
      expect(bad.status, `${name}: ${bad.text}`).toBe(400)
      expect(bad.body.message, name).toContain("event")
    }
  })

  it("resend-failed queues every FAILED delivery created since the time, each with its own webhook-id", async () => {
    const m = await seller()
    const r = await receiver()
    await hook(m, r.url)
    r.respond({ status: 503 })
    await chargePix(m)
    await chargePix(m)
    await r.waitFor((rs) => rs.length >= 2, 10_000, "two refused attempts")
    await until(
      "both FAILED",
      async () => {
        const list = (await m.api.get("/api/webhooks/deliveries?status=FAILED", { key: m.key })).body.deliveries
        return list.length === 2 ? list : undefined
      },
      5_000,
      50
    )
    const ids = new Set(r.requests.map((x) => x.headers["webhook-id"]))
    r.respond({ status: 200, body: "ok" })

    const none = await m.api.post(
      "/api/webhooks/deliveries/resend-failed",
      { since: "2999-01-01T00:00:00Z" },
      {
        key: m.key
      }
    )
    expect(none.status, none.text).toBe(202)
    expect(none.body).toEqual({ resent: 0 })
    const bad = await m.api.post("/api/webhooks/deliveries/resend-failed", { since: "yesterday" }, { key: m.key })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain("since")
    // A day that does not exist is no instant (instant.ts), not 2 March.
    const rolled = { since: "2026-02-30T10:00:00Z" }
    const impossible = await m.api.post("/api/webhooks/deliveries/resend-failed", rolled, { key: m.key })
    expect(impossible.status, impossible.text).toBe(400)
    expect(impossible.body.errors.map((e: any) => e.field)).toEqual(["since"])

    const since = new Date(Date.now() - 60_000).toISOString()
    const reply = await m.api.post("/api/dashboard/webhooks/deliveries/resend-failed", { since }, { token: m.token })
    expect(reply.status, reply.text).toBe(202)
    expect(reply.body).toEqual({ resent: 2 })
    const all = await r.waitFor((rs) => rs.length >= 4, 10_000, "both resent")
    expect(new Set(all.slice(2).map((x) => x.headers["webhook-id"]))).toEqual(ids)
    await until(
      "both SUCCESS",
      async () => {
        const list = (await m.api.get("/api/webhooks/deliveries?status=SUCCESS", { key: m.key })).body.deliveries
        return list.length === 2 ? list : undefined
      },
      5_000,
      50
    )
  })
})

describe("secret rotation and the test event", () => {
  it("signs with both secrets during the overlap, with the new one alone once it ends", async () => {
    const m = await seller()
    const r = await receiver()
    const old = await hook(m, r.url)

    const test = await m.api.post("/api/webhooks/test", undefined, { key: m.key })
    expect(test.status, test.text).toBe(202)
    expect(test.body).toMatchObject({ event: "webhook.test", status: "PENDING", deliveryId: expect.any(String) })
    const [first] = await r.waitFor((rs) => rs.length >= 1, 10_000, "the test event")
    expect(first!.headers["webhook-id"]).toBe(test.body.deliveryId)
    expect(jsonBody(first!)).toMatchObject({ event: "webhook.test" })
    expect(first!.headers["webhook-signature"]!.split(" ")).toHaveLength(1)
    expect(verifies(old, first!.headers, first!.body)).toBe(true)

    const rotated = await m.api.post("/api/webhooks/rotate-secret", { overlapSeconds: 3600 }, { key: m.key })
    expect(rotated.status, rotated.text).toBe(200)
    const fresh = rotated.body.secret as string
    expect(fresh).toMatch(/^whsec_/)
    expect(fresh).not.toBe(old)
    const expiresIn = Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()
    expect(expiresIn).toBeGreaterThan(3590_000)
    expect(expiresIn).toBeLessThanOrEqual(3600_000)
    expect((await m.api.get("/api/webhooks", { key: m.key })).body.secret).toBe(fresh)

    await m.api.post("/api/dashboard/webhooks/test", undefined, { token: m.token })
    const [, second] = await r.waitFor((rs) => rs.length >= 2, 10_000, "the event during the overlap")
    expect(second!.headers["webhook-signature"]!.split(" ")).toHaveLength(2)
    expect(verifies(fresh, second!.headers, second!.body)).toBe(true)
    expect(verifies(old, second!.headers, second!.body)).toBe(true)

    // A rotation without overlap: the previous secret stops signing at once.
    const now = await m.api.post("/api/dashboard/webhooks/rotate-secret", { overlapSeconds: 0 }, { token: m.token })
    expect(now.status, now.text).toBe(200)
    await chargePix(m)
    const [, , third] = await r.waitFor((rs) => rs.length >= 3, 10_000, "the event after the overlap")
    expect(third!.headers["webhook-signature"]!.split(" ")).toHaveLength(1)
    expect(verifies(now.body.secret, third!.headers, third!.body)).toBe(true)
    expect(verifies(fresh, third!.headers, third!.body)).toBe(false)

    for (const body of [{ overlapSeconds: -1 }, { overlapSeconds: 604_801 }, { overlapSeconds: 1.5 }, { x: 1 }]) {
      const bad = await m.api.post("/api/webhooks/rotate-secret", body, { key: m.key })
      expect(bad.status, JSON.stringify(body)).toBe(400)
    }
    // Without a webhook: 404 for both actions.
    const bare = await seller()
    expect((await bare.api.post("/api/webhooks/rotate-secret", {}, { key: bare.key })).status).toBe(404)
    expect((await bare.api.post("/api/webhooks/test", undefined, { key: bare.key })).status).toBe(404)
    expect((await bare.api.post("/api/dashboard/webhooks/test", undefined, { key: bare.key })).status).toBe(401)
  })
})
