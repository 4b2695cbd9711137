import { randomUUID } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  CARDS,
  chargeCard,
  chargePix,
  type DeliveryRecord,
  deliveries,
  ISO_UTC,
  type Merchant,
  newMerchant,
  registerWebhook,
  sandboxPay,
  sleep,
  transaction,
  until,
  UUID
} from "./support/payments-fixtures.ts"
import { jsonBody, type ReceivedRequest, type Receiver, startReceiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Webhook delivery end to end (CONTRACT §8, interface-v2 Events): real PostgreSQL, the real
 * graphile-worker, real HTTP to a real local receiver. Signatures are checked with the independent
 * `standardwebhooks` package; retries against the configured schedule [1, 2, 3] s.
 */

const SCHEDULE = [1, 2, 3] as const

let server: TestServer
const receivers: Receiver[] = []
beforeAll(async () => {
  server = await startTestServer({
    webhookAllowPrivateUrls: true,
    webhookRetrySchedule: [...SCHEDULE],
    webhookTimeoutMs: 2000,
    rateLimitPerMinute: 100_000
  })
})
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()))
  await server?.close()
})

/** A fresh merchant whose webhook points at a fresh receiver. */
const setup = async () => {
  const receiver = await startReceiver()
  receivers.push(receiver)
  const merchant = await newMerchant(server.baseUrl)
  const { secret } = await registerWebhook(merchant, receiver.url)
  return { merchant, receiver, secret }
}

const deliveryFor = async (m: Merchant, deliveryId: string) =>
  (await deliveries(m)).find((d) => d.deliveryId === deliveryId)

/** Waits until the delivery of `event` for the transaction has reached `status` in GET /api/webhooks/deliveries. */
const settled = async (
  m: Merchant,
  receiver: Receiver,
  event: string,
  transactionId: string,
  status: DeliveryRecord["status"],
  timeoutMs = 15_000
) => {
  const [request] = await receiver
    .waitFor(
      (rs) => rs.some((r) => jsonBody(r)?.event === event && jsonBody(r)?.data?.transactionId === transactionId),
      timeoutMs,
      `${event} reaching the receiver`
    )
    .then(() => receiver.eventsFor(event, transactionId))
  const deliveryId = request!.headers["webhook-id"]!
  return until(
    `${event} delivery ${status}`,
    async () => {
      const d = await deliveryFor(m, deliveryId)
      return d?.status === status ? d : undefined
    },
    timeoutMs
  )
}

const verify = (secret: string, request: ReceivedRequest) => new Webhook(secret).verify(request.body, request.headers)

describe("a delivery", () => {
  it(
    "a PIX paid through the sandbox sends exactly one transaction.paid, " + "signed the Standard Webhooks way",
    async () => {
      const { merchant, receiver, secret } = await setup()
      const pix = await chargePix(merchant, 12_345)
      const paid = await sandboxPay(merchant, pix.transactionId)
      expect(paid.status, paid.text).toBe(200)
      expect(paid.body.status).toBe("PAID")

      const record = await settled(merchant, receiver, "transaction.paid", pix.transactionId, "SUCCESS")
      await sleep(1500) // room for a duplicate to show up
      const requests = receiver.eventsFor("transaction.paid", pix.transactionId)
      expect(requests).toHaveLength(1)
      const request = requests[0]!
      const listed = (await deliveries(merchant)).filter((d) => d.event === "transaction.paid")
      expect(listed).toHaveLength(1)

      // The independent library accepts it; a tampered body is refused (the check is real).
      expect(verify(secret, request)).toEqual(JSON.parse(request.body))
      expect(() => new Webhook(secret).verify(request.body.replace("12345", "12346"), request.headers)).toThrow()
      expect(() => verify(`whsec_${Buffer.alloc(32, 7).toString("base64")}`, request)).toThrow()

      expect(request.method).toBe("POST")
      expect(request.path).toBe("/hook")
      expect(request.headers["content-type"]).toMatch(/^application\/json\b/)
      expect(request.headers["webhook-id"]).toBe(record.deliveryId)
      expect(request.headers["webhook-id"]).toBe(listed[0]!.deliveryId)
      expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
      const timestamp = Number(request.headers["webhook-timestamp"])
      expect(String(timestamp)).toBe(request.headers["webhook-timestamp"])
      expect(Math.abs(timestamp - request.arrivedAt / 1000)).toBeLessThan(5)

      const detail = await transaction(merchant, pix.transactionId)
      expect(detail.status).toBe("PAID")
      const {
        rows: [stored]
      } = await server.db.query<{ paid_at: Date }>("select paid_at from transactions where id = $1", [
        pix.transactionId
      ])
      expect(jsonBody(request)).toEqual({
        event: "transaction.paid",
        created_at: expect.stringMatching(ISO_UTC),
        data: {
          transactionId: pix.transactionId,
          orderId: pix.orderId,
          amount: 12_345,
          method: "PIX",
          status: "PAID",
          paidAt: expect.stringMatching(ISO_UTC)
        }
      })
      const body = jsonBody(request)
      expect(Date.parse(body.data.paidAt)).toBe(stored!.paid_at.getTime())
      expect(Math.abs(Date.parse(body.created_at) - request.arrivedAt)).toBeLessThan(10_000)

      expect(record).toEqual({
        deliveryId: expect.stringMatching(UUID),
        event: "transaction.paid",
        status: "SUCCESS",
        httpStatus: 200,
        attemptedAt: expect.stringMatching(ISO_UTC),
        nextRetryAt: null,
        attempts: 1,
        createdAt: expect.stringMatching(ISO_UTC)
      })
    }
  )

  it("a new PIX sends transaction.created (PENDING, no paidAt), signed", async () => {
    const { merchant, receiver, secret } = await setup()
    const pix = await chargePix(merchant, 5_000)
    const record = await settled(merchant, receiver, "transaction.created", pix.transactionId, "SUCCESS")
    const [request] = receiver.eventsFor("transaction.created", pix.transactionId)
    expect(verify(secret, request!)).toBeTruthy()
    expect(request!.headers["webhook-id"]).toBe(record.deliveryId)
    expect(jsonBody(request!)).toEqual({
      event: "transaction.created",
      created_at: expect.stringMatching(ISO_UTC),
      data: { transactionId: pix.transactionId, orderId: pix.orderId, amount: 5_000, method: "PIX", status: "PENDING" }
    })
    expect(receiver.requests).toHaveLength(1)
  })

  it("a CARD charge's events say method CREDIT_CARD; its capture is a transaction.paid with paidAt", async () => {
    const { merchant, receiver, secret } = await setup()
    const card = await chargeCard(merchant, CARDS.approved, 7_700)
    expect(card.status).toBe(201)
    expect(card.body.status).toBe("CAPTURED")
    await settled(merchant, receiver, "transaction.paid", card.transactionId, "SUCCESS")
    await settled(merchant, receiver, "transaction.created", card.transactionId, "SUCCESS")
    const [paid] = receiver.eventsFor("transaction.paid", card.transactionId)
    expect(verify(secret, paid!)).toBeTruthy()
    expect(jsonBody(paid!).data).toEqual({
      transactionId: card.transactionId,
      orderId: card.orderId,
      amount: 7_700,
      method: "CREDIT_CARD",
      status: "CAPTURED",
      paidAt: expect.stringMatching(ISO_UTC)
    })
    for (const r of receiver.requests) expect(jsonBody(r).data.method).toBe("CREDIT_CARD")
  })
})

/** Polls the delivery list until the record is final, keeping every distinct record seen on the way. */
const watch = async (m: Merchant, deliveryId: string, final: DeliveryRecord["status"], timeoutMs: number) => {
  const seen: DeliveryRecord[] = []
  const last = await until(
    `delivery ${final}`,
    async () => {
      const d = await deliveryFor(m, deliveryId)
      if (d && JSON.stringify(d) !== JSON.stringify(seen.at(-1))) seen.push(d)
      return d?.status === final ? d : undefined
    },
    timeoutMs,
    50
  )
  return { seen, last }
}

describe.concurrent("retries", () => {
  it("500, 500, then 200 on schedule [1, 2, 3]: three attempts about 1 s and 2 s apart, then SUCCESS", async ({
    expect
  }) => {
    const { merchant, receiver, secret } = await setup()
    receiver.script({ status: 500 }, { status: 500 })
    const pix = await chargePix(merchant)
    const [first] = await receiver.waitFor((rs) => rs.length >= 1, 10_000, "first attempt")
    const deliveryId = first!.headers["webhook-id"]!
    const { last, seen } = await watch(merchant, deliveryId, "SUCCESS", 20_000)

    expect(last).toMatchObject({
      deliveryId,
      event: "transaction.created",
      status: "SUCCESS",
      attempts: 3,
      httpStatus: 200,
      nextRetryAt: null
    })
    await sleep(500)
    const attempts = receiver.requests.filter((r) => r.headers["webhook-id"] === deliveryId)
    expect(attempts.map((a) => a.answeredStatus)).toEqual([500, 500, 200])
    expect(receiver.requests).toHaveLength(3)
    // The frozen event is sent byte for byte each time, each attempt signed afresh.
    for (const a of attempts) {
      expect(a.body).toBe(attempts[0]!.body)
      expect(verify(secret, a)).toBeTruthy()
      expect(jsonBody(a).data.transactionId).toBe(pix.transactionId)
    }
    const gaps = [attempts[1]!.arrivedAt - attempts[0]!.arrivedAt, attempts[2]!.arrivedAt - attempts[1]!.arrivedAt]
    console.log(`retry gaps (ms) for schedule [1, 2]: ${gaps.join(", ")}`)
    gaps.forEach((gap, i) => {
      const seconds = SCHEDULE[i]! * 1000
      expect(gap).toBeGreaterThanOrEqual(0.8 * seconds)
      expect(gap).toBeLessThanOrEqual(2 * seconds + 1500)
    })

    // While failing the record said so: PENDING, the receiver's 500, and when the next attempt is due
    // (the schedule's delay ±10% after the attempt).
    for (const n of [1, 2]) {
      const failing = seen.find((d) => d.attempts === n && d.status === "PENDING" && d.httpStatus === 500)
      expect(failing, `a PENDING record after attempt ${n}: ${JSON.stringify(seen)}`).toBeDefined()
      expect(failing!.nextRetryAt).toMatch(ISO_UTC)
      const delay = Date.parse(failing!.nextRetryAt!) - Date.parse(failing!.attemptedAt!)
      expect(delay).toBeGreaterThanOrEqual(0.9 * SCHEDULE[n - 1]! * 1000 - 2)
      expect(delay).toBeLessThanOrEqual(1.1 * SCHEDULE[n - 1]! * 1000 + 2)
    }
  })

  it(
    "a receiver that always fails gets 1 + schedule.length attempts, then " + "FAILED; a manual retry sends it again",
    async ({ expect }) => {
      const { merchant, receiver } = await setup()
      receiver.respond({ status: 500 })
      await chargePix(merchant)
      const [first] = await receiver.waitFor((rs) => rs.length >= 1, 10_000, "first attempt")
      const deliveryId = first!.headers["webhook-id"]!
      const { last } = await watch(merchant, deliveryId, "FAILED", 30_000)
      expect(last).toMatchObject({
        deliveryId,
        status: "FAILED",
        attempts: 1 + SCHEDULE.length,
        httpStatus: 500,
        nextRetryAt: null
      })
      await sleep(2000) // no attempt beyond the schedule
      expect(receiver.requests.map((r) => r.headers["webhook-id"])).toEqual(Array(1 + SCHEDULE.length).fill(deliveryId))

      // Manual retry: 202 with the record PENDING, then one more attempt reaches the receiver.
      receiver.respond({ status: 200 })
      const retry = await merchant.api.post(`/api/webhooks/deliveries/${deliveryId}/retry`, undefined, {
        key: merchant.key
      })
      expect(retry.status, retry.text).toBe(202)
      expect(retry.body).toMatchObject({ deliveryId, event: "transaction.created", status: "PENDING" })
      await receiver.waitFor((rs) => rs.length === 2 + SCHEDULE.length, 10_000, "the manual retry's attempt")
      const { last: after } = await watch(merchant, deliveryId, "SUCCESS", 10_000)
      expect(after).toMatchObject({
        status: "SUCCESS",
        httpStatus: 200,
        attempts: 2 + SCHEDULE.length,
        nextRetryAt: null
      })
      expect(receiver.requests.at(-1)!.headers["webhook-id"]).toBe(deliveryId)
      expect(receiver.requests.at(-1)!.answeredStatus).toBe(200)
    }
  )

  it("a resend of a spent delivery (one, or resend-failed) retries on a fresh schedule; attempts counts all", async ({
    expect
  }) => {
    const { merchant, receiver } = await setup()
    receiver.respond({ status: 500 })
    await chargePix(merchant)
    const [first] = await receiver.waitFor((rs) => rs.length >= 1, 10_000, "first attempt")
    const deliveryId = first!.headers["webhook-id"]!
    const spent = 1 + SCHEDULE.length
    expect((await watch(merchant, deliveryId, "FAILED", 30_000)).last.attempts).toBe(spent)

    /** After a resend: a refusal, then the schedule's first delay (not FAILED at once), then a success. */
    const resentOnSchedule = async (resend: () => Promise<{ status: number; text: string }>, before: number) => {
      receiver.script({ status: 500 })
      receiver.respond({ status: 200 })
      const reply = await resend()
      expect(reply.status, reply.text).toBe(202)
      const { seen, last } = await watch(merchant, deliveryId, "SUCCESS", 15_000)
      const retrying = seen.find((d) => d.attempts === before + 1 && d.status === "PENDING" && d.httpStatus === 500)
      expect(retrying, `a PENDING record after the resent attempt: ${JSON.stringify(seen)}`).toBeDefined()
      const delay = Date.parse(retrying!.nextRetryAt!) - Date.parse(retrying!.attemptedAt!)
      expect(delay).toBeGreaterThanOrEqual(0.9 * SCHEDULE[0] * 1000 - 2)
      expect(delay).toBeLessThanOrEqual(1.1 * SCHEDULE[0] * 1000 + 2)
      expect(last).toMatchObject({ status: "SUCCESS", attempts: before + 2, httpStatus: 200, nextRetryAt: null })
    }
    // Every failed delivery since a minute ago, then this one alone once its schedule is spent again.
    await resentOnSchedule(
      () =>
        merchant.api.post(
          "/api/webhooks/deliveries/resend-failed",
          { since: new Date(Date.now() - 60_000).toISOString() },
          { key: merchant.key }
        ),
      spent
    )
    receiver.respond({ status: 500 })
    await merchant.api.post(`/api/webhooks/deliveries/${deliveryId}/resend`, undefined, { key: merchant.key })
    const { last: again } = await watch(merchant, deliveryId, "FAILED", 30_000)
    expect(again.attempts).toBe(2 * spent + 2)
    await resentOnSchedule(
      () => merchant.api.post(`/api/webhooks/deliveries/${deliveryId}/resend`, undefined, { key: merchant.key }),
      2 * spent + 2
    )
    expect(receiver.requests.filter((r) => r.headers["webhook-id"] === deliveryId)).toHaveLength(2 * spent + 4)
  })
})

describe("the delivery list and manual retry", () => {
  it("filters by status and event, newest first; an unknown status or event is a 400", async () => {
    const { merchant, receiver } = await setup()
    // transaction.created hangs (stays PENDING for a while), transaction.paid succeeds.
    receiver.respond((r) => (jsonBody(r)?.event === "transaction.created" ? { hang: true } : { status: 200 }))
    const pix = await chargePix(merchant)
    await receiver.waitFor((rs) => rs.length >= 1, 10_000, "created in flight")
    expect((await sandboxPay(merchant, pix.transactionId)).status).toBe(200)
    const paid = await settled(merchant, receiver, "transaction.paid", pix.transactionId, "SUCCESS")
    const all = await deliveries(merchant)
    expect(all.map((d) => d.event)).toEqual(["transaction.paid", "transaction.created"])
    const created = all[1]!
    expect(created.status).toBe("PENDING")

    expect(await deliveries(merchant, "?status=SUCCESS")).toEqual([paid])
    expect((await deliveries(merchant, "?status=PENDING")).map((d) => d.deliveryId)).toEqual([created.deliveryId])
    expect(await deliveries(merchant, "?status=FAILED")).toEqual([])
    expect(await deliveries(merchant, "?event=transaction.paid")).toEqual([paid])
    expect((await deliveries(merchant, "?event=transaction.created")).map((d) => d.deliveryId)).toEqual([
      created.deliveryId
    ])
    expect(await deliveries(merchant, "?event=transaction.refunded")).toEqual([])
    expect(await deliveries(merchant, "?status=SUCCESS&event=transaction.paid")).toEqual([paid])
    expect(await deliveries(merchant, "?status=SUCCESS&event=transaction.created")).toEqual([])

    for (const query of ["?status=DONE", "?status=success", "?event=payment.confirmed"]) {
      const reply = await merchant.api.get(`/api/webhooks/deliveries${query}`, { key: merchant.key })
      expect(reply.status, `${query}: ${reply.text}`).toBe(400)
      expect(reply.body.statusCode).toBe(400)
      expect(reply.body.message).toMatch(query.startsWith("?status") ? /status/ : /event/)
    }
  })

  it("a retry of an unknown delivery is a 404; a malformed id a 400; no API key a 401", async () => {
    const { merchant } = await setup()
    const unknown = await merchant.api.post(`/api/webhooks/deliveries/${randomUUID()}/retry`, undefined, {
      key: merchant.key
    })
    expect(unknown.status, unknown.text).toBe(404)
    expect(unknown.body.statusCode).toBe(404)
    const malformed = await merchant.api.post("/api/webhooks/deliveries/not-a-uuid/retry", undefined, {
      key: merchant.key
    })
    expect(malformed.status, malformed.text).toBe(400)
    const anonymous = await merchant.api.get("/api/webhooks/deliveries")
    expect(anonymous.status).toBe(401)
  })
})
