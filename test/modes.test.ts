import { randomUUID } from "node:crypto"
import { Effect, Layer } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makePool, PgPool, SqlLive } from "../src/adapters/postgres/Database.ts"
import { OutboxLive } from "../src/adapters/postgres/OutboxLive.ts"
import type { AccountId, WithdrawalId } from "../src/domain/ids.ts"
import { withdrawalEventBody } from "../src/domain/withdrawal.ts"
import { Ids } from "../src/ports/Ids.ts"
import { Outbox } from "../src/ports/Outbox.ts"
import { startLoopbackFake, type LoopbackFake } from "./fakes/loopback/server.ts"
import { createTestDatabase } from "./support/database.ts"
import { client, type Client, signup } from "./support/http.ts"
import {
  CARDS,
  cardBody,
  expectError,
  newOrder,
  pixBody,
  PROCESS,
  tokenCardBody,
  TOKENIZE,
  tokenizeBody,
  createCustomer
} from "./support/payments.ts"
import { runCli, spawnRole, stopAll, type RoleProcess } from "./support/processes.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { jsonBody, startReceiver, type Receiver } from "./support/receiver.ts"
import { freshCpf } from "./support/payments.ts"

/**
 * Test and live modes (issue 24 §1, docs/decisions.md "Test and live modes"), through a real service
 * process whose live rails are the test-only `loopback` provider, served by a local fake that counts its
 * TCP connections: a test key never reaches it, a live key never reaches the sandbox, and no record of one
 * mode is visible, countable or payable from the other.
 */

const V1 = "/public/v1"
const BANK = {
  bank_code: "341",
  agency: "0001",
  agency_digit: "",
  account: "0123456",
  account_digit: "x",
  type: "checking"
}

let fake: LoopbackFake
let service: RoleProcess
let databaseUrl: string
let api: Client
let merchant: Awaited<ReturnType<typeof signup>>
let liveKey: string
let testHooks: Receiver
let liveHooks: Receiver

beforeAll(async () => {
  fake = await startLoopbackFake()
  databaseUrl = await createTestDatabase()
  service = await spawnRole(
    "all",
    {
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_PER_MINUTE: "100000",
      LIVE_LOOPBACK_ALLOWED: "true",
      LOOPBACK_PROVIDER_URL: fake.url,
      LIVE_ACQUIRERS: "loopback",
      LIVE_PIX_PROVIDER: "loopback",
      WEBHOOK_ALLOW_PRIVATE_URLS: "true"
    },
    { readyTimeoutMs: 90_000 }
  )
  api = client(service.baseUrl)
  merchant = await signup(api, "Loja dos Modos")
  testHooks = await startReceiver()
  liveHooks = await startReceiver()
}, 120_000)
afterAll(async () => {
  await stopAll([service])
  await testHooks?.close()
  await liveHooks?.close()
  await fake?.close()
})

describe("keys and modes", () => {
  it("signup gives a test key; the owner's JWT makes a live key, and asking again replaces it", async () => {
    expect(merchant.key).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/)
    const first = await api.post("/api/api-keys/me/live", undefined, { token: merchant.token })
    expect(first.status, first.text).toBe(201)
    expect(first.body).toMatchObject({ livemode: true, active: true })
    expect(first.body.fullKey).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/)
    expect(first.body.keyPrefix).toBe((first.body.fullKey as string).slice(0, 16))
    const second = await api.post("/api/api-keys/me/live", undefined, { token: merchant.token })
    expect(second.status, second.text).toBe(201)
    liveKey = second.body.fullKey as string
    expectError(await api.get("/api/orders", { key: first.body.fullKey }), 401)
    expect((await api.get("/api/orders", { key: liveKey })).status).toBe(200)
    // The test key is untouched.
    expect((await api.get("/api/orders", { key: merchant.key })).status).toBe(200)
  })

  it("many first live-key requests at once all succeed: one primary key, the last one works", async () => {
    for (let round = 0; round < 3; round++) {
      const owner = await signup(api, `Loja Simultânea ${round}`)
      const replies = await Promise.all(
        Array.from({ length: 8 }, () => api.post("/api/api-keys/me/live", undefined, { token: owner.token }))
      )
      for (const reply of replies) expect(reply.status, reply.text).toBe(201)
      // One primary key row, its secret replaced by each request in turn.
      expect(new Set(replies.map((reply) => reply.body.id as string)).size).toBe(1)
      // Exactly one of the keys handed out still opens the live tenant: the one whose write committed last.
      const working = await Promise.all(
        replies.map(async (reply) => (await api.get("/api/orders", { key: reply.body.fullKey as string })).status)
      )
      expect(working.filter((status) => status === 200)).toHaveLength(1)
      expect(working.filter((status) => status === 401)).toHaveLength(replies.length - 1)
    }
  })

  it("the CLI makes the live key of a merchant named by email, with the service's LIVE_* settings", async () => {
    const other = await signup(api, "Loja da Linha de Comando")
    const made = await runCli<{ apiKey: { fullKey: string; livemode: boolean } }>(
      ["api-keys", "live", "--account", other.email],
      {
        DATABASE_URL: databaseUrl,
        LIVE_LOOPBACK_ALLOWED: "true",
        LOOPBACK_PROVIDER_URL: fake.url,
        LIVE_ACQUIRERS: "loopback"
      },
      60_000
    )
    expect(made.apiKey.fullKey).toMatch(/^sk_live_/)
    expect((await api.get("/api/customers", { key: made.apiKey.fullKey })).status).toBe(200)
  }, 90_000)
})

describe("rails per mode", () => {
  it("test keys charge card and PIX on the sandbox: the live provider receives no connection", async () => {
    const before = fake.connections()
    const card = await newOrder(api, merchant.key)
    const paid = await api.post(PROCESS, cardBody(card.orderId, card.amount), { key: merchant.key })
    expect(paid.status, paid.text).toBe(201)
    expect(paid.body.status).toBe("CAPTURED")
    // The sandbox's declined test card is declined: the sandbox answered, not the live acquirer.
    const declinedOrder = await newOrder(api, merchant.key)
    const declined = await api.post(PROCESS, cardBody(declinedOrder.orderId, declinedOrder.amount, CARDS.declined), {
      key: merchant.key
    })
    expect(declined.status, declined.text).toBe(422)
    const pix = await newOrder(api, merchant.key)
    const pending = await api.post(PROCESS, pixBody(pix.orderId, pix.amount), { key: merchant.key })
    expect(pending.status, pending.text).toBe(201)
    expect(pending.body.pix.emv).not.toContain("LOOPBACK")
    const v1 = await api.post(
      `${V1}/transactions`,
      {
        method: "credit_card",
        amount: 5_000,
        customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf() },
        card: { number: CARDS.visa, holder_name: "MARIA SILVA", exp_month: "12", exp_year: "2035", cvv: "123" }
      },
      { token: merchant.key }
    )
    expect(v1.status, v1.text).toBe(201)
    expect(fake.connections()).toBe(before)
    expect(fake.charges.size).toBe(0)
  })

  it("a live key charges the live provider, even with a sandbox test card, and never the sandbox", async () => {
    const order = await newOrder(api, liveKey, 12_300)
    // The sandbox declines this card; the live acquirer approves it like any card.
    const reply = await api.post(PROCESS, cardBody(order.orderId, order.amount, CARDS.declined), { key: liveKey })
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.status).toBe("CAPTURED")
    const charged = [...fake.charges.values()]
    expect(charged).toEqual([{ amount: 12_300, last4: "0002", outcome: expect.anything() }])
    const pix = await newOrder(api, liveKey, 4_500)
    const pending = await api.post(PROCESS, pixBody(pix.orderId, pix.amount), { key: liveKey })
    expect(pending.status, pending.text).toBe(201)
    expect(pending.body.pix.emv).toContain("LOOPBACK")
    expect(fake.pixCharges).toEqual([{ transactionId: pending.body.transactionId, amount: 4_500 }])
  })

  it("with a live key /api/sandbox/* does not exist (404), for live and test transactions alike", async () => {
    const live = await newOrder(api, liveKey)
    const pending = await api.post(PROCESS, pixBody(live.orderId, live.amount), { key: liveKey })
    expect(pending.status, pending.text).toBe(201)
    for (const action of ["pay", "expire"]) {
      expectError(
        await api.post(`/api/sandbox/transactions/${pending.body.transactionId}/${action}`, undefined, {
          key: liveKey
        }),
        404
      )
    }
    const detail = await api.get(`/api/transactions/${pending.body.transactionId}`, { key: liveKey })
    expect(detail.body.status).toBe("PENDING")
  })

  it("live withdrawals answer 409 payouts_unavailable (no payouts provider in live mode)", async () => {
    const live = await api.post(`${V1}/withdrawals`, { amount: 100, bank_account: BANK }, { token: liveKey })
    expect(live.status, live.text).toBe(409)
    expect(live.body.code ?? live.body.error?.code ?? live.text).toContain("payouts_unavailable")
  })
})

describe("no record of one mode is visible, countable or payable from the other", () => {
  it("get by id, lists, totals, balance and events", async () => {
    const testOrder = await newOrder(api, merchant.key, 7_700)
    const testPix = await api.post(PROCESS, pixBody(testOrder.orderId, testOrder.amount), { key: merchant.key })
    const paid = await api.post(`/api/sandbox/transactions/${testPix.body.transactionId}/pay`, undefined, {
      key: merchant.key
    })
    expect(paid.status, paid.text).toBe(200)
    const testId = testPix.body.transactionId as string

    const liveOrder = await newOrder(api, liveKey, 8_800)
    const liveCard = await api.post(PROCESS, cardBody(liveOrder.orderId, liveOrder.amount), { key: liveKey })
    expect(liveCard.status, liveCard.text).toBe(201)
    const liveId = liveCard.body.transactionId as string

    // livemode: present (true) on live records, absent on test records (test mode answers as before)
    const liveGot = await api.get(`/api/transactions/${liveId}`, { key: liveKey })
    expect(liveGot.body.livemode).toBe(true)
    const testGot = await api.get(`/api/transactions/${testId}`, { key: merchant.key })
    expect(testGot.status).toBe(200)
    expect(testGot.body).not.toHaveProperty("livemode")
    expect(liveCard.body.livemode).toBe(true)
    expect(testPix.body).not.toHaveProperty("livemode")
    expect((await api.get(`/api/orders/${liveOrder.orderId}`, { key: liveKey })).body.livemode).toBe(true)
    expect((await api.get(`${V1}/transactions/${liveId}`, { token: liveKey })).body.data.livemode).toBe(true)
    expect((await api.get(`${V1}/transactions/${testId}`, { token: merchant.key })).body.data).not.toHaveProperty(
      "livemode"
    )

    // get by id
    expectError(await api.get(`/api/transactions/${testId}`, { key: liveKey }), 404)
    expectError(await api.get(`/api/transactions/${liveId}`, { key: merchant.key }), 404)
    expectError(await api.get(`/api/orders/${testOrder.orderId}`, { key: liveKey }), 404)
    expectError(await api.get(`/api/orders/${liveOrder.orderId}`, { key: merchant.key }), 404)
    expect((await api.get(`${V1}/transactions/${testId}`, { token: liveKey })).status).toBe(404)
    expect((await api.get(`${V1}/transactions/${liveId}`, { token: merchant.key })).status).toBe(404)

    // lists and their totals
    const liveList = (await api.get("/api/transactions", { key: liveKey })).body as Array<{ id: string }>
    const testList = (await api.get("/api/transactions", { key: merchant.key })).body as Array<{ id: string }>
    expect(liveList.map((t) => t.id)).toContain(liveId)
    expect(liveList.map((t) => t.id)).not.toContain(testId)
    expect(testList.map((t) => t.id)).toContain(testId)
    expect(testList.map((t) => t.id)).not.toContain(liveId)
    const v1Live = await api.get(`${V1}/transactions?per_page=100`, { token: liveKey })
    const v1Test = await api.get(`${V1}/transactions?per_page=100`, { token: merchant.key })
    expect(v1Live.body.pagination.total).toBe(liveList.length)
    expect(v1Test.body.pagination.total).toBe(testList.length)
    const hashes = (v1Live.body.data as Array<{ hash: string }>).map((t) => t.hash)
    expect(hashes).not.toContain(testId)

    // balances: the live tenant's are its two card sales alone, to the centavo (CONTRACT-v1 §7: card
    // sales wait 30 days in `pending`, net of the 3.99% fee rounded half up); the test sales count elsewhere.
    const cardFee = (amount: number) => Math.floor((amount * 399 + 5_000) / 10_000)
    const liveBalance = await api.get(`${V1}/balance`, { token: liveKey })
    expect(liveBalance.status, liveBalance.text).toBe(200)
    expect(liveBalance.body.data).toMatchObject({
      livemode: true,
      available: 0,
      pending: 12_300 - cardFee(12_300) + (8_800 - cardFee(8_800)),
      reserved: 0
    })
    const testBalance = await api.get(`${V1}/balance`, { token: merchant.key })
    expect(testBalance.body.data.pending).toBeGreaterThan(0)
    expect(testBalance.body.data.pending).not.toBe(liveBalance.body.data.pending)

    // the dashboard (login token): test by default, the live tenant with X-Gateway-Mode: live, each
    // showing its own mode's transactions only, and a refund from the live view reaching the live rails
    const dashboard = async (mode: "test" | "live") => {
      const reply = await api.get("/api/dashboard/transactions", {
        token: merchant.token,
        headers: { "x-gateway-mode": mode }
      })
      expect(reply.status, reply.text).toBe(200)
      return (reply.body.data as Array<{ id: string }>).map((t) => t.id)
    }
    const [dashLive, dashTest] = [await dashboard("live"), await dashboard("test")]
    expect(dashLive).toContain(liveId)
    expect(dashLive).not.toContain(testId)
    expect(dashTest).toContain(testId)
    expect(dashTest).not.toContain(liveId)
    // the dashboard's events (and its deliveries and request log, through the same tenant) follow the mode
    const dashboardEvents = async (mode: "test" | "live") => {
      const reply = await api.get("/api/dashboard/events", {
        token: merchant.token,
        headers: { "x-gateway-mode": mode }
      })
      expect(reply.status, reply.text).toBe(200)
      return (reply.body.events as Array<{ transactionId: string | null }>).map((e) => e.transactionId)
    }
    const [liveEvents, testEvents] = [await dashboardEvents("live"), await dashboardEvents("test")]
    expect(liveEvents).toContain(liveId)
    expect(liveEvents).not.toContain(testId)
    expect(testEvents).toContain(testId)
    expect(testEvents).not.toContain(liveId)
    const liveDashBalance = await api.get("/api/dashboard/balance", {
      token: merchant.token,
      headers: { "x-gateway-mode": "live" }
    })
    expect(liveDashBalance.status, liveDashBalance.text).toBe(200)
    expect(JSON.stringify(liveDashBalance.body)).toContain(String(liveBalance.body.data.pending))

    // payable: the other mode's order and card token are unknown
    const crossPay = await api.post(PROCESS, pixBody(testOrder.orderId, testOrder.amount), { key: liveKey })
    expect(crossPay.status, crossPay.text).toBeGreaterThanOrEqual(400)
    expect(crossPay.status).toBeLessThan(500)
    const customer = await createCustomer(api, merchant.key)
    const token = await api.post(TOKENIZE, tokenizeBody(customer.id), { key: merchant.key })
    expect(token.status, token.text).toBe(201)
    const liveTokenOrder = await newOrder(api, liveKey)
    const crossToken = await api.post(
      PROCESS,
      tokenCardBody(liveTokenOrder.orderId, liveTokenOrder.amount, token.body.cardToken),
      { key: liveKey }
    )
    expect(crossToken.status, crossToken.text).toBeGreaterThanOrEqual(400)
    expect(crossToken.status).toBeLessThan(500)
  })
})

describe("subaccounts per mode", () => {
  it("a live subaccount says livemode: true and is unknown to the test key", async () => {
    const made = await api.post(
      `${V1}/subaccounts`,
      {
        name: "Loja Parceira Ltda",
        document: freshCpf(),
        email: "financeiro@parceira.example",
        phone: "+55 (11) 3123-4567",
        bank_account: BANK
      },
      { token: liveKey }
    )
    expect(made.status, made.text).toBe(201)
    expect(made.body.data.livemode).toBe(true)
    const id = made.body.data.id as string
    expect((await api.get(`${V1}/subaccounts/${id}`, { token: merchant.key })).status).toBe(404)
    const testList = await api.get(`${V1}/subaccounts`, { token: merchant.key })
    expect((testList.body.data as Array<{ id: string }>).map((s) => s.id)).not.toContain(id)
    expect((await api.get(`${V1}/subaccounts/${id}`, { token: liveKey })).body.data.livemode).toBe(true)
  })
})

describe("webhooks per mode", () => {
  it("each mode's endpoint gets its own mode's events; a live event says livemode: true", async () => {
    const other = await signup(api, "Loja dos Webhooks")
    const live = await api.post("/api/api-keys/me/live", undefined, { token: other.token })
    expect(live.status, live.text).toBe(201)
    const otherLiveKey = live.body.fullKey as string
    const testHook = await api.post("/api/webhooks/upsert", { url: testHooks.url }, { key: other.key })
    expect(testHook.status, testHook.text).toBe(201)
    expect(testHook.body).not.toHaveProperty("livemode")
    const liveHook = await api.post("/api/webhooks/upsert", { url: liveHooks.url }, { key: otherLiveKey })
    expect(liveHook.status, liveHook.text).toBe(201)
    expect(liveHook.body.livemode).toBe(true)
    expect(liveHook.body.secret).not.toBe(testHook.body.secret)

    const liveOrder = await newOrder(api, otherLiveKey, 3_300)
    const liveCharge = await api.post(PROCESS, cardBody(liveOrder.orderId, liveOrder.amount), { key: otherLiveKey })
    expect(liveCharge.status, liveCharge.text).toBe(201)
    const testOrder = await newOrder(api, other.key, 4_400)
    const testCharge = await api.post(PROCESS, cardBody(testOrder.orderId, testOrder.amount), { key: other.key })
    expect(testCharge.status, testCharge.text).toBe(201)

    const [liveEvent] = await liveHooks.waitFor((r) => r.length >= 1, 20_000)
    const [testEvent] = await testHooks.waitFor((r) => r.length >= 1, 20_000)
    expect(jsonBody(liveEvent!)).toMatchObject({
      livemode: true,
      data: { transactionId: liveCharge.body.transactionId }
    })
    expect(jsonBody(testEvent!)).toMatchObject({ data: { transactionId: testCharge.body.transactionId } })
    expect(jsonBody(testEvent!)).not.toHaveProperty("livemode")
    // Neither endpoint saw the other mode's event.
    expect(liveHooks.requests.map((r) => jsonBody(r).data.transactionId)).not.toContain(testCharge.body.transactionId)
    expect(testHooks.requests.map((r) => jsonBody(r).data.transactionId)).not.toContain(liveCharge.body.transactionId)
  })

  it("a live tenant's frozen bodies (webhook.test, withdraw.paid) say livemode: true, sent and shown", async () => {
    const owner = await signup(api, "Loja dos Corpos Congelados")
    const live = await api.post("/api/api-keys/me/live", undefined, { token: owner.token })
    expect(live.status, live.text).toBe(201)
    const ownerLiveKey = live.body.fullKey as string
    const liveReceiver = await startReceiver()
    const testReceiver = await startReceiver()
    try {
      expect((await api.post("/api/webhooks/upsert", { url: liveReceiver.url }, { key: ownerLiveKey })).status).toBe(
        201
      )
      expect((await api.post("/api/webhooks/upsert", { url: testReceiver.url }, { key: owner.key })).status).toBe(201)

      // The test event, in each mode, through the API.
      expect((await api.post("/api/webhooks/test", undefined, { key: ownerLiveKey })).status).toBe(202)
      expect((await api.post("/api/webhooks/test", undefined, { key: owner.key })).status).toBe(202)
      // A paid withdrawal's event, recorded by the real Outbox as Withdrawals.pay records it: this deployment has
      // no live payouts provider (live withdrawals are refused above), so the payout itself cannot happen here.
      const db = new pg.Client({ connectionString: databaseUrl })
      await db.connect()
      const tenant = (await db.query("select account_id from webhooks where url = $1", [liveReceiver.url])).rows[0]
      await db.end()
      const at = new Date()
      const body = withdrawalEventBody(
        "withdraw.paid",
        {
          id: randomUUID() as WithdrawalId,
          accountId: tenant.account_id as AccountId,
          subaccountId: null,
          amount: 1_000,
          status: "paid",
          bankAccount: {
            bankCode: BANK.bank_code,
            agency: BANK.agency,
            agencyDigit: null,
            account: BANK.account,
            accountDigit: BANK.account_digit,
            type: "checking"
          },
          failureReason: null,
          paidAt: at,
          createdAt: at,
          updatedAt: at
        },
        at
      )
      await Effect.runPromise(
        Effect.flatMap(Outbox, (outbox) =>
          outbox.emitFrozen(tenant.account_id as AccountId, "withdraw.paid", body)
        ).pipe(
          Effect.provide(
            OutboxLive.pipe(
              Layer.provide(Ids.Live),
              Layer.provide(SqlLive),
              Layer.provide(Layer.scoped(PgPool, makePool(databaseUrl, 1, false)))
            )
          )
        )
      )

      const sent = await liveReceiver.waitFor((rs) => rs.length >= 2, 20_000, "the live test and withdrawal events")
      expect(sent.map((r) => jsonBody(r).event).sort()).toEqual(["webhook.test", "withdraw.paid"])
      for (const r of sent) expect(jsonBody(r), jsonBody(r).event).toMatchObject({ livemode: true })
      expect(jsonBody(sent.find((r) => jsonBody(r).event === "withdraw.paid")!)).toEqual({ ...body, livemode: true })
      const [testSent] = await testReceiver.waitFor((rs) => rs.length >= 1, 20_000, "the test-mode test event")
      expect(jsonBody(testSent!)).toMatchObject({ event: "webhook.test" })
      expect(jsonBody(testSent!)).not.toHaveProperty("livemode")

      // GET /api/events shows each body as it was delivered, livemode included; the test tenant's without it.
      const listed = await api.get("/api/events", { key: ownerLiveKey })
      expect(listed.status, listed.text).toBe(200)
      expect(listed.body.events.map((e: { type: string }) => e.type).sort()).toEqual(["webhook.test", "withdraw.paid"])
      for (const event of listed.body.events) {
        const one = await api.get(`/api/events/${event.id}`, { key: ownerLiveKey })
        expect(one.status, one.text).toBe(200)
        expect(one.body.payload).toEqual(JSON.parse(sent.find((r) => jsonBody(r).event === event.type)!.body))
        expect(one.body.payload.livemode).toBe(true)
      }
      const testEvents = (await api.get("/api/events", { key: owner.key })).body.events
      expect(testEvents.map((e: { type: string }) => e.type)).toEqual(["webhook.test"])
      expect(testEvents[0].payload).toEqual(JSON.parse(testSent!.body))
      expect(testEvents[0].payload).not.toHaveProperty("livemode")
    } finally {
      await liveReceiver.close()
      await testReceiver.close()
    }
  })
})

describe("a deployment with no live provider", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimitPerMinute: 100_000 })
  })
  afterAll(async () => {
    await server?.close()
  })

  it("/openapi.json documents the live key route, its 409 and the livemode fields", async () => {
    const doc = (await client(server.baseUrl).get("/openapi.json")).body
    const live = doc.paths["/api/api-keys/me/live"]?.post
    expect(live, "POST /api/api-keys/me/live").toBeDefined()
    expect(Object.keys(live.responses)).toEqual(expect.arrayContaining(["201", "409"]))
    const text = JSON.stringify(doc.components.schemas)
    for (const name of ["Transaction", "Order", "Customer", "Webhook", "V1Balance"]) {
      expect(JSON.stringify(doc.components.schemas[name] ?? {}), name).toContain('"livemode"')
    }
    expect(text).toContain("livemode")
  })

  it("refuses live keys with 409 live_mode_unavailable naming what is missing", async () => {
    const local = client(server.baseUrl)
    const owner = await signup(local)
    expect(owner.key).toMatch(/^sk_test_/)
    const reply = expectError(
      await local.post("/api/api-keys/me/live", undefined, { token: owner.token }),
      409,
      "live_mode_unavailable"
    )
    expect(reply.message).toContain("LIVE_ACQUIRERS")
    expect(reply.message).toContain("LIVE_PIX_PROVIDER")
  })
})
