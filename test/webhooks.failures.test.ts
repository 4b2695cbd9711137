import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  chargePix,
  type DeliveryRecord,
  deliveries,
  deliveryOf,
  type Merchant,
  newMerchant,
  registerWebhook,
  sleep,
  until
} from "./support/payments-fixtures.ts"
import { jsonBody, type Receiver, startReceiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * What is not a successful delivery (CONTRACT §8: "succeeds only on HTTP 200 within WEBHOOK_TIMEOUT_MS;
 * redirects are not followed"), and the SSRF guard on webhook URLs, at registration and again at
 * every delivery.
 */

const TIMEOUT_MS = 500

/** allowPrivate so the local receiver can be registered; one worker, so a stuck attempt would stall the queue. */
let server: TestServer
/** The production default: only public https URLs. */
let strict: TestServer
const receivers: Receiver[] = []
beforeAll(async () => {
  ;[server, strict] = await Promise.all([
    startTestServer({
      webhookAllowPrivateUrls: true,
      webhookTimeoutMs: TIMEOUT_MS,
      webhookRetrySchedule: [1, 2, 3],
      workerConcurrency: 1,
      rateLimitPerMinute: 100_000
    }),
    startTestServer({ webhookAllowPrivateUrls: false, webhookRetrySchedule: [1, 1, 1], rateLimitPerMinute: 100_000 })
  ])
})
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()))
  await Promise.all([server?.close(), strict?.close()])
})

const receiver = async () => {
  const r = await startReceiver()
  receivers.push(r)
  return r
}

const setup = async () => {
  const r = await receiver()
  const merchant = await newMerchant(server.baseUrl)
  await registerWebhook(merchant, r.url)
  return { merchant, receiver: r }
}

/** Polls the record until `accept` holds, keeping each distinct state seen. */
const watch = async (m: Merchant, deliveryId: string, accept: (d: DeliveryRecord) => boolean, timeoutMs = 15_000) => {
  const seen: DeliveryRecord[] = []
  const last = await until(
    `delivery ${deliveryId}`,
    async () => {
      const d = (await deliveries(m)).find((x) => x.deliveryId === deliveryId)
      if (d && JSON.stringify(d) !== JSON.stringify(seen.at(-1))) seen.push(d)
      return d && accept(d) ? d : undefined
    },
    timeoutMs,
    50
  )
  return { last, seen }
}

describe.concurrent("failed attempts", () => {
  it("a redirect is a failed attempt with its status; the redirect target never gets a request", async ({ expect }) => {
    const { merchant, receiver: origin } = await setup()
    const elsewhere = await receiver()
    origin.respond({ redirect: elsewhere.url, status: 302 })
    await chargePix(merchant)
    const [first] = await origin.waitFor((rs) => rs.length >= 2, 15_000, "two attempts")
    const deliveryId = first!.headers["webhook-id"]!
    const { last } = await watch(merchant, deliveryId, (d) => d.attempts >= 2 && d.attemptedAt !== null)
    expect(last).toMatchObject({ status: "PENDING", httpStatus: 302, attempts: 2 })
    expect(last.nextRetryAt).not.toBeNull()
    expect(origin.requests.map((r) => r.answeredStatus)).toEqual([302, 302])
    await sleep(300)
    expect(elsewhere.connections()).toBe(0)
    expect(elsewhere.requests).toHaveLength(0)
  })

  it(
    "a 200 that arrives after the deadline, or whose body is still dripping " + "at the deadline, is not a success",
    async ({ expect }) => {
      const { merchant, receiver: r } = await setup()
      r.script({ status: 200, delayMs: TIMEOUT_MS + 700 }, { drip: { status: 200, chunks: 10, intervalMs: 200 } })
      const pix = await chargePix(merchant)
      const [first] = await r.waitFor((rs) => rs.length >= 1, 10_000, "first attempt")
      const id = first!.headers["webhook-id"]!
      const { last, seen } = await watch(merchant, id, (d) => d.status === "SUCCESS")
      expect(last).toMatchObject({ attempts: 3, httpStatus: 200 })
      for (const n of [1, 2]) {
        const failed = seen.find((d) => d.attempts === n)
        expect(failed, `record after attempt ${n}: ${JSON.stringify(seen)}`).toMatchObject({
          status: "PENDING",
          httpStatus: null
        })
      }
      expect(r.requests[0]!.closedAt! - r.requests[0]!.arrivedAt).toBeLessThan(TIMEOUT_MS + 600)
      expect(r.requests[1]!.completed, "the dripping body was cut off").toBe(false)
      expect(jsonBody(r.requests[2]!).data.transactionId).toBe(pix.transactionId)
    }
  )

  it("201 and 204 are failures; only a 200 succeeds", async ({ expect }) => {
    const { merchant, receiver: r } = await setup()
    r.script({ status: 201 }, { status: 204 })
    await chargePix(merchant)
    const [first] = await r.waitFor((rs) => rs.length >= 1, 10_000, "first attempt")
    const id = first!.headers["webhook-id"]!
    const { last, seen } = await watch(merchant, id, (d) => d.status === "SUCCESS")
    expect(last).toMatchObject({ status: "SUCCESS", attempts: 3, httpStatus: 200, nextRetryAt: null })
    expect(r.requests.map((x) => x.answeredStatus)).toEqual([201, 204, 200])
    expect(seen.find((d) => d.attempts === 1)).toMatchObject({ status: "PENDING", httpStatus: 201 })
    expect(seen.find((d) => d.attempts === 2)).toMatchObject({ status: "PENDING", httpStatus: 204 })
  })
})

describe("a receiver that never answers", () => {
  it(
    `a receiver that never answers fails after webhookTimeoutMs (${TIMEOUT_MS} ms) and does not ` +
      `stall the next delivery`,
    async () => {
      const { merchant, receiver: r } = await setup()
      r.script({ hang: true })
      const stuck = await chargePix(merchant)
      const [hung] = await r.waitFor((rs) => rs.length >= 1, 10_000, "the hanging attempt")
      const next = await chargePix(merchant)
      // One worker only: the second event is delivered only once the first attempt has given up.
      await r.waitFor(
        (rs) => rs.some((x) => jsonBody(x)?.data?.transactionId === next.transactionId && x.answeredStatus === 200),
        10_000,
        "the next delivery"
      )
      const nextRequest = r.requests.find((x) => jsonBody(x)?.data?.transactionId === next.transactionId)!
      expect(hung!.closedAt, "the sender closed the connection").toBeDefined()
      const heldFor = hung!.closedAt! - hung!.arrivedAt
      console.log(
        `hung attempt closed by the sender after ${heldFor} ms; next delivery ` +
          `${nextRequest.arrivedAt - hung!.arrivedAt} ms after it`
      )
      expect(heldFor).toBeGreaterThanOrEqual(TIMEOUT_MS - 150)
      expect(heldFor).toBeLessThan(TIMEOUT_MS + 1000)
      expect(hung!.answeredStatus).toBeUndefined()
      expect(nextRequest.arrivedAt - hung!.arrivedAt).toBeLessThan(TIMEOUT_MS + 2000)

      const row = await until("the timed-out attempt recorded", async () => {
        const d = await deliveryOf(server.db, stuck.transactionId, "transaction.created")
        return d && d.attempts >= 1 ? d : undefined
      })
      expect(row.http_status).toBeNull()
      expect(row.status).not.toBe("SUCCESS")
      expect(row.last_error).toMatch(/timeout/i)
    }
  )
})

describe.concurrent("URL guard with webhookAllowPrivateUrls false", () => {
  it("refuses plain http, loopback, private, link-local and metadata addresses, naming url", async ({ expect }) => {
    const merchant = await newMerchant(strict.baseUrl)
    const refused = [
      "http://example.com/hook",
      "https://127.0.0.1/hook",
      "https://localhost/hook",
      "https://10.0.0.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://0.0.0.0/hook",
      "https://192.168.1.10:8443/hook",
      "https://172.16.0.1/hook",
      "ftp://example.com/hook",
      "not a url"
    ]
    for (const url of refused) {
      const reply = await merchant.api.post("/api/webhooks/upsert", { url }, { key: merchant.key })
      expect(reply.status, `${url}: ${reply.text}`).toBe(400)
      expect(reply.body.statusCode).toBe(400)
      expect(reply.body.message, url).toMatch(/url/)
      expect(
        reply.body.errors?.map((e: { field: string }) => e.field),
        url
      ).toEqual(["url"])
    }
    expect((await merchant.api.get("/api/webhooks", { key: merchant.key })).status).toBe(404)
    // The same loopback URL is accepted where private URLs are allowed (the refusal is the setting's).
    const allowed = await newMerchant(server.baseUrl)
    const reply = await allowed.api.post(
      "/api/webhooks/upsert",
      { url: "http://127.0.0.1:9/hook" },
      { key: allowed.key }
    )
    expect(reply.status, reply.text).toBe(201)
  })

  it("refuses at delivery time a private URL stored before: the receiver never gets a connection", async ({
    expect
  }) => {
    const r = await receiver()
    const urls = [r.url, r.url.replace("http://", "https://")]
    const charges = []
    for (const url of urls) {
      const merchant = await newMerchant(strict.baseUrl)
      await strict.db.query("insert into webhooks (account_id, url, secret) values ($1, $2, $3)", [
        merchant.accountId,
        url,
        `whsec_${randomBytes(32).toString("base64")}`
      ])
      charges.push({ merchant, pix: await chargePix(merchant) })
    }
    for (const { pix } of charges) {
      // Attempts are made (the job ran) and refused before any connection.
      const row = await until(
        "two refused attempts",
        async () => {
          const d = await deliveryOf(strict.db, pix.transactionId, "transaction.created")
          return d && d.attempts >= 2 ? d : undefined
        },
        15_000
      )
      expect(row.status).not.toBe("SUCCESS")
      expect(row.http_status).toBeNull()
      expect(row.last_error ?? "").toMatch(/https|private/)
    }
    for (const { merchant } of charges) {
      const listed = await deliveries(merchant)
      expect(listed).toHaveLength(1)
      expect(listed[0]!.status).not.toBe("SUCCESS")
      expect(listed[0]!.httpStatus).not.toBe(200)
    }
    expect(r.connections()).toBe(0)
    expect(r.requests).toHaveLength(0)
  })
})
