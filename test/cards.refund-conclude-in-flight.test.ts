import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, liveMerchant } from "./support/http.ts"
import { cardBody, newOrder, PROCESS, REFUND } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { startFakeCielo, type FakeCielo } from "./fakes/cielo/fake.ts"
import { panEndingIn } from "./providers/acquirer.kit.ts"
import { runCli } from "./support/processes.ts"
import { withEnv } from "./support/env.ts"

/**
 * `refunds pending` and `refunds conclude` take only a card refund PENDING for over five minutes, the operator
 * queue's `card_refund_unknown` (docs/operations.md): a younger one may be a request still waiting for its
 * acquirer. Concluded `not_refunded` meanwhile, the money went back to the merchant, the acquirer then
 * answered that it refunded, and the request found the refund FAILED and answered 422: the buyer had the
 * refund and the merchant the money.
 */
const APPROVED = panEndingIn("402400719769", "1")

describe("refunds conclude on a card refund still in flight", () => {
  let cielo: FakeCielo
  let server: TestServer
  let api: Client
  let key: string
  beforeAll(async () => {
    cielo = await startFakeCielo()
    server = await withEnv(
      { LIVE_ACQUIRERS: "cielo", ANTIFRAUD: "sandbox", CIELO_TIMEOUT_MS: "25000", ...cielo.env() },
      () => startTestServer({ rateLimitPerMinute: 100_000 })
    )
    api = client(server.baseUrl)
    key = (await liveMerchant(api)).key
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    await cielo?.close()
  })

  it("is refused, and the refund ends as Cielo answers: SUCCEEDED, the sale REFUNDED", async () => {
    const { orderId } = await newOrder(api, key, 10_000)
    const sale = await api.post(PROCESS, cardBody(orderId, 10_000, APPROVED), { key })
    expect(sale.status, sale.text).toBe(201)
    const id = sale.body.transactionId as string
    const reference = (
      await server.db.query<{ r: string }>("select acquirer_reference as r from transactions where id = $1", [id])
    ).rows[0]!.r
    // Cielo voids at once and answers 15 s later: the request is alive and waiting all that time.
    cielo.faults.inject("void", { kind: "slow", ms: 15_000 })
    const inFlight = api.post(REFUND, { transactionId: id }, { key })
    let refundId: string | undefined
    for (let i = 0; i < 50 && refundId === undefined; i++) {
      await new Promise((r) => setTimeout(r, 100))
      refundId = (await server.db.query<{ id: string }>("select id from refunds where transaction_id = $1", [id]))
        .rows[0]?.id
    }
    expect(refundId).toBeDefined()
    const env = { DATABASE_URL: server.databaseUrl }
    // Offered to the operator and concluded while its own request still waits for Cielo.
    const listed = (await runCli(["refunds", "pending"], env)) as ReadonlyArray<{ id: string }>
    let concluded: unknown = "refused"
    try {
      concluded = await runCli(["refunds", "conclude", "--id", refundId!, "--outcome", "not_refunded"], env)
    } catch {
      // Refused: too young to be the operator's.
    }
    expect(listed.map((r) => r.id)).not.toContain(refundId)
    const reply = await inFlight
    const row = (await server.db.query<{ status: string }>("select status from refunds where id = $1", [refundId]))
      .rows[0]!
    const tx = (
      await server.db.query<{ status: string; refunded_amount: string }>(
        "select status, refunded_amount from transactions where id = $1",
        [id]
      )
    ).rows[0]!
    // What Cielo did: the whole sale voided.
    expect(cielo.refunded(reference)).toBe(10_000)
    // The books must say so too: the refund SUCCEEDED, the transaction REFUNDED.
    expect({
      concluded: concluded === "refused" ? "refused" : "concluded",
      reply: reply.status,
      refund: row.status,
      transaction: tx.status
    }).toEqual({
      concluded: "refused",
      reply: 200,
      refund: "SUCCEEDED",
      transaction: "REFUNDED"
    })
  }, 120_000)
})
