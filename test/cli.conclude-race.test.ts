import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, liveMerchant } from "./support/http.ts"
import { cardBody, newOrder, PROCESS, REFUND } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { startFakeCielo, type FakeCielo } from "./fakes/cielo/fake.ts"
import { panEndingIn } from "./providers/acquirer.kit.ts"
import { withEnv } from "./support/env.ts"
import { runCliOutput } from "./support/processes.ts"

/**
 * docs/operations.md, `card_refund_unknown`: "`refunds conclude --id ID --outcome refunded` or `not_refunded`"
 * — "concluded (SUCCEEDED, or FAILED with the money back to the merchant), once". Two operators (two shells)
 * conclude the same refund at the same moment: one conclusion is applied, and the other must not be told
 * (exit 0) that its conclusion was made.
 */
const APPROVED = panEndingIn("402400719769", "1")

const cli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCliOutput(args, env, 90_000)

describe("refunds conclude from two shells at once", () => {
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
    key = (await liveMerchant(api)).key
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    await cielo?.close()
  })

  /** A card refund left PENDING (the void's answer lost, not read back), five minutes old: the queue's. */
  const pendingRefund = async () => {
    const { orderId } = await newOrder(api, key, 10_000)
    const sale = await api.post(PROCESS, cardBody(orderId, 10_000, APPROVED), { key })
    expect(sale.status, sale.text).toBe(201)
    const id = sale.body.transactionId as string
    cielo.faults.inject("void", { kind: "drop" })
    await cielo.query.down()
    try {
      const reply = await api.post(REFUND, { transactionId: id }, { key })
      expect(reply.status, reply.text).toBe(200)
    } finally {
      await cielo.query.up()
    }
    const refunds = await server.db.query<{ id: string; status: string }>(
      "select id, status from refunds where transaction_id = $1",
      [id]
    )
    expect(refunds.rows.map((r) => r.status)).toEqual(["PENDING"])
    const refundId = refunds.rows[0]!.id
    await server.db.query("update refunds set created_at = now() - interval '6 minutes' where id = $1", [refundId])
    return { transactionId: id, refundId }
  }

  it("the operator whose conclusion was not applied is not told it was (exit 1, no pending card refund)", async () => {
    const { transactionId, refundId } = await pendingRefund()
    const env = { DATABASE_URL: server.databaseUrl }
    // Both shells read the refund PENDING, then wait on the transaction's row (held here a moment, as a
    // slow statement of the API or the other shell would hold it), then each concludes in turn.
    const holder = new pg.Client({ connectionString: server.databaseUrl })
    await holder.connect()
    try {
      await holder.query("begin")
      await holder.query("select 1 from transactions where id = $1 for update", [transactionId])
      const first = cli(["refunds", "conclude", "--id", refundId, "--outcome", "refunded"], env)
      const second = cli(["refunds", "conclude", "--id", refundId, "--outcome", "not_refunded"], env)
      const deadline = Date.now() + 60_000
      for (;;) {
        const waiting = await server.db.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where wait_event_type = 'Lock' and datname = current_database()`
        )
        if (waiting.rows[0]!.n >= 2) break
        if (Date.now() > deadline) throw new Error("the two CLIs never reached the row lock")
        await new Promise((r) => setTimeout(r, 200))
      }
      await holder.query("commit")
      const results = await Promise.all([first, second])
      const status = (await server.db.query<{ status: string }>("select status from refunds where id = $1", [refundId]))
        .rows[0]!.status
      const asked = ["SUCCEEDED", "FAILED"]
      // Exactly one conclusion stands; the shell whose outcome was not recorded must fail.
      const ok = results.filter((r) => r.code === 0)
      expect(
        ok.length,
        `refund ended ${status}; exits: ` +
          results
            .map(
              (r, i) =>
                `${asked[i]} → ${r.code} ${r.stdout.replace(/\s+/g, " ").slice(0, 200)} ${r.stderr.slice(0, 300)}`
            )
            .join(" | ")
      ).toBe(1)
      expect(results[asked.indexOf(status)]!.code).toBe(0)
    } finally {
      await holder.end()
    }
  }, 180_000)
})
