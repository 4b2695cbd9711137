import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, liveMerchant, signup } from "./support/http.ts"
import { cardBody, eventually, expectError, newOrder, orderStatus, PROCESS, REFUND } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { startFakeCielo, type FakeCielo } from "./fakes/cielo/fake.ts"
import { startFakeRede, type FakeRede } from "./fakes/rede/fake.ts"
import { panEndingIn } from "./providers/acquirer.kit.ts"
import { runCli } from "./support/processes.ts"
import { withEnv } from "./support/env.ts"

/**
 * Cards through real acquirers, end to end (issue 24 §3 "What proves it"): the service (HTTP,
 * PostgreSQL, worker) in live mode, LIVE_ACQUIRERS=cielo,rede over the fake Cielo and the fake e.Rede
 * as local servers. Amounts are asserted to the centavo at the fakes, which are what a real acquirer would have
 * charged and refunded.
 */

/** The one place these tests get their API key: a live key (test keys never reach an acquirer). */
const merchantKey = async (api: Client) => (await liveMerchant(api)).key

// Cielo's sandbox outcome is the card's last digit: 1 authorised, 2 → 05 (docs/providers.md).
const APPROVED = panEndingIn("402400719769", "1")
const DECLINED = panEndingIn("402400719769", "2")
const EXPIRED = panEndingIn("402400719769", "3")

const rowOf = async (server: TestServer, id: string) =>
  (
    await server.db.query<{ status: string; acquirer: string | null; acquirer_reference: string | null }>(
      "select status, acquirer, acquirer_reference from transactions where id = $1",
      [id]
    )
  ).rows[0]!

/** A service whose live rails are the two fake acquirers, each with `timeoutMs`, and its live key. */
const withBothAcquirers = async (timeoutMs: number, overrides: Parameters<typeof startTestServer>[0] = {}) => {
  const cielo = await startFakeCielo()
  const rede = await startFakeRede()
  const server = await withEnv(
    {
      LIVE_ACQUIRERS: "cielo,rede",
      ANTIFRAUD: "sandbox",
      CIELO_TIMEOUT_MS: String(timeoutMs),
      REDE_TIMEOUT_MS: String(timeoutMs),
      ...cielo.env(),
      ...rede.env()
    },
    () => startTestServer({ rateLimitPerMinute: 100_000, ...overrides })
  )
  const api = client(server.baseUrl)
  return { cielo, rede, server, api, key: await merchantKey(api) }
}

describe("LIVE_ACQUIRERS=cielo,rede", () => {
  let cielo: FakeCielo
  let rede: FakeRede
  let server: TestServer
  let api: Client
  let key: string
  beforeAll(async () => {
    ;({ cielo, rede, server, api, key } = await withBothAcquirers(1_000))
  })
  afterAll(async () => {
    await server?.close()
    await cielo?.close()
    await rede?.close()
  })

  const pending = async (k: string) => {
    const reply = await api.get("/public/v1/balance", { token: k })
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body.data).toMatchObject({ available: 0, reserved: 0 })
    return reply.body.data.pending as number
  }

  const pay = async (amount: number, pan: string) => {
    const { orderId } = await newOrder(api, key, amount)
    return { orderId, reply: await api.post(PROCESS, cardBody(orderId, amount, pan), { key }) }
  }

  it("approved by Cielo: CAPTURED, one sale of exactly the amount at Cielo, none at e.Rede, order PAID", async () => {
    const { orderId, reply } = await pay(12_345, APPROVED)
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.status).toBe("CAPTURED")
    const id = reply.body.transactionId as string
    const sales = cielo.captures(id)
    expect(sales).toHaveLength(1)
    expect(sales[0]!.payment.Amount).toBe(12_345)
    expect(sales[0]!.payment.CapturedAmount).toBe(12_345)
    expect(rede.captures(id)).toHaveLength(0)
    expect(await rowOf(server, id)).toEqual({
      status: "CAPTURED",
      acquirer: "cielo",
      acquirer_reference: sales[0]!.payment.PaymentId
    })
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
  })

  it("a live key's test card numbers are cards like any other: the review card goes to Cielo, CAPTURED", async () => {
    const { reply } = await pay(4_321, "4000000000000101")
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.status).toBe("CAPTURED")
    expect(cielo.captures(reply.body.transactionId as string)).toHaveLength(1)
  })

  it("a test key never reaches an acquirer: the sandbox charges it, no connection reaches either fake", async () => {
    const merchant = await signup(api)
    const connections = () => [cielo.api.connections(), cielo.query.connections(), rede.server.connections()]
    const before = connections()
    const { orderId } = await newOrder(api, merchant.key, 5_000)
    const reply = await api.post(PROCESS, cardBody(orderId, 5_000, APPROVED), { key: merchant.key })
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.status).toBe("CAPTURED")
    expect(await rowOf(server, reply.body.transactionId as string)).toMatchObject({ acquirer: null })
    expect(connections()).toEqual(before)
  })

  it("declined by Cielo (05 → card_declined, 57 → expired_card): 422, never sent to e.Rede", async () => {
    for (const [pan, code] of [
      [DECLINED, "card_declined"],
      [EXPIRED, "expired_card"]
    ] as const) {
      const { orderId, reply } = await pay(4_990, pan)
      const body = expectError(reply, 422, code)
      expect(reply.text).not.toContain(pan)
      expect(rede.captures(body.transactionId as string)).toHaveLength(0)
      expect(rede.seen().some((s) => s.method === "POST")).toBe(false)
      expect(await orderStatus(api, key, orderId)).toBe("PENDING")
    }
  })

  it("Cielo times out before accepting: e.Rede charges it, one capture in all", async () => {
    cielo.faults.inject("sale", { kind: "timeout" })
    const { reply } = await pay(7_777, APPROVED)
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.status).toBe("CAPTURED")
    const id = reply.body.transactionId as string
    expect(cielo.sales().filter((s) => s.merchantOrderId === id)).toHaveLength(0)
    const captured = rede.captures(id)
    expect(captured).toHaveLength(1)
    expect(captured[0]!.amount).toBe(7_777)
    expect(await rowOf(server, id)).toMatchObject({ acquirer: "rede", acquirer_reference: captured[0]!.tid })
  })

  it("Cielo commits then drops the connection: its status query finds the sale, e.Rede never asked", async () => {
    const redeCalls = rede.seen().length
    cielo.faults.inject("sale", { kind: "drop" })
    const { reply } = await pay(5_050, APPROVED)
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.status).toBe("CAPTURED")
    const id = reply.body.transactionId as string
    expect(cielo.captures(id)).toHaveLength(1)
    expect(rede.seen().length).toBe(redeCalls)
    expect(await rowOf(server, id)).toMatchObject({ status: "CAPTURED", acquirer: "cielo" })
  })

  it("refunds go to the acquirer that charged: partial then full, to the centavo at fakes and balance", async () => {
    const own = await merchantKey(api)
    const payOwn = async (amount: number) => {
      const { orderId } = await newOrder(api, own, amount)
      const reply = await api.post(PROCESS, cardBody(orderId, amount, APPROVED), { key: own })
      expect(reply.status, reply.text).toBe(201)
      return reply.body.transactionId as string
    }
    // One charged by Cielo, one by e.Rede (Cielo down for it).
    const atCielo = await payOwn(10_000)
    await cielo.api.down()
    let atRede: string
    try {
      atRede = await payOwn(10_001)
    } finally {
      await cielo.api.up()
    }
    // CONTRACT-v1 §7 with the tests' defaults: card fee 3.99% rounded half up, no reserve; pending until settled.
    const fee = (amount: number) => Math.floor((amount * 399 + 5_000) / 10_000)
    const returned = (f: number, refunded: number, total: number) =>
      Math.floor((2 * f * refunded + total) / (2 * total))
    expect(await pending(own)).toBe(10_000 - fee(10_000) + 10_001 - fee(10_001))
    expect((await rowOf(server, atRede)).acquirer).toBe("rede")
    for (const [id, total] of [
      [atCielo, 10_000],
      [atRede, 10_001]
    ] as const) {
      const before = await pending(own)
      const partial = await api.post(REFUND, { transactionId: id, amount: 2_501 }, { key: own })
      expect(partial.status, partial.text).toBe(200)
      expect(partial.body).toMatchObject({ status: "PARTIAL_REFUND", refundedAmount: 2_501 })
      expect(await pending(own)).toBe(before - (2_501 - returned(fee(total), 2_501, total)))
      const rest = await api.post(REFUND, { transactionId: id }, { key: own })
      expect(rest.status, rest.text).toBe(200)
      expect(rest.body).toMatchObject({ status: "REFUNDED", refundedAmount: total })
      expect(await pending(own)).toBe(before - (total - fee(total)))
    }
    expect(await pending(own)).toBe(0)
    const cieloRef = (await rowOf(server, atCielo)).acquirer_reference!
    const redeRef = (await rowOf(server, atRede)).acquirer_reference!
    expect(cielo.refunded(cieloRef)).toBe(10_000)
    expect(rede.refunded(redeRef)).toBe(10_001)
    // Nothing went to the other one.
    expect(cielo.refunded(redeRef)).toBe(0)
    expect(rede.refunded(cieloRef)).toBe(0)
  })

  it("the acquirer refuses a refund while a dispute opened: 422 refund_failed, the dispute holds it all", async () => {
    // docs/money.md "Refunds and disputes": a refund accepted before the dispute opened, then refused
    // by the acquirer, gives the money back and the open dispute holds it.
    const own = await merchantKey(api)
    const { orderId } = await newOrder(api, own, 20_000)
    const sale = await api.post(PROCESS, cardBody(orderId, 20_000, APPROVED), { key: own })
    expect(sale.status, sale.text).toBe(201)
    const id = sale.body.transactionId as string
    const reference = (await rowOf(server, id)).acquirer_reference!
    cielo.refuseRefunds(true)
    cielo.faults.inject("void", { kind: "slow", ms: 1_000 })
    try {
      const refunding = api.post(REFUND, { transactionId: id }, { key: own })
      await new Promise((resolve) => setTimeout(resolve, 300))
      // Live mode has no sandbox route (404): the chargeback notification reaches the core as the job an
      // acquirer's notice becomes (src/jobs/tasks.ts), which the worker runs at once.
      const account = await server.db.query<{ account_id: string }>(
        "select account_id from transactions where id = $1",
        [id]
      )
      await server.db.query(
        `select graphile_worker.add_job('sandbox_dispute',
           json_build_object('accountId', $1::text, 'transactionId', $2::text))`,
        [account.rows[0]!.account_id, id]
      )
      await eventually(
        async () => ((await rowOf(server, id)).status === "PRE_CHARGEBACK" ? true : undefined),
        5_000,
        20
      )
      expectError(await refunding, 422, "refund_failed")
    } finally {
      cielo.refuseRefunds(false)
    }
    expect(cielo.refunded(reference)).toBe(0)
    const held = await server.db.query<{ amount: number }>(
      `select coalesce(sum(amount), 0)::int as amount from ledger_holds
       where transaction_id = $1 and released_at is null and tag like 'dispute:%'`,
      [id]
    )
    expect(held.rows[0]!.amount).toBe(20_000)
    const refunds = await server.db.query("select status from refunds where transaction_id = $1", [id])
    expect(refunds.rows).toEqual([{ status: "FAILED" }])
  })

  it("a refund Cielo may have made and could not say stays PENDING until an operator concludes it", async () => {
    // docs/providers.md "Known limits": recorded FAILED, the money went back to the merchant while the buyer
    // may have had it too, and a retry with a new key refunded twice.
    const own = await merchantKey(api)
    const { orderId } = await newOrder(api, own, 10_000)
    const sale = await api.post(PROCESS, cardBody(orderId, 10_000, APPROVED), { key: own })
    expect(sale.status, sale.text).toBe(201)
    const id = sale.body.transactionId as string
    const reference = (await rowOf(server, id)).acquirer_reference!
    // CONTRACT-v1 §7 with the tests' defaults: card fee 3.99% rounded half up, no reserve.
    const net = 10_000 - Math.floor((10_000 * 399 + 5_000) / 10_000)
    expect(await pending(own)).toBe(net)
    // What was voided cannot be read before, and the void commits then drops its connection: undecided.
    cielo.faults.inject("void", { kind: "drop" })
    await cielo.query.down()
    let reply: Awaited<ReturnType<Client["post"]>>
    try {
      reply = await api.post(REFUND, { transactionId: id }, { key: own })
    } finally {
      await cielo.query.up()
    }
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toMatchObject({ status: "CAPTURED", refundedAmount: 0 })
    expect(cielo.refunded(reference)).toBe(10_000)
    const refunds = await server.db.query<{ id: string; status: string }>(
      "select id, status from refunds where transaction_id = $1",
      [id]
    )
    expect(refunds.rows.map((r) => r.status)).toEqual(["PENDING"])
    const refundId = refunds.rows[0]!.id
    // Reserved: out of the merchant's balance, and a second refund finds nothing left to refund.
    expect(await pending(own)).toBe(0)
    expectError(await api.post(REFUND, { transactionId: id }, { key: own }), 409)

    // Five minutes on, the operator's queue counts it.
    const gauge = async () => {
      const text = await (await fetch(server.metricsUrl)).text()
      return Number(/^operator_queue\{kind="card_refund_unknown"\} (\d+)/m.exec(text)?.[1])
    }
    expect(await gauge()).toBe(0)
    await server.db.query("update refunds set created_at = now() - interval '6 minutes' where id = $1", [refundId])
    expect(await gauge()).toBe(1)
    const env = { DATABASE_URL: server.databaseUrl }
    const listed = await runCli<Array<{ id: string; acquirer: string; acquirerReference: string }>>(
      ["refunds", "pending"],
      env
    )
    expect(listed.find((r) => r.id === refundId)).toMatchObject({ acquirer: "cielo", acquirerReference: reference })
    // Waiting for the operator is no imbalance: the books check does not flag it (it would page).
    expect(await runCli<{ ok: boolean }>(["ledger", "check"], env)).toMatchObject({ ok: true })
    // The acquirer's records show it made: concluded refunded, once.
    const done = await runCli<{ status: string }>(
      ["refunds", "conclude", "--id", refundId, "--outcome", "refunded"],
      env
    )
    expect(done.status).toBe("SUCCEEDED")
    expect(await rowOf(server, id)).toMatchObject({ status: "REFUNDED" })
    expect(await pending(own)).toBe(0)
    expect(await gauge()).toBe(0)
    await expect(runCli(["refunds", "conclude", "--id", refundId, "--outcome", "not_refunded"], env)).rejects.toThrow(
      /no pending card refund/
    )
  }, 120_000)

  it("an outcome nobody can tell stays PROCESSING; the reconcile job asks Cielo and the order ends PAID", async () => {
    cielo.faults.inject("sale", { kind: "drop" })
    cielo.faults.inject("query", { kind: "error", status: 503 }, 2)
    const { orderId, reply } = await pay(3_333, APPROVED)
    expect(reply.status, reply.text).toBe(201)
    const id = reply.body.transactionId as string
    expect(await rowOf(server, id)).toMatchObject({ status: "PROCESSING", acquirer: null })
    expect(rede.captures(id)).toHaveLength(0)
    // Aged past the reconcile threshold (60 s), as a stuck charge would be.
    await server.db.query("update transactions set updated_at = now() - interval '2 minutes' where id = $1", [id])
    await server.db.query("select graphile_worker.add_job('reconcile_charges', '{}'::json)")
    await eventually(async () => ((await rowOf(server, id)).status === "CAPTURED" ? true : undefined))
    expect(await rowOf(server, id)).toMatchObject({ status: "CAPTURED", acquirer: "cielo" })
    expect(cielo.captures(id)).toHaveLength(1)
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
  })

  it("/metrics shows attempts, approvals and latency per acquirer (after the cases above)", async () => {
    const text = await (await fetch(server.metricsUrl)).text()
    const value = (name: string, labels: Record<string, string>) => {
      const line = text
        .split("\n")
        .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
      return line === undefined ? 0 : Number(line.split(" ").at(-1))
    }
    // Cielo approved the first case; e.Rede charged when Cielo timed out and when it was down.
    expect(value("acquirer_attempts_total", { acquirer: "cielo", outcome: "approved" })).toBeGreaterThanOrEqual(1)
    expect(value("acquirer_attempts_total", { acquirer: "cielo", outcome: "declined" })).toBeGreaterThanOrEqual(2)
    expect(value("acquirer_attempts_total", { acquirer: "cielo", outcome: "not_charged" })).toBeGreaterThanOrEqual(2)
    expect(value("acquirer_attempts_total", { acquirer: "cielo", outcome: "unknown" })).toBeGreaterThanOrEqual(1)
    expect(value("acquirer_attempts_total", { acquirer: "rede", outcome: "approved" })).toBeGreaterThanOrEqual(2)
    expect(value("acquirer_attempt_duration_seconds_count", { acquirer: "rede" })).toBeGreaterThanOrEqual(2)
    expect(value("acquirer_attempt_duration_seconds_count", { acquirer: "cielo" })).toBeGreaterThanOrEqual(5)
  })
})

describe("LIVE_ACQUIRERS=cielo alone", () => {
  let cielo: FakeCielo
  let server: TestServer
  let api: Client
  let key: string
  beforeAll(async () => {
    cielo = await startFakeCielo()
    server = await withEnv(
      { LIVE_ACQUIRERS: "cielo", ANTIFRAUD: "sandbox", CIELO_TIMEOUT_MS: "1000", ...cielo.env() },
      () => startTestServer({ rateLimitPerMinute: 100_000 })
    )
    api = client(server.baseUrl)
    key = await merchantKey(api)
  })
  afterAll(async () => {
    await server?.close()
    await cielo?.close()
  })

  it("commit then drop, no second acquirer: the status query finds the charge, CAPTURED", async () => {
    cielo.faults.inject("sale", { kind: "drop" })
    const { orderId } = await newOrder(api, key, 9_999)
    const reply = await api.post(PROCESS, cardBody(orderId, 9_999, APPROVED), { key })
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.status).toBe("CAPTURED")
    const id = reply.body.transactionId as string
    expect(cielo.captures(id)).toHaveLength(1)
    expect(cielo.captures(id)[0]!.payment.CapturedAmount).toBe(9_999)
    expect(await rowOf(server, id)).toMatchObject({ status: "CAPTURED", acquirer: "cielo" })
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
  })

  it("Cielo times out before accepting, nothing else configured: FAILED processing_error", async () => {
    cielo.faults.inject("sale", { kind: "timeout" })
    const { orderId } = await newOrder(api, key, 1_234)
    const reply = await api.post(PROCESS, cardBody(orderId, 1_234, APPROVED), { key })
    const body = expectError(reply, 422, "processing_error")
    expect(cielo.captures(body.transactionId as string)).toHaveLength(0)
    expect(await orderStatus(api, key, orderId)).toBe("PENDING")
  })
})

describe("a charge the failover is still routing when the reconciliation job runs", () => {
  let cielo: FakeCielo
  let rede: FakeRede
  let server: TestServer
  let api: Client
  let key: string
  beforeAll(async () => {
    // Taken for lost after 2 s unmarked: Cielo alone keeps the charge longer than that.
    ;({ cielo, rede, server, api, key } = await withBothAcquirers(3_000, { reconcileStuckAfterSeconds: 2 }))
  })
  afterAll(async () => {
    await server?.close()
    await cielo?.close()
    await rede?.close()
  })

  it("is marked while its acquirers are asked: the job leaves it, e.Rede captures it, one capture", async () => {
    cielo.faults.inject("sale", { kind: "timeout" })
    const { orderId } = await newOrder(api, key, 6_666)
    // With an Idempotency-Key, as merchants send it: the charge then runs uninterruptibly, and the marking
    // beside it must still end with it.
    const headers = { "idempotency-key": `routing-${orderId}` }
    const sent = api.post(PROCESS, cardBody(orderId, 6_666, APPROVED), { key, headers })
    // Past the 2 s, while Cielo still holds the sale: neither acquirer has it, the job would fail it.
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    await server.db.query("select graphile_worker.add_job('reconcile_charges', '{}'::json)")
    const reply = await sent
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.status).toBe("CAPTURED")
    const id = reply.body.transactionId as string
    expect(rede.captures(id)).toHaveLength(1)
    expect(await rowOf(server, id)).toMatchObject({ status: "CAPTURED", acquirer: "rede" })
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
  })
})
