import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf } from "./support/payments.ts"
import { moneyConfig } from "./support/money.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The sandbox dispute card (4000000000000259) announces one chargeback, opened by the `sandbox_dispute` job
 * SANDBOX_DISPUTE_DELAY_SECONDS after capture. src/jobs/tasks.ts says of that job: "refunded or disputed
 * meanwhile, there is nothing to open". A dispute opened by the acquirer's notification (the sandbox endpoint)
 * and won before the job runs returns the sale to PAID (CONTRACT-v1 §10), and the job then opened a second
 * dispute of the same announced chargeback: the merchant's money was held again (Disputes.announcedChargeback).
 */

const V1 = "/public/v1"
const DELAY_SECONDS = 4

let server: TestServer
let api: Client

beforeAll(async () => {
  server = await startTestServer({
    rateLimitPerMinute: 100_000,
    money: moneyConfig({ disputeDelaySeconds: DELAY_SECONDS })
  })
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

const balance = async (key: string) => {
  const reply = await api.get(`${V1}/balance`, { token: key })
  expect(reply.status, reply.text).toBe(200)
  const { available, pending, reserved } = reply.body.data
  return { available, pending, reserved }
}

describe("the dispute card's announced chargeback, already disputed and won", () => {
  it("is not opened a second time by the sandbox_dispute job", async () => {
    const { key } = await signup(api)
    const created = await api.post(
      `${V1}/transactions`,
      {
        method: "credit_card",
        amount: 10_000,
        installments: 1,
        customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "8.8.8.8" },
        card: {
          number: CARDS.chargeback,
          holder_name: "MARIA SILVA",
          exp_month: "12",
          exp_year: String(new Date().getUTCFullYear() + 3),
          cvv: "123"
        }
      },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    expect(created.body.data.status).toBe("paid")
    const hash = created.body.data.hash as string
    const afterSale = await balance(key)

    // The acquirer's notification of that chargeback arrives first, and the merchant wins it.
    const opened = await api.post(`/api/sandbox/transactions/${hash}/chargeback`, { stage: "open" }, { key })
    expect(opened.status, opened.text).toBe(200)
    const won = await api.post(`/api/sandbox/transactions/${hash}/chargeback`, { stage: "won" }, { key })
    expect(won.status, won.text).toBe(200)
    expect(won.body.status).toBe("PAID")
    expect(await balance(key)).toEqual(afterSale)

    // Past the job's time (it runs once: its key is the transaction's).
    await new Promise((resolve) => setTimeout(resolve, (DELAY_SECONDS + 3) * 1000))
    const jobs = await server.db.query(
      "select count(*)::int as n from graphile_worker.jobs where task_identifier = 'sandbox_dispute'"
    )
    expect(jobs.rows[0].n).toBe(0)

    const t = await api.get(`${V1}/transactions/${hash}`, { token: key })
    expect(t.body.data.status).toBe("paid")
    expect(await balance(key)).toEqual(afterSale)
    const opens = await server.db.query("select count(*)::int as n from ledger_entries where key like $1", [
      `dispute:${hash}:%:open`
    ])
    expect(opens.rows[0].n).toBe(1)
  }, 30_000)
})
