import { ConfigProvider, Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadAppConfig } from "../src/config/AppConfig.ts"
import { DEFAULT_SETTINGS, DEFAULT_WEIGHTS } from "../src/domain/antifraud.ts"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, cardBody, freshCpf, newOrder, PROCESS } from "./support/payments.ts"
import { jsonBody, type Receiver, startReceiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The rules-engine antifraud (CONTRACT-v1 §9) through real HTTP on real PostgreSQL: each rule firing with
 * its score, decision and reason; GET /public/v1/antifraud/{hash}; the manual review flow of the sandbox;
 * velocity counters under concurrency; configuration errors naming their variable.
 */

const V1 = "/public/v1"
const REVIEW_CARD = "4000000000000101"

let server: TestServer
let api: Client
let key: string
let receiver: Receiver

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
  receiver = await startReceiver()
  await api.post("/api/webhooks/upsert", { url: receiver.url }, { key })
})
afterAll(async () => {
  await receiver?.close()
  await server?.close()
})

/** A Luhn-valid Visa number no test card uses (the sandbox acquirer approves it). */
const freshVisa = (): string => {
  const body = `4${String(Math.floor(Math.random() * 1e14)).padStart(14, "0")}`
  const digits = [...body].map(Number)
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    // Doubling starts at the rightmost digit of the body (the check digit is appended after it).
    let d = digits[digits.length - 1 - i]!
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2
    sum += d
  }
  return `${body}${(10 - (sum % 10)) % 10}`
}

const customer = (overrides: Record<string, unknown> = {}) => ({
  name: "Maria Silva",
  email: "maria@example.com",
  document: freshCpf(),
  ip: "8.8.8.8",
  ...overrides
})
const card = (number: string = freshVisa(), holder = "MARIA SILVA") => ({
  number,
  holder_name: holder,
  exp_month: "12",
  exp_year: String(new Date().getUTCFullYear() + 3),
  cvv: "123"
})
const charge = (
  options: { customer?: Record<string, unknown>; card?: Record<string, unknown>; amount?: number } = {},
  k = key,
  target = api
) =>
  target.post(
    `${V1}/transactions`,
    {
      method: "credit_card",
      amount: options.amount ?? 10_000,
      customer: options.customer ?? customer(),
      card: options.card ?? card()
    },
    { token: k }
  )
const analysis = (hash: string, k = key, target = api) => target.get(`${V1}/antifraud/${hash}`, { token: k })
const decide = (hash: string, decision: unknown, k = key, target = api) =>
  target.post(`/api/sandbox/transactions/${hash}/antifraud`, { decision }, { key: k })

/** Charges and reads the analysis back, both expected to succeed. */
const charged = async (...args: Parameters<typeof charge>) => {
  const reply = await charge(...args)
  expect(reply.status, reply.text).toBe(201)
  const read = await analysis(reply.body.data.hash, args[1] ?? key, args[2] ?? api)
  expect(read.status, read.text).toBe(200)
  return { transaction: reply.body.data, analysis: read.body.data }
}

describe("each rule (default weights and thresholds)", () => {
  it("an ordinary charge: score 0, approve, reason null, paid", async () => {
    const { analysis: a, transaction } = await charged()
    expect(transaction.status).toBe("paid")
    expect(a).toEqual({
      transaction_hash: transaction.hash,
      status: "completed",
      score: 0,
      decision: "approve",
      reason: null
    })
  })

  it.each([
    ["private_ip", { customer: customer({ ip: "192.168.10.20" }) }, DEFAULT_WEIGHTS.private_ip],
    ["private_ip", { customer: customer({ ip: "fe80::1" }) }, DEFAULT_WEIGHTS.private_ip],
    // The documentation networks (RFC 5737) are reserved too; the rule alone stays far below review.
    ["private_ip", { customer: customer({ ip: "203.0.113.7" }) }, DEFAULT_WEIGHTS.private_ip],
    ["disposable_email", { customer: customer({ email: "maria@mailinator.com" }) }, DEFAULT_WEIGHTS.disposable_email],
    ["holder_name_mismatch", { card: card(undefined, "JOAO PEREIRA") }, DEFAULT_WEIGHTS.holder_name_mismatch]
  ] as const)("%s fires alone: its weight, approve, paid", async (rule, options, weight) => {
    const { analysis: a, transaction } = await charged(options)
    expect(a).toMatchObject({ status: "completed", score: weight, decision: "approve", reason: rule })
    expect(transaction.status).toBe("paid")
  })

  it("accents and case do not make a name unlike: JOSÉ DA SILVA pays as José Silva", async () => {
    const { analysis: a } = await charged({
      customer: customer({ name: "José Silva" }),
      card: card(undefined, "JOSE DA SILVA")
    })
    expect(a.reason).toBeNull()
  })

  it("three signals reach review (20 + 30 + 10 = 60): status antifraud, in_review, reason in table order", async () => {
    const { analysis: a, transaction } = await charged({
      customer: customer({ email: "x@yopmail.com", ip: "10.1.2.3" }),
      card: card(undefined, "CARLOS PEREIRA")
    })
    expect(transaction.status).toBe("antifraud")
    expect(a).toEqual({
      transaction_hash: transaction.hash,
      status: "in_review",
      score: 60,
      decision: "review",
      reason: "holder_name_mismatch, disposable_email, private_ip"
    })
  })

  it("the sandbox's forced cards: the fraud card is rejected at 95, the review card reviewed", async () => {
    const fraud = await charged({ card: card(CARDS.fraud) })
    expect(fraud.transaction).toMatchObject({ status: "refused", refusal_reason: "fraud_suspected" })
    expect(fraud.analysis).toMatchObject({
      status: "completed",
      score: 95,
      decision: "reject",
      reason: "sandbox_fraud_card"
    })
    const review = await charged({ card: card(REVIEW_CARD) })
    expect(review.transaction.status).toBe("antifraud")
    expect(review.analysis).toMatchObject({
      status: "in_review",
      score: DEFAULT_SETTINGS.reviewAt,
      decision: "review",
      reason: "sandbox_review_card"
    })
    // The whole number, not its BIN and last four: real cards that share them are ordinary cards.
    for (const lookalike of ["4000001234550101", "4100001234550019"]) {
      const real = await charged({ card: card(lookalike) })
      expect(real.transaction.status, lookalike).toBe("paid")
      expect(real.analysis.reason, lookalike).toBeNull()
    }
  })

  it("amount_above_usual waits for 5 paid card charges, then fires above 10× their average", async () => {
    const { key: fresh } = await signup(api)
    // No history yet: a large first charge is not unusual.
    expect((await charged({ amount: 500_000 }, fresh)).analysis.reason).toBeNull()
    for (let i = 0; i < 4; i++) await charged({ amount: 1_000 }, fresh)
    // 5 paid: average (500000 + 4·1000) / 5 = 100800; 1 000 000 is below 10× that.
    expect((await charged({ amount: 1_000_000 }, fresh)).analysis.reason).toBeNull()
    // 6 paid now: average (1504000 / 6 ≈ 250667); 2 600 000 is above 10× it.
    const { analysis: a } = await charged({ amount: 2_600_000 }, fresh)
    expect(a).toMatchObject({
      score: DEFAULT_WEIGHTS.amount_above_usual,
      decision: "approve",
      reason: "amount_above_usual"
    })
  })

  it("card_velocity fires from the 11th charge of one card in the window (default 10 an hour)", async () => {
    const { key: fresh } = await signup(api)
    const number = freshVisa()
    for (let i = 0; i < 10; i++) expect((await charged({ card: card(number) }, fresh)).analysis.reason).toBeNull()
    const { analysis: a } = await charged({ card: card(number) }, fresh)
    expect(a).toMatchObject({ score: DEFAULT_WEIGHTS.card_velocity, decision: "approve", reason: "card_velocity" })
    // Counters are per account: the same card elsewhere starts from one.
    const { key: other } = await signup(api)
    expect((await charged({ card: card(number) }, other)).analysis.reason).toBeNull()
  })

  it("document_velocity fires from the 11th charge of one document, whatever the cards", async () => {
    const { key: fresh } = await signup(api)
    const document = freshCpf()
    for (let i = 0; i < 10; i++) {
      expect((await charged({ customer: customer({ document }) }, fresh)).analysis.reason).toBeNull()
    }
    const { analysis: a } = await charged({ customer: customer({ document }) }, fresh)
    expect(a).toMatchObject({ score: DEFAULT_WEIGHTS.document_velocity, reason: "document_velocity" })
  })

  it("a v2 charge is analysed against its order's customer (name, document)", async () => {
    const order = await newOrder(api, key)
    const same = await api.post(PROCESS, cardBody(order.orderId, order.amount, freshVisa()), { key })
    expect(same.status, same.text).toBe(201)
    expect((await analysis(same.body.transactionId)).body.data).toMatchObject({ score: 0, reason: null })
    const other = await newOrder(api, key)
    const unlike = await api.post(
      PROCESS,
      cardBody(other.orderId, other.amount, freshVisa(), { cardHolderName: "CARLOS PEREIRA" }),
      { key }
    )
    expect((await analysis(unlike.body.transactionId)).body.data).toMatchObject({
      reason: "holder_name_mismatch"
    })
  })
})

describe("GET /public/v1/antifraud/{transaction_hash}", () => {
  it("404 in the v1 envelope for a PIX, an unknown hash, a non-UUID and another account's charge", async () => {
    const pix = await api.post(
      `${V1}/transactions`,
      { method: "pix", amount: 1_000, customer: customer() },
      { token: key }
    )
    const { key: other } = await signup(api)
    const foreign = await charge({}, other)
    for (const hash of [
      pix.body.data.hash,
      "0c5e8f0a-6a41-4f4e-9a55-1f1b1d0c9a10",
      "not-a-uuid",
      foreign.body.data.hash
    ]) {
      const reply = await analysis(hash)
      expect(reply.status, hash).toBe(404)
      expect(reply.body).toMatchObject({ success: false, statusCode: 404 })
    }
    expect((await analysis(foreign.body.data.hash, other)).status).toBe(200)
  })

  it("401 without a token", async () => {
    expect((await api.get(`${V1}/antifraud/0c5e8f0a-6a41-4f4e-9a55-1f1b1d0c9a10`)).status).toBe(401)
  })
})

describe("manual review (POST /api/sandbox/transactions/{id}/antifraud)", () => {
  const eventFor = (hash: string, event: string) =>
    receiver.waitFor(
      (requests) => requests.some((r) => jsonBody(r).event === event && jsonBody(r).data?.hash === hash),
      20_000
    )

  it("review → approve: the held card is charged, paid, transaction.paid; analysis completed approve", async () => {
    const { transaction } = await charged({ card: card(REVIEW_CARD) })
    const row = await server.db.query("select card_token from transactions where id = $1", [transaction.hash])
    const token = row.rows[0].card_token as string
    expect(token).toMatch(/^card_/)
    // Held without a customer, and never usable as a saved card.
    const held = await server.db.query("select customer_id from cards where token = $1", [token])
    expect(held.rows[0].customer_id).toBeNull()
    const reuse = await api.post(
      `${V1}/transactions`,
      { method: "credit_card", amount: 1_000, customer: customer(), card_token: token },
      { token: key }
    )
    expect(reuse.status, reuse.text).toBe(404)

    const approved = await decide(transaction.hash, "approve")
    expect(approved.status, approved.text).toBe(200)
    expect(approved.body).toMatchObject({ id: transaction.hash, status: "CAPTURED" })
    const read = await api.get(`${V1}/transactions/${transaction.hash}`, { token: key })
    expect(read.body.data).toMatchObject({ status: "paid", refusal_reason: null })
    expect((await analysis(transaction.hash)).body.data).toMatchObject({
      status: "completed",
      decision: "approve",
      score: DEFAULT_SETTINGS.reviewAt,
      reason: "sandbox_review_card"
    })
    await eventFor(transaction.hash, "transaction.paid")
    // Decided once: a second decision finds it no longer in review.
    expect((await decide(transaction.hash, "reject")).status).toBe(409)
  })

  it("review → approve of a card the acquirer declines: refused with the acquirer's code", async () => {
    const { transaction } = await charged({
      customer: customer({ email: "x@yopmail.com", ip: "10.1.2.3" }),
      card: card(CARDS.declined, "CARLOS PEREIRA")
    })
    expect(transaction.status).toBe("antifraud")
    const approved = await decide(transaction.hash, "approve")
    expect(approved.body.status).toBe("DECLINED")
    const read = await api.get(`${V1}/transactions/${transaction.hash}`, { token: key })
    expect(read.body.data).toMatchObject({ status: "refused", refusal_reason: "card_declined" })
  })

  it("review → reject: refused fraud_suspected, transaction.refused; the analysis is completed reject", async () => {
    const { transaction } = await charged({ card: card(REVIEW_CARD) })
    const rejected = await decide(transaction.hash, "reject")
    expect(rejected.status, rejected.text).toBe(200)
    expect(rejected.body.status).toBe("DECLINED")
    const read = await api.get(`${V1}/transactions/${transaction.hash}`, { token: key })
    expect(read.body.data).toMatchObject({ status: "refused", refusal_reason: "fraud_suspected" })
    expect((await analysis(transaction.hash)).body.data).toMatchObject({ status: "completed", decision: "reject" })
    await eventFor(transaction.hash, "transaction.refused")
  })

  it("409 outside review, 400 naming decision, 404 for an unknown or foreign transaction", async () => {
    const { transaction: paid } = await charged()
    expect(await decide(paid.hash, "approve")).toMatchObject({ status: 409 })
    const { transaction } = await charged({ card: card(REVIEW_CARD) })
    for (const bad of ["maybe", undefined, 1]) {
      const reply = await decide(transaction.hash, bad)
      expect(reply.status, reply.text).toBe(400)
      expect(reply.body.errors.map((e: { field: string }) => e.field)).toEqual(["decision"])
    }
    expect((await decide("0c5e8f0a-6a41-4f4e-9a55-1f1b1d0c9a10", "approve")).status).toBe(404)
    const { key: other } = await signup(api)
    expect((await decide(transaction.hash, "approve", other)).status).toBe(404)
    // Still in review after all of that.
    expect((await analysis(transaction.hash)).body.data.status).toBe("in_review")
  })

  it("a v2 charge in review is approved the same way and pays its order", async () => {
    const order = await newOrder(api, key)
    const reply = await api.post(PROCESS, cardBody(order.orderId, order.amount, REVIEW_CARD), { key })
    const id = reply.body.transactionId
    expect((await api.get(`/api/transactions/${id}`, { key })).body.status).toBe("ANTIFRAUD")
    expect((await decide(id, "approve")).body.status).toBe("CAPTURED")
    expect((await api.get(`/api/orders/${order.orderId}`, { key })).body.status).toBe("PAID")
  })

  it("counts every decision in antifraud_decisions_total{decision}", async () => {
    const metrics = { text: await (await fetch(server.metricsUrl)).text() }
    for (const decision of ["approve", "review", "reject"]) {
      expect(metrics.text).toMatch(new RegExp(`antifraud_decisions_total\\{decision="${decision}"\\} [1-9]`))
    }
  })
})

describe("configured rules (another server: velocity limits low, sandbox disabled)", () => {
  let strict: TestServer
  let strictApi: Client
  let strictKey: string

  beforeAll(async () => {
    strict = await startTestServer({
      rateLimitPerMinute: 100_000,
      sandboxEnabled: false,
      antifraud: {
        ...DEFAULT_SETTINGS,
        weights: { ...DEFAULT_WEIGHTS, card_velocity: 60, document_velocity: 80 },
        cardVelocity: { max: 5, windowSeconds: 3600 },
        documentVelocity: { max: 2, windowSeconds: 3600 }
      }
    })
    strictApi = client(strict.baseUrl)
    strictKey = (await signup(strictApi)).key
  })
  afterAll(async () => {
    await strict?.close()
  })

  it("20 concurrent charges of one card see 20 distinct counts: 5 paid, 15 in review", async () => {
    const number = freshVisa()
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => charge({ card: card(number) }, strictKey, strictApi))
    )
    for (const reply of replies) expect(reply.status, reply.text).toBe(201)
    const statuses = replies.map((r) => r.body.data.status as string)
    expect(statuses.filter((s) => s === "paid")).toHaveLength(5)
    expect(statuses.filter((s) => s === "antifraud")).toHaveLength(15)
    const counters = await strict.db.query("select kind, count from antifraud_counters where kind = 'card'")
    expect(counters.rows).toHaveLength(1)
    expect(counters.rows[0].count).toBe(20)
    const reviewed = await analysis(
      replies.find((r) => r.body.data.status === "antifraud")!.body.data.hash,
      strictKey,
      strictApi
    )
    expect(reviewed.body.data).toMatchObject({ score: 60, decision: "review", reason: "card_velocity" })
    // The counter key is a keyed digest (HMAC-SHA-256, hex), never the card number or a part of it.
    const rows = (await strict.db.query("select key from antifraud_counters")).rows
    expect(JSON.stringify(rows)).not.toContain(number)
    for (const row of rows) expect(row.key).toMatch(/^[0-9a-f]{64}$/)
  })

  it("a configured weight of 80 rejects by itself: the 3rd charge of one document is refused", async () => {
    const document = freshCpf()
    const first = await charge({ customer: customer({ document }) }, strictKey, strictApi)
    const second = await charge({ customer: customer({ document }) }, strictKey, strictApi)
    const third = await charge({ customer: customer({ document }) }, strictKey, strictApi)
    expect([first, second].map((r) => r.body.data.status)).toEqual(["paid", "paid"])
    expect(third.body.data).toMatchObject({ status: "refused", refusal_reason: "fraud_suspected" })
    expect((await analysis(third.body.data.hash, strictKey, strictApi)).body.data).toMatchObject({
      score: 80,
      decision: "reject",
      reason: "document_velocity"
    })
  })

  it("the sandbox decision endpoint is 404 when SANDBOX_ENABLED=false", async () => {
    const { transaction } = await charged({ card: card(REVIEW_CARD) }, strictKey, strictApi)
    const reply = await decide(transaction.hash, "approve", strictKey, strictApi)
    expect(reply.status).toBe(404)
    expect(transaction.status).toBe("antifraud")
  })
})

describe("configuration errors stop start-up and name the variable", () => {
  const load = (env: Record<string, string>) =>
    Effect.runPromise(
      loadAppConfig.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ NODE_ENV: "production", ...env })))),
        Effect.either
      )
    )

  it.each([
    ["ANTIFRAUD_WEIGHTS", { ANTIFRAUD_WEIGHTS: "card_velocity=forty" }],
    ["ANTIFRAUD_WEIGHTS", { ANTIFRAUD_WEIGHTS: "velocity=40" }],
    ["ANTIFRAUD_WEIGHTS", { ANTIFRAUD_WEIGHTS: "private_ip=101" }],
    ["ANTIFRAUD_REVIEW_AT", { ANTIFRAUD_REVIEW_AT: "101" }],
    ["ANTIFRAUD_REJECT_AT", { ANTIFRAUD_REJECT_AT: "eighty" }],
    ["ANTIFRAUD_REVIEW_AT", { ANTIFRAUD_REVIEW_AT: "90", ANTIFRAUD_REJECT_AT: "80" }],
    ["ANTIFRAUD_CARD_VELOCITY_MAX", { ANTIFRAUD_CARD_VELOCITY_MAX: "0" }],
    ["ANTIFRAUD_DOCUMENT_VELOCITY_WINDOW_SECONDS", { ANTIFRAUD_DOCUMENT_VELOCITY_WINDOW_SECONDS: "-5" }],
    ["ANTIFRAUD_AMOUNT_FACTOR", { ANTIFRAUD_AMOUNT_FACTOR: "x" }]
  ])("%s", async (variable, env) => {
    const result = await load(env)
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) expect(String(result.left)).toContain(variable)
  })

  it("valid values are read", async () => {
    const result = await load({
      ANTIFRAUD_WEIGHTS: "card_velocity=55",
      ANTIFRAUD_REVIEW_AT: "50",
      ANTIFRAUD_CARD_VELOCITY_MAX: "3",
      JWT_SECRET: "x".repeat(40),
      CARD_VAULT_KEY: Buffer.alloc(32, 1).toString("base64")
    })
    expect(Either.isRight(result)).toBe(true)
    if (Either.isRight(result)) {
      expect(result.right.antifraud).toMatchObject({
        weights: { ...DEFAULT_WEIGHTS, card_velocity: 55 },
        reviewAt: 50,
        rejectAt: 80,
        cardVelocity: { max: 3, windowSeconds: 3600 }
      })
    }
  })
})
