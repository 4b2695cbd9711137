import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  chargePix,
  deliveries,
  eventRows,
  ISO_UTC,
  newMerchant,
  registerWebhook,
  sandboxPay,
  sleep,
  until
} from "./support/payments-fixtures.ts"
import { jsonBody, type Receiver, startReceiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Webhook management (interface-v2 "Webhook management", CONTRACT §8): one URL per account, upsert
 * 201 / 200 keeping the secret, GET, DELETE, and what DELETE does to deliveries still pending.
 */

const SECRET = /^whsec_[A-Za-z0-9+/=]+$/

let server: TestServer
const receivers: Receiver[] = []
beforeAll(async () => {
  server = await startTestServer({
    webhookAllowPrivateUrls: true,
    webhookRetrySchedule: [1, 2, 3],
    webhookTimeoutMs: 3000,
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

describe("registration", () => {
  it("upsert 201, again 200 with the same secret; GET the same shape; DELETE 204 then 404", async () => {
    const m = await newMerchant(server.baseUrl)
    const none = await m.api.get("/api/webhooks", { key: m.key })
    expect(none.status, none.text).toBe(404)
    expect(none.body.statusCode).toBe(404)
    expect((await m.api.del("/api/webhooks", { key: m.key })).status).toBe(404)

    const created = await m.api.post("/api/webhooks/upsert", { url: "http://127.0.0.1:9/first" }, { key: m.key })
    expect(created.status, created.text).toBe(201)
    expect(created.body).toEqual({
      url: "http://127.0.0.1:9/first",
      secret: expect.stringMatching(SECRET),
      createdAt: expect.stringMatching(ISO_UTC),
      updatedAt: expect.stringMatching(ISO_UTC)
    })
    expect(Buffer.from(created.body.secret.slice("whsec_".length), "base64").length).toBeGreaterThanOrEqual(24)
    const fetched = await m.api.get("/api/webhooks", { key: m.key })
    expect(fetched.status).toBe(200)
    expect(fetched.body).toEqual(created.body)

    await sleep(20)
    const replaced = await m.api.post("/api/webhooks/upsert", { url: "http://127.0.0.1:9/second" }, { key: m.key })
    expect(replaced.status, replaced.text).toBe(200)
    expect(replaced.body).toEqual({
      url: "http://127.0.0.1:9/second",
      secret: created.body.secret,
      createdAt: created.body.createdAt,
      updatedAt: expect.stringMatching(ISO_UTC)
    })
    expect(Date.parse(replaced.body.updatedAt)).toBeGreaterThan(Date.parse(created.body.updatedAt))
    expect((await m.api.get("/api/webhooks", { key: m.key })).body).toEqual(replaced.body)

    // Another account sees nothing of it.
    const other = await newMerchant(server.baseUrl)
    expect((await other.api.get("/api/webhooks", { key: other.key })).status).toBe(404)

    const removed = await m.api.del("/api/webhooks", { key: m.key })
    expect(removed.status, removed.text).toBe(204)
    expect(removed.text).toBe("")
    expect((await m.api.get("/api/webhooks", { key: m.key })).status).toBe(404)
    expect((await m.api.del("/api/webhooks", { key: m.key })).status).toBe(404)

    // Registering again after a delete is a new registration with a new secret.
    const again = await m.api.post("/api/webhooks/upsert", { url: "http://127.0.0.1:9/third" }, { key: m.key })
    expect(again.status, again.text).toBe(201)
    expect(again.body.secret).toMatch(SECRET)
    expect(again.body.secret).not.toBe(created.body.secret)
  })

  it("an upsert without a url, or with a non-string url, is a 400 naming url; no API key is a 401", async () => {
    const m = await newMerchant(server.baseUrl)
    for (const body of [{}, { url: 42 }, { url: null }]) {
      const reply = await m.api.post("/api/webhooks/upsert", body, { key: m.key })
      expect(reply.status, `${JSON.stringify(body)}: ${reply.text}`).toBe(400)
      expect(reply.body.message).toMatch(/url/)
    }
    expect((await m.api.post("/api/webhooks/upsert", { url: "http://127.0.0.1:9/x" })).status).toBe(401)
    expect((await m.api.get("/api/webhooks")).status).toBe(401)
    expect((await m.api.get("/api/webhooks", { key: m.key })).status).toBe(404)
  })
})

describe("a refused URL", () => {
  it("is a 400 whose message says why once (issue 23: it said 'url url must use https')", async () => {
    const m = await newMerchant(server.baseUrl)
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["ftp://127.0.0.1/hooks", "url must use https"],
      ["https://user:pw@127.0.0.1/hooks", "url must not contain credentials"],
      ["not a url", "url is not a valid absolute URL"]
    ]
    for (const [url, message] of cases) {
      const reply = await m.api.post("/api/webhooks/upsert", { url }, { key: m.key })
      expect(reply.status, reply.text).toBe(400)
      expect(reply.body).toMatchObject({ message, errors: [{ field: "url", message }] })
    }
  })
})

describe.concurrent("DELETE and deliveries", () => {
  it("drops pending deliveries (FAILED, nextRetryAt null) and nothing reaches the receiver afterwards", async ({
    expect
  }) => {
    const r = await receiver()
    r.respond({ status: 500 })
    const m = await newMerchant(server.baseUrl)
    await registerWebhook(m, r.url)
    const first = await chargePix(m)
    await chargePix(m)
    await r.waitFor((rs) => new Set(rs.map((x) => x.headers["webhook-id"])).size === 2, 10_000, "both first attempts")
    const pending = await until(
      "both deliveries PENDING with a retry scheduled",
      async () => {
        const list = await deliveries(m)
        return list.length === 2 &&
          list.every((d) => d.status === "PENDING" && d.attempts >= 1 && d.nextRetryAt !== null)
          ? list
          : undefined
      },
      5_000,
      50
    )
    expect(pending).toHaveLength(2)

    const removed = await m.api.del("/api/webhooks", { key: m.key })
    expect(removed.status).toBe(204)
    const deletedAt = Date.now()
    const seenBefore = r.requests.length

    const dropped = await deliveries(m)
    expect(dropped.map((d) => ({ status: d.status, nextRetryAt: d.nextRetryAt }))).toEqual([
      { status: "FAILED", nextRetryAt: null },
      { status: "FAILED", nextRetryAt: null }
    ])
    // A state change after the delete: its event is recorded, but no delivery is created.
    expect((await sandboxPay(m, first.transactionId)).status).toBe(200)
    await sleep(4_000) // past every retry the schedule had left
    expect(r.requests.filter((x) => x.arrivedAt > deletedAt)).toEqual([])
    expect(r.requests).toHaveLength(seenBefore)
    const after = await deliveries(m)
    expect(after).toHaveLength(2)
    expect(after.every((d) => d.status === "FAILED" && d.nextRetryAt === null)).toBe(true)
    expect((await eventRows(server.db, first.transactionId)).map((e) => e.type)).toContain("transaction.paid")
  })

  it("a delivery whose attempt is in flight during DELETE stays dropped, even once a new URL is registered", async ({
    expect
  }) => {
    // The attempt in flight answers 500 after 300 ms, well before its retry (1 s after it started) is due.
    const old = await receiver()
    old.respond({ status: 500, delayMs: 300 })
    const m = await newMerchant(server.baseUrl)
    await registerWebhook(m, old.url)
    await chargePix(m)
    const [inFlight] = await old.waitFor((rs) => rs.length >= 1, 10_000, "attempt in flight")
    const deliveryId = inFlight!.headers["webhook-id"]!
    expect((await m.api.del("/api/webhooks", { key: m.key })).status).toBe(204)
    await old.waitFor((rs) => rs[0]!.closedAt !== undefined, 5_000, "the in-flight attempt answered")
    await sleep(200) // the worker records the outcome of that attempt

    const [record] = await deliveries(m)
    expect(record, "the delivery dropped by DELETE, after its in-flight attempt").toMatchObject({
      deliveryId,
      status: "FAILED",
      nextRetryAt: null
    })

    // A new URL receives new events, not the dropped one.
    const fresh = await receiver()
    await registerWebhook(m, fresh.url)
    const next = await chargePix(m)
    await fresh.waitFor(
      (rs) => rs.some((x) => jsonBody(x)?.data?.transactionId === next.transactionId),
      10_000,
      "the new event at the new URL"
    )
    await sleep(3_000)
    expect(
      fresh.requests.filter((x) => x.headers["webhook-id"] === deliveryId),
      "the dropped delivery sent to the new URL"
    ).toEqual([])
    expect(old.requests).toHaveLength(1)
    expect((await deliveries(m)).find((d) => d.deliveryId === deliveryId)).toMatchObject({
      status: "FAILED",
      nextRetryAt: null
    })
  })

  it("another account can neither see nor retry this account's deliveries (404)", async ({ expect }) => {
    const r = await receiver()
    const owner = await newMerchant(server.baseUrl)
    await registerWebhook(owner, r.url)
    await chargePix(owner)
    const [request] = await r.waitFor((rs) => rs.length >= 1, 10_000, "a delivery")
    const deliveryId = request!.headers["webhook-id"]!
    await until("delivered", async () =>
      (await deliveries(owner)).some((d) => d.status === "SUCCESS") ? true : undefined
    )

    const stranger = await newMerchant(server.baseUrl)
    await registerWebhook(stranger, r.url)
    expect(await deliveries(stranger)).toEqual([])
    expect(await deliveries(stranger, "?status=SUCCESS")).toEqual([])
    const retry = await stranger.api.post(`/api/webhooks/deliveries/${deliveryId}/retry`, undefined, {
      key: stranger.key
    })
    expect(retry.status, retry.text).toBe(404)
    expect(retry.body.statusCode).toBe(404)
    await sleep(1_000)
    expect(r.requests).toHaveLength(1)
    // The owner can.
    const own = await owner.api.post(`/api/webhooks/deliveries/${deliveryId}/retry`, undefined, { key: owner.key })
    expect(own.status, own.text).toBe(202)
    expect(own.body).toMatchObject({ deliveryId, status: "PENDING" })
    await r.waitFor((rs) => rs.length === 2, 10_000, "the owner's retry")
  })
})
