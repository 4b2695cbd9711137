import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { boletoBody, newOrder, orderStatus, PROCESS, transactionStatus } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Test mode: a boleto the buyer paid at the sandbox bank (202, "the sandbox bank records the payment",
 * CONTRACT §7) and then ended by the sandbox's expire before the confirmation job read the bank was never
 * read again: `confirm_boletos` asks the bank only about PENDING slips, and the buyer's payment was recorded
 * nowhere — not the sale, not `boleto_payments_to_return`, not the books. A real boleto stays PENDING past
 * its last payable day to hear of such a payment (docs/boleto.md "When a boleto expires"), so the sandbox's
 * expire of a slip its bank has taken a payment of is refused (409 invalid_state) and the payment settles
 * the sale at the next confirmation (docs/decisions.md "Sandbox").
 */
let server: TestServer
let api: Client

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, boletoConfirmationDelaySeconds: 1 })
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

describe("a sandbox boleto paid at the bank, then ended before its confirmation", () => {
  it("the payment the bank took is recorded in the books, not lost", async () => {
    const { key } = await signup(api)
    const amount = 10_000
    const { orderId } = await newOrder(api, key, amount)
    const charged = await api.post(PROCESS, boletoBody(orderId, amount), { key })
    expect(charged.status, charged.text).toBe(201)
    const id = charged.body.transactionId as string
    const { rows: accounts } = await server.db.query<{ account_id: string }>(
      "select account_id from transactions where id = $1",
      [id]
    )
    const accountId = accounts[0]!.account_id

    const paid = await api.post(`/api/sandbox/transactions/${id}/pay`, undefined, { key })
    expect(paid.status, paid.text).toBe(202)
    const expired = await api.post(`/api/sandbox/transactions/${id}/expire`, undefined, { key })
    expect(expired.status, expired.text).toBe(409)
    expect(expired.body.code).toBe("invalid_state")

    // Past the confirmation delay, the job runs (and again, for good measure).
    await sleep(1_500)
    await server.db.query("select graphile_worker.add_job('confirm_boletos', '{}'::json)")
    await sleep(1_500)
    await server.db.query("select graphile_worker.add_job('confirm_boletos', '{}'::json)")
    await sleep(1_500)

    const bank = await server.db.query("select amount from sandbox_boleto_payments where transaction_id = $1", [id])
    expect(bank.rows.map((r) => Number(r.amount))).toEqual([amount])
    const status = await transactionStatus(api, key, id)
    const order = await orderStatus(api, key, orderId)
    const { rows } = await server.db.query<{ total: string | null }>(
      `select sum(amount) as total from ledger_postings
       where account_id = $1 and transaction_id = $2 and party = 'system' and book = 'payers'`,
      [accountId, id]
    )
    const receivedFromPayers = 0 - Number(rows[0]!.total ?? 0)
    expect({ status, order, receivedFromPayers }, "the bank took the buyer's 100,00").toEqual({
      status: "PAID",
      order: "PAID",
      receivedFromPayers: amount
    })
  }, 60_000)
})
