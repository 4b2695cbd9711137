import { readFileSync } from "node:fs"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseAllDocuments } from "yaml"
import { client, type Client, liveMerchant } from "./support/http.ts"
import { cardBody, newOrder, orderStatus, PROCESS, REFUND } from "./support/payments.ts"
import { until } from "./support/payments-fixtures.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { startFakeCielo, type FakeCielo } from "./fakes/cielo/fake.ts"
import { panEndingIn } from "./providers/acquirer.kit.ts"
import { withEnv } from "./support/env.ts"
import { runCli, runCliOutput } from "./support/processes.ts"

/**
 * A card charge the acquirer captured (or declined) whose answer was lost, and whose status query keeps failing
 * (Cielo's status endpoint answering 503), stays PROCESSING while `reconcile_charges` asks every minute. Five
 * minutes after any request last worked on it, it waits for an operator (docs/operations.md "What waits for an
 * operator", `card_charge_unknown`): counted on /metrics and alerted on (ops/alerts.yml
 * GatewayCardChargeUndecided), listed by `npm run cli -- charges pending`, and concluded from the acquirer's
 * records by `charges conclude --id ID --captured|--declined`, once, under the transaction's row lock: captured
 * books the sale (CAPTURED, its postings, `transaction.paid`, the order PAID), declined ends it DECLINED and
 * the order takes another charge. The job keeps asking meanwhile: whichever concludes first wins.
 *
 * The books are the test service's rules (test/support/config.ts `defaultMoney`): card fee 3.99 % of
 * amount_total rounded half up, no rolling reserve. The acquirer's breaker is kept closed
 * (ACQUIRER_BREAKER_FAILURES): the status queries failing on purpose here must not fail the charges that follow.
 */

// Cielo's sandbox outcome is the card's last digit: 1 authorised, 2 refused (docs/providers.md).
const APPROVED = panEndingIn("402400719769", "1")
const DECLINED = panEndingIn("402400719769", "2")

const ALERTS = new URL("../ops/alerts.yml", import.meta.url)

let cielo: FakeCielo
let server: TestServer
let api: Client
let env: Record<string, string>

beforeAll(async () => {
  cielo = await startFakeCielo()
  server = await withEnv(
    {
      LIVE_ACQUIRERS: "cielo",
      ANTIFRAUD: "sandbox",
      CIELO_TIMEOUT_MS: "1000",
      ACQUIRER_BREAKER_FAILURES: "100000",
      ...cielo.env()
    },
    () => startTestServer({ rateLimitPerMinute: 100_000 })
  )
  api = client(server.baseUrl)
  env = { DATABASE_URL: server.databaseUrl }
}, 120_000)
afterAll(async () => {
  await server?.close()
  await cielo?.close()
})

const metrics = async () => (await fetch(server.metricsUrl)).text()

/** `operator_queue{kind="card_charge_unknown"}` and its oldest's age, as every process reports them. */
const queue = async () => {
  const text = await metrics()
  const value = (name: string) => {
    const found = new RegExp(`^${name}\\{kind="card_charge_unknown"\\} ([0-9.e+]+)$`, "m").exec(text)
    if (found === null) throw new Error(`${name}{kind="card_charge_unknown"} is not on /metrics`)
    return Number(found[1])
  }
  return { count: value("operator_queue"), oldest: value("operator_queue_oldest_age_seconds") }
}

const runsOf = async (outcome: string) => {
  const line = (await metrics())
    .split("\n")
    .find(
      (l) =>
        l.startsWith("job_runs_total{") && l.includes('task="reconcile_charges"') && l.includes(`outcome="${outcome}"`)
    )
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
}

/** Runs reconcile_charges once now and waits for the run to be counted. */
const reconcileOnce = async () => {
  const before = (await runsOf("success")) + (await runsOf("failure"))
  await server.db.query("select graphile_worker.add_job('reconcile_charges', '{}'::json)")
  await until(
    "the reconcile run",
    async () => ((await runsOf("success")) + (await runsOf("failure")) > before ? true : undefined),
    20_000
  )
}

const rowOf = async (id: string) =>
  (
    await server.db.query<{
      status: string
      decline_code: string | null
      acquirer_reference: string | null
      paid_at: Date | null
    }>("select status, decline_code, acquirer_reference, paid_at from transactions where id = $1", [id])
  ).rows[0]!

const postingsOf = async (id: string) =>
  (
    await server.db.query<{ party: string; book: string; type: string; amount: string }>(
      `select party, book, type, sum(amount)::text as amount from ledger_postings where transaction_id = $1
       group by party, book, type order by party, book, type`,
      [id]
    )
  ).rows.map((r) => ({ ...r, amount: Number(r.amount) }))

const eventsOf = async (id: string) =>
  (
    await server.db.query<{ type: string }>("select type from events where transaction_id = $1 order by created_at", [
      id
    ])
  ).rows.map((r) => r.type)

const balanceOf = async (key: string) => {
  const reply = await api.get("/public/v1/balance", { token: key })
  expect(reply.status, reply.text).toBe(200)
  return reply.body.data as { available: number; pending: number; reserved: number }
}

/**
 * A live merchant's card charge of `amount` that Cielo decided (the card's last digit) and whose answer was lost,
 * its status query failing from then on; left `age` since any request worked on it (as after that long of
 * reconcile_charges asking every minute).
 */
const undecidedCharge = async (amount: number, pan: string, age = "1 hour") => {
  const merchant = await liveMerchant(api)
  cielo.faults.inject("sale", { kind: "drop" })
  cielo.faults.inject("query", { kind: "error", status: 503 }, 10_000)
  const { orderId } = await newOrder(api, merchant.key, amount)
  const reply = await api.post(PROCESS, cardBody(orderId, amount, pan), { key: merchant.key })
  expect(reply.status, reply.text).toBe(201)
  const id = reply.body.transactionId as string
  expect(await rowOf(id)).toMatchObject({ status: "PROCESSING" })
  const accountId = (await server.db.query("select account_id from transactions where id = $1", [id])).rows[0]
    .account_id as string
  const age_ = async () =>
    server.db.query(`update transactions set updated_at = now() - $2::interval where id = $1`, [id, age])
  return { key: merchant.key, accountId, orderId, id, age: age_ }
}

/** A card sale of 4_321: fee 3.99 % (172.4079 → 172), 4_149 pending to the merchant. */
const SALE = 4_321
const FEE = 172
const salePostings = [
  { party: "merchant", book: "pending", type: "fee", amount: -FEE },
  { party: "merchant", book: "pending", type: "sale", amount: SALE },
  { party: "system", book: "acquirer", type: "sale", amount: -SALE },
  { party: "system", book: "fees", type: "fee", amount: FEE }
]

describe("a card charge whose outcome the acquirer could not say", () => {
  it("waits in the operator queue as card_charge_unknown once PROCESSING five minutes, and is alerted on", async () => {
    const before = await queue()
    const charge = await undecidedCharge(SALE, APPROVED)
    // The buyer was charged at Cielo.
    expect(cielo.captures(charge.id)).toHaveLength(1)
    // A charge a request may still be sending is not counted.
    expect((await queue()).count).toBe(before.count)
    await charge.age()
    // reconcile_charges keeps asking; the status query keeps failing; the charge stays PROCESSING.
    for (let i = 0; i < 3; i++) await reconcileOnce()
    expect(await rowOf(charge.id)).toMatchObject({ status: "PROCESSING" })
    expect(await postingsOf(charge.id)).toEqual([])
    const after = await queue()
    expect(after.count).toBe(before.count + 1)
    expect(after.oldest).toBeGreaterThanOrEqual(3_600)
    // The alert fires on any of them, as the undecided card refund's does.
    const rules = parseAllDocuments(readFileSync(ALERTS, "utf8")).flatMap(
      (d) => (d.toJS() as { groups: Array<{ rules: Array<{ alert: string; expr: string; for?: string }> }> }).groups
    )
    const alert = rules.flatMap((g) => g.rules).find((r) => r.alert === "GatewayCardChargeUndecided")
    expect(alert).toMatchObject({ expr: 'max(operator_queue{kind="card_charge_unknown"}) > 0', for: "10m" })
  }, 120_000)

  it("is listed by `charges pending`, every account's, oldest first, with its amount and order", async () => {
    const older = await undecidedCharge(1_000, APPROVED, "2 hours")
    const newer = await undecidedCharge(2_000, APPROVED, "6 minutes")
    const young = await undecidedCharge(3_000, APPROVED, "4 minutes")
    await older.age()
    await newer.age()
    await young.age()
    const listed = await runCli<Array<{ id: string; accountId: string; orderId: string; amount: number }>>(
      ["charges", "pending"],
      env
    )
    const ids = listed.map((c) => c.id)
    expect(ids).toContain(older.id)
    expect(ids).toContain(newer.id)
    // Four minutes: a request may still be sending it; neither listed nor concludable.
    expect(ids).not.toContain(young.id)
    expect(ids.indexOf(older.id)).toBeLessThan(ids.indexOf(newer.id))
    expect(listed.find((c) => c.id === older.id)).toMatchObject({
      accountId: older.accountId,
      orderId: older.orderId,
      amount: 1_000
    })
    expect(listed.find((c) => c.id === newer.id)).toMatchObject({ accountId: newer.accountId, amount: 2_000 })
    await expect(runCli(["charges", "conclude", "--id", young.id, "--declined"], env)).rejects.toThrow(
      /no pending card charge/
    )
    expect(await rowOf(young.id)).toMatchObject({ status: "PROCESSING" })
  }, 120_000)

  it("concluded captured: CAPTURED, the sale's postings to the centavo, transaction.paid, the order PAID", async () => {
    const charge = await undecidedCharge(SALE, APPROVED)
    await charge.age()
    const waiting = (await queue()).count
    const reference = cielo.captures(charge.id)[0]!.payment.PaymentId
    const done = await runCli<{ id: string; status: string; acquirerReference: string; amount: number }>(
      ["charges", "conclude", "--id", charge.id, "--captured", "--reference", reference],
      env
    )
    expect(done).toMatchObject({ id: charge.id, status: "CAPTURED", acquirerReference: reference, amount: SALE })
    const row = await rowOf(charge.id)
    expect(row).toMatchObject({ status: "CAPTURED", acquirer_reference: reference })
    expect(row.paid_at).not.toBeNull()
    expect(await postingsOf(charge.id)).toEqual(salePostings)
    // The merchant is credited: the sale less its fee, pending (4_321 − 172 = 4_149).
    expect(await balanceOf(charge.key)).toMatchObject({ available: 0, pending: 4_149, reserved: 0 })
    expect(await eventsOf(charge.id)).toContain("transaction.paid")
    expect(await orderStatus(api, charge.key, charge.orderId)).toBe("PAID")
    expect((await queue()).count).toBe(waiting - 1)
    // The reference recorded is Cielo's: a refund reaches the sale the buyer paid.
    const refund = await api.post(REFUND, { transactionId: charge.id }, { key: charge.key })
    expect(refund.status, refund.text).toBe(200)
    expect(cielo.refunded(reference)).toBe(SALE)

    // A second conclusion is refused, and changes nothing.
    const second = await runCliOutput(["charges", "conclude", "--id", charge.id, "--declined"], env)
    expect(second.code).toBe(1)
    expect(second.stderr).toMatch(/no pending card charge/)
    expect(await rowOf(charge.id)).toMatchObject({ status: "REFUNDED" })
    expect((await postingsOf(charge.id)).filter((p) => p.type === "sale")).toEqual(
      salePostings.filter((p) => p.type === "sale")
    )
  }, 120_000)

  it("concluded declined: DECLINED with nothing posted, and the order takes another card charge", async () => {
    const charge = await undecidedCharge(SALE, DECLINED)
    expect(cielo.captures(charge.id)).toHaveLength(0)
    await charge.age()
    // While nobody knows whether the buyer was charged, the order takes no other card charge, however old.
    const meanwhile = await api.post(PROCESS, cardBody(charge.orderId, SALE, APPROVED), { key: charge.key })
    expect(meanwhile.status, meanwhile.text).toBe(409)
    expect(meanwhile.body.code).toBe("payment_in_progress")
    const done = await runCli<{ status: string; declineCode: string }>(
      ["charges", "conclude", "--id", charge.id, "--declined"],
      env
    )
    expect(done).toMatchObject({ status: "DECLINED", declineCode: "card_declined" })
    expect(await rowOf(charge.id)).toMatchObject({ status: "DECLINED", decline_code: "card_declined", paid_at: null })
    expect(await postingsOf(charge.id)).toEqual([])
    expect(await balanceOf(charge.key)).toMatchObject({ available: 0, pending: 0, reserved: 0 })
    expect(await eventsOf(charge.id)).toContain("transaction.declined")
    expect(await orderStatus(api, charge.key, charge.orderId)).toBe("PENDING")
    await expect(runCli(["charges", "conclude", "--id", charge.id, "--captured"], env)).rejects.toThrow(
      /no pending card charge/
    )
    // No longer in progress: the buyer pays the order with another card.
    cielo.faults.clear()
    const again = await api.post(PROCESS, cardBody(charge.orderId, SALE, APPROVED), { key: charge.key })
    expect(again.status, again.text).toBe(201)
    expect(again.body.status).toBe("CAPTURED")
    expect(await orderStatus(api, charge.key, charge.orderId)).toBe("PAID")
  }, 120_000)

  it("concluded by two operators at once: one conclusion is applied, the other is refused", async () => {
    const charge = await undecidedCharge(SALE, APPROVED)
    await charge.age()
    // Both shells find it pending, then wait on the transaction's row (held here a moment, as a slow statement
    // of the API would hold it); then each concludes in turn.
    const holder = new pg.Client({ connectionString: server.databaseUrl })
    await holder.connect()
    try {
      await holder.query("begin")
      await holder.query("select 1 from transactions where id = $1 for update", [charge.id])
      const asked = ["CAPTURED", "DECLINED"]
      const first = runCliOutput(["charges", "conclude", "--id", charge.id, "--captured"], env, 90_000)
      const second = runCliOutput(["charges", "conclude", "--id", charge.id, "--declined"], env, 90_000)
      // A CLI that ends before reaching the row (it refused at once) is waited for no longer.
      let ended = 0
      for (const cli of [first, second]) void cli.finally(() => ended++)
      await until(
        "both CLIs waiting on the row",
        async () => {
          const waiting = await server.db.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity
             where wait_event_type = 'Lock' and datname = current_database()`
          )
          return waiting.rows[0]!.n >= 2 || ended > 0 ? true : undefined
        },
        60_000,
        200
      )
      await holder.query("commit")
      const results = await Promise.all([first, second])
      const status = (await rowOf(charge.id)).status
      const describe = results.map((r, i) => `${asked[i]} → ${r.code} ${r.stderr.slice(0, 200)}`).join(" | ")
      expect(
        results.filter((r) => r.code === 0),
        `ended ${status}: ${describe}`
      ).toHaveLength(1)
      expect(results[asked.indexOf(status)]!.code, describe).toBe(0)
      expect(results[1 - asked.indexOf(status)]!.stderr).toMatch(/no pending card charge/)
      // Booked once, by the conclusion that was applied.
      expect(await postingsOf(charge.id)).toEqual(status === "CAPTURED" ? salePostings : [])
    } finally {
      await holder.end()
    }
  }, 180_000)

  it("concluded by reconcile_charges first once the acquirer answers: the operator finds it concluded", async () => {
    const charge = await undecidedCharge(SALE, APPROVED)
    await charge.age()
    cielo.faults.clear()
    await reconcileOnce()
    await until("the reconciliation's capture", async () =>
      (await rowOf(charge.id)).status === "CAPTURED" ? true : undefined
    )
    await expect(runCli(["charges", "conclude", "--id", charge.id, "--declined"], env)).rejects.toThrow(
      /no pending card charge/
    )
    expect(await rowOf(charge.id)).toMatchObject({ status: "CAPTURED" })
    expect(await postingsOf(charge.id)).toEqual(salePostings)
    expect(await orderStatus(api, charge.key, charge.orderId)).toBe("PAID")
  }, 120_000)
})
