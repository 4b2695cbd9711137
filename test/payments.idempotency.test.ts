import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, type Reply, signup } from "./support/http.ts"
import {
  CARDS,
  cardBody,
  expectError,
  expectFieldErrors,
  freshCpf,
  newOrder,
  orderStatus,
  pixBody,
  PROCESS,
  REFUND,
  UUID
} from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Idempotency-Key on process and refund (CONTRACT §6): one charge per key under concurrency,
 * byte-for-byte replays, 409 while running, 422 for another payload, canonical JSON, per-account
 * scope, what is and is not remembered, the key's format, and the 24-hour window.
 */

let server: TestServer
let api: Client
let key: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

const withKey = (idempotencyKey: string, apiKey = key) => ({
  key: apiKey,
  headers: { "idempotency-key": idempotencyKey }
})
const replayed = (reply: Reply) => reply.headers.get("idempotent-replayed")

const transactionsOf = async (orderId: string) =>
  (await server.db.query<{ id: string }>("select id from transactions where order_id = $1", [orderId])).rows.map(
    (r) => r.id
  )

describe("process", () => {
  it(
    "50 concurrent identical requests with one key: one transaction, identical 201 " +
      "bodies or 409 in use; then a byte-for-byte replay",
    async () => {
      const { amount, orderId } = await newOrder(api, key)
      const body = pixBody(orderId, amount)
      const idem = randomUUID()
      const replies = await Promise.all(Array.from({ length: 50 }, () => api.post(PROCESS, body, withKey(idem))))

      expect(await transactionsOf(orderId)).toHaveLength(1)
      const created = replies.filter((r) => r.status === 201)
      expect(created.length).toBeGreaterThanOrEqual(1)
      for (const r of replies.filter((r) => r.status !== 201)) expectError(r, 409, "idempotency_key_in_use")
      const original = created[0]!.text
      for (const r of created) expect(r.text).toBe(original)
      // Exactly one of them ran; any other 201 was a replay.
      expect(created.filter((r) => replayed(r) !== "true")).toHaveLength(1)
      expect(JSON.parse(original).transactionId).toBe((await transactionsOf(orderId))[0])

      const replay = await api.post(PROCESS, body, withKey(idem))
      expect(replay.status).toBe(201)
      expect(replay.text).toBe(original)
      expect(replayed(replay)).toBe("true")
      expect(await transactionsOf(orderId)).toHaveLength(1)
    }
  )

  it("concurrent identical CARD requests with one key charge once", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const body = cardBody(orderId, amount, CARDS.mastercard)
    const idem = randomUUID()
    const replies = await Promise.all(Array.from({ length: 10 }, () => api.post(PROCESS, body, withKey(idem))))
    const created = replies.filter((r) => r.status === 201)
    expect(created.length).toBeGreaterThanOrEqual(1)
    for (const r of created) expect(r.text).toBe(created[0]!.text)
    for (const r of replies.filter((r) => r.status !== 201)) expectError(r, 409, "idempotency_key_in_use")
    expect(await transactionsOf(orderId)).toHaveLength(1)
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
  })

  it("a PIX charge and its stored reply commit in one database transaction, on /api and on v1", async () => {
    // Issue 10: the reply is written just before the charge's COMMIT, not by a statement of its own after
    // it. Both rows then carry the same writing transaction id (xmin); a separate completion would not.
    const stored = async (idem: string, transactionId: string) =>
      (
        await server.db.query<{ same: boolean; body: string }>(
          `select k.xmin::text = t.xmin::text as same, k.response_body as body
           from idempotency_keys k, transactions t where k.key = $1 and t.id = $2`,
          [idem, transactionId]
        )
      ).rows[0]
    const { amount, orderId } = await newOrder(api, key)
    const idem = randomUUID()
    const v2 = await api.post(PROCESS, pixBody(orderId, amount), withKey(idem))
    expect(v2.status, v2.text).toBe(201)
    expect(await stored(idem, v2.body.transactionId)).toEqual({ same: true, body: v2.text })

    const v1Idem = randomUUID()
    const v1 = await api.post(
      "/public/v1/transactions",
      { method: "pix", amount: 5_000, customer: { name: "Maria Silva", email: "m@example.com", document: freshCpf() } },
      { token: key, headers: { "idempotency-key": v1Idem } }
    )
    expect(v1.status, v1.text).toBe(201)
    expect(await stored(v1Idem, v1.body.data.hash)).toEqual({ same: true, body: v1.text })

    // A card's outcome comes after the acquirer's answer: its reply is stored after, and still replays.
    const card = await newOrder(api, key)
    const cardIdem = randomUUID()
    const charged = await api.post(PROCESS, cardBody(card.orderId, card.amount, CARDS.mastercard), withKey(cardIdem))
    expect(charged.status, charged.text).toBe(201)
    expect(await stored(cardIdem, charged.body.transactionId)).toEqual({ same: false, body: charged.text })
  })

  it("a request refused its scope (403) or its rate-limit slot (429) claims nothing: the key stays new", async () => {
    // Issue 10: the claim is made in the admission's round trip, only once the request got its slot.
    const other = await signup(api)
    const { amount, orderId } = await newOrder(api, other.key)
    const idem = randomUUID()
    const claims = async () =>
      (
        await server.db.query("select 1 from idempotency_keys where account_id = $1 and key = $2", [
          other.accountId,
          idem
        ])
      ).rowCount
    await server.db.query("update api_keys set scopes = '{customers:read}' where account_id = $1", [other.accountId])
    const forbidden = await api.post(PROCESS, pixBody(orderId, amount), withKey(idem, other.key))
    expect([forbidden.status, forbidden.body.code], forbidden.text).toEqual([403, "insufficient_permissions"])
    expect(await claims()).toBe(0)
    await server.db.query(
      `update api_keys k set scopes = null, rate_limit = c.count
       from rate_limit_counts c where c.key_id = k.id and k.account_id = $1`,
      [other.accountId]
    )
    const limited = await api.post(PROCESS, pixBody(orderId, amount), withKey(idem, other.key))
    expect([limited.status, limited.body.code], limited.text).toEqual([429, "rate_limit_exceeded"])
    expect(await claims()).toBe(0)
    await server.db.query("update api_keys set rate_limit = 100000 where account_id = $1", [other.accountId])
    const charged = await api.post(PROCESS, pixBody(orderId, amount), withKey(idem, other.key))
    expect(charged.status, charged.text).toBe(201)
    expect(replayed(charged)).toBeNull()
    expect(await claims()).toBe(1)
  })

  it("without a key, the same body charges again", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const body = pixBody(orderId, amount)
    const a = await api.post(PROCESS, body, { key })
    const b = await api.post(PROCESS, body, { key })
    expect([a.status, b.status]).toEqual([201, 201])
    expect(a.body.transactionId).not.toBe(b.body.transactionId)
    expect(replayed(b)).toBeNull()
  })

  it("the same key with another body: 422 idempotency_key_reused; on the refund path too", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const idem = randomUUID()
    const body = pixBody(orderId, amount)
    const first = await api.post(PROCESS, body, withKey(idem))
    expect(first.status, first.text).toBe(201)

    const other = await api.post(PROCESS, { ...body, buyerCellNumber: "(21) 99876-5432" }, withKey(idem))
    const error = expectError(other, 422, "idempotency_key_reused")
    expect(error.message).toBe("Idempotency key already used with different payload")

    const onRefund = await api.post(REFUND, { transactionId: first.body.transactionId }, withKey(idem))
    expect(expectError(onRefund, 422, "idempotency_key_reused").message).toBe(
      "Idempotency key already used with different payload"
    )
    expect(await transactionsOf(orderId)).toHaveLength(1)
  })

  it("the body is compared as canonical JSON: other key order and spacing replay", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const idem = randomUUID()
    const body = pixBody(orderId, amount)
    const first = await api.post(PROCESS, body, withKey(idem))
    expect(first.status, first.text).toBe(201)

    const reordered = Object.fromEntries(
      Object.entries(body)
        .reverse()
        .map(([k, v]) => [k, typeof v === "object" && v !== null ? Object.fromEntries(Object.entries(v).reverse()) : v])
    )
    const raw = JSON.stringify(reordered, null, 4).replace(/:/g, " :  ")
    expect(raw).not.toBe(JSON.stringify(body))
    const replay = await api.request("POST", PROCESS, undefined, { ...withKey(idem), raw })
    expect(replay.status, replay.text).toBe(201)
    expect(replay.text).toBe(first.text)
    expect(replayed(replay)).toBe("true")
    expect(await transactionsOf(orderId)).toHaveLength(1)
  })

  it("keys are scoped to the account: the same key in another account is a new request", async () => {
    const idem = randomUUID()
    const mine = await newOrder(api, key)
    const a = await api.post(PROCESS, pixBody(mine.orderId, mine.amount), withKey(idem))
    expect(a.status, a.text).toBe(201)

    const other = await signup(api, "Outra Loja")
    const theirs = await newOrder(api, other.key)
    const b = await api.post(PROCESS, pixBody(theirs.orderId, theirs.amount), withKey(idem, other.key))
    expect(b.status, b.text).toBe(201)
    expect(replayed(b)).toBeNull()
    expect(b.body.transactionId).not.toBe(a.body.transactionId)
    expect(await transactionsOf(theirs.orderId)).toEqual([b.body.transactionId])
  })

  it("a 400 is not remembered: the corrected body with the same key is charged", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const idem = randomUUID()
    // A rule checked by the service (the order's amount) and one of the body's shape.
    expectFieldErrors(await api.post(PROCESS, pixBody(orderId, amount + 1), withKey(idem)), ["amount"])
    expectFieldErrors(
      await api.post(PROCESS, pixBody(orderId, amount, { buyerCellNumber: "garbage" }), withKey(idem)),
      ["buyerCellNumber"]
    )
    const fixed = await api.post(PROCESS, pixBody(orderId, amount), withKey(idem))
    expect(fixed.status, fixed.text).toBe(201)
    expect(replayed(fixed)).toBeNull()
    expect(await transactionsOf(orderId)).toEqual([fixed.body.transactionId])
  })

  it("a declined card (422) is remembered: the replay is the same 422, and nothing is charged again", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const idem = randomUUID()
    const body = cardBody(orderId, amount, CARDS.insufficientFunds)
    const first = await api.post(PROCESS, body, withKey(idem))
    const error = expectError(first, 422, "insufficient_funds")
    expect(error.transactionId).toMatch(UUID)
    expect(replayed(first)).toBeNull()

    const replay = await api.post(PROCESS, body, withKey(idem))
    expect(replay.status).toBe(422)
    expect(replayed(replay)).toBe("true")
    expect(replay.body).toEqual(first.body)
    expect(replay.text).toBe(first.text)
    expect(await transactionsOf(orderId)).toEqual([error.transactionId])
  })

  it("Idempotency-Key: 255 printable characters accepted, 256 or an empty one 400", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const body = pixBody(orderId, amount)
    const tooLong = expectError(await api.post(PROCESS, body, withKey("k".repeat(256))), 400)
    expect(tooLong.message).toContain("Idempotency-Key")
    expect(tooLong.errors?.map((e) => e.field)).toEqual(["Idempotency-Key"])
    expectError(await api.post(PROCESS, body, withKey("")), 400)
    expect(await transactionsOf(orderId)).toHaveLength(0)
    const ok = await api.post(PROCESS, body, withKey("k".repeat(255)))
    expect(ok.status, ok.text).toBe(201)
  })

  it("a record older than 24 hours is forgotten: the same key charges anew", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const idem = randomUUID()
    const body = pixBody(orderId, amount)
    const first = await api.post(PROCESS, body, withKey(idem))
    expect(first.status, first.text).toBe(201)
    expect((await api.post(PROCESS, body, withKey(idem))).text).toBe(first.text)

    const aged = await server.db.query(
      "update idempotency_keys set created_at = now() - interval '25 hours' where key = $1",
      [idem]
    )
    expect(aged.rowCount).toBe(1)
    const again = await api.post(PROCESS, body, withKey(idem))
    expect(again.status, again.text).toBe(201)
    expect(replayed(again)).toBeNull()
    expect(again.body.transactionId).not.toBe(first.body.transactionId)
    expect((await transactionsOf(orderId)).sort()).toEqual([first.body.transactionId, again.body.transactionId].sort())
    // And the new record is the one replayed from now on.
    const replay = await api.post(PROCESS, body, withKey(idem))
    expect(replay.text).toBe(again.text)
    expect(replayed(replay)).toBe("true")
  })
})

describe("refund", () => {
  it(
    "20 concurrent identical refunds with one key: one refund, identical 200 " + "bodies or 409 in use; then a replay",
    async () => {
      const { amount, orderId } = await newOrder(api, key)
      const charge = await api.post(PROCESS, cardBody(orderId, amount), { key })
      expect(charge.status, charge.text).toBe(201)
      const transactionId = charge.body.transactionId as string
      const idem = randomUUID()
      const body = { transactionId, amount: 1_000, reason: "duplicado" }

      const replies = await Promise.all(Array.from({ length: 20 }, () => api.post(REFUND, body, withKey(idem))))
      const ok = replies.filter((r) => r.status === 200)
      expect(ok.length).toBeGreaterThanOrEqual(1)
      for (const r of ok) expect(r.text).toBe(ok[0]!.text)
      for (const r of replies.filter((r) => r.status !== 200)) expectError(r, 409, "idempotency_key_in_use")
      expect(ok[0]!.body).toMatchObject({ transactionId, status: "PARTIAL_REFUND", refundedAmount: 1_000 })

      const rows = await server.db.query("select count(*)::int as n from refunds where transaction_id = $1", [
        transactionId
      ])
      expect(rows.rows[0].n).toBe(1)
      const replay = await api.post(REFUND, body, withKey(idem))
      expect(replay.status).toBe(200)
      expect(replay.text).toBe(ok[0]!.text)
      expect(replayed(replay)).toBe("true")
      const detail = await api.get(`/api/payment-gateway/transaction/${transactionId}`, { key })
      expect(detail.body.refundedAmount).toBe(1_000)

      // The same key with another refund body: 422.
      expectError(await api.post(REFUND, { ...body, amount: 2_000 }, withKey(idem)), 422, "idempotency_key_reused")
    }
  )
})
