import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { boletoBody, cardBody, CARDS, newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { sleep } from "./support/payments-fixtures.ts"
import { blockedBy } from "./support/locks.ts"

/**
 * Provider faults (issue 7, item 6): a PSP or bank outage is a 503 with Retry-After and records
 * nothing; a card charge whose process died while the acquirer answered is settled by the
 * reconcile_charges job from the acquirer's own record of the idempotency key.
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

const OUTAGE = 50_301

describe("a PIX or boleto provider outage", () => {
  for (const method of ["PIX", "BOLETO"] as const) {
    it(`${method}: 503 provider_unavailable with Retry-After, no transaction, the order still payable`, async () => {
      const { orderId } = await newOrder(api, key, OUTAGE)
      const body = method === "PIX" ? pixBody(orderId, OUTAGE) : boletoBody(orderId, OUTAGE)
      const res = await api.post(PROCESS, body, { key })
      expect(res.status).toBe(503)
      expect(res.headers.get("retry-after")).toBe("30")
      expect(res.body).toMatchObject({ statusCode: 503, error: "Service Unavailable", code: "provider_unavailable" })
      expect(res.body.retryAfter).toBe(30)
      const rows = await server.db.query("select count(*)::int as n from transactions where order_id = $1", [orderId])
      expect(rows.rows[0].n).toBe(0)
      const order = await api.get(`/api/orders/${orderId}`, { key })
      expect(order.body.status).toBe("PENDING")
    })
  }

  it("a 503 is not the key's outcome: the retry with the same key runs again (README 'Idempotency')", async () => {
    const { orderId } = await newOrder(api, key, OUTAGE)
    const headers = { "idempotency-key": `outage-${orderId}` }
    const body = pixBody(orderId, OUTAGE)
    const first = await api.post(PROCESS, body, { key, headers })
    expect(first.status).toBe(503)
    // Still out, so 503 again, but asked of the PSP again: no replay, its own Retry-After.
    const again = await api.post(PROCESS, body, { key, headers })
    expect(again.status).toBe(503)
    expect(again.headers.get("idempotent-replayed")).toBeNull()
    expect(again.headers.get("retry-after")).toBe("30")
    const stored = await server.db.query("select count(*)::int as n from idempotency_keys where key = $1", [
      headers["idempotency-key"]
    ])
    expect(stored.rows[0].n).toBeLessThanOrEqual(1)
  })
})

/** Puts a transaction back where a crashed process would have left it: PROCESSING, two minutes old. */
const strand = async (id: string) => {
  await server.db.query(
    `update transactions set status = 'PROCESSING', paid_at = null, acquirer_reference = null,
            updated_at = now() - interval '2 minutes' where id = $1`,
    [id]
  )
  await server.db.query(
    `update orders set status = 'PENDING' where id = (select order_id from transactions where id = $1)`,
    [id]
  )
}

const runReconcile = async () => {
  await server.db.query("select graphile_worker.add_job('reconcile_charges', '{}'::json)")
}

const statusOf = async (id: string) =>
  (
    await server.db.query<{ status: string; decline_code: string | null }>(
      "select status, decline_code from transactions where id = $1",
      [id]
    )
  ).rows[0]!

const waitFor = async (id: string, status: string) => {
  for (let i = 0; i < 100; i++) {
    const row = await statusOf(id)
    if (row.status === status) return row
    await sleep(100)
  }
  return statusOf(id)
}

describe("the reconcile_charges job", () => {
  it("captures a charge the acquirer approved before its process died, and pays the order", async () => {
    const { orderId } = await newOrder(api, key, 4_321)
    const res = await api.post(PROCESS, cardBody(orderId, 4_321, CARDS.visa), { key })
    expect(res.status).toBe(201)
    const id = res.body.transactionId as string
    await strand(id)
    await runReconcile()
    const row = await waitFor(id, "CAPTURED")
    expect(row.status).toBe("CAPTURED")
    const order = await api.get(`/api/orders/${orderId}`, { key })
    expect(order.body.status).toBe("PAID")
    const events = await server.db.query("select type from events where transaction_id = $1 order by created_at", [id])
    expect(events.rows.map((r) => r.type)).toEqual(["transaction.created", "transaction.paid", "transaction.paid"])
  })

  it("fails a charge the acquirer never received (processing_error), freeing the order", async () => {
    const { orderId } = await newOrder(api, key, 1_234)
    const res = await api.post(PROCESS, cardBody(orderId, 1_234, CARDS.visa), { key })
    const id = res.body.transactionId as string
    // Another id than the acquirer saw: as if the request never reached it.
    const orphan = "00000000-0000-4000-8000-" + id.slice(-12)
    await server.db.query(
      `insert into transactions (id, account_id, origin, order_id, customer_id, method, amount, status, details)
       select $2, account_id, origin, order_id, customer_id, method, amount, 'PROCESSING', details
       from transactions where id = $1`,
      [id, orphan]
    )
    await server.db.query("update transactions set updated_at = now() - interval '2 minutes' where id = $1", [orphan])
    await runReconcile()
    const row = await waitFor(orphan, "FAILED")
    expect(row).toEqual({ status: "FAILED", decline_code: "processing_error" })
  })

  it("leaves to a retry a charge it resumed while the job asked the acquirer (it would have failed it)", async () => {
    const { orderId } = await newOrder(api, key, 1_235)
    const res = await api.post(PROCESS, cardBody(orderId, 1_235, CARDS.visa), { key })
    const id = res.body.transactionId as string
    // An id the acquirer never saw, stuck in PROCESSING for two minutes: the job asks, hears NotReceived.
    const orphan = "00000000-0000-4000-9000-" + id.slice(-12)
    await server.db.query(
      `insert into transactions (id, account_id, origin, order_id, customer_id, method, amount, status, details,
                                 updated_at)
       select $2, account_id, origin, order_id, customer_id, method, amount, 'PROCESSING', details,
              now() - interval '2 minutes'
       from transactions where id = $1`,
      [id, orphan]
    )
    const holder = await server.db.connect()
    try {
      await holder.query("begin")
      await holder.query("select 1 from transactions where id = $1 for update", [orphan])
      await runReconcile()
      // The job has its answer and waits for the row; a retry with the charge's Idempotency-Key resumes it
      // now and marks it (Payments.chargeCard's touchProcessing) before sending it to the acquirer.
      await blockedBy(server.db, holder, 10_000)
      await holder.query("update transactions set updated_at = now() where id = $1", [orphan])
      await holder.query("commit")
    } finally {
      holder.release()
    }
    await sleep(2_000)
    // That retry's acquirer answer settles it; the job's NotReceived, older than the retry, does not.
    expect((await statusOf(orphan)).status).toBe("PROCESSING")
    await server.db.query("update transactions set status = 'FAILED' where id = $1", [orphan])
  })

  it("leaves a young PROCESSING charge alone (its process may still be waiting for the acquirer)", async () => {
    const { orderId } = await newOrder(api, key, 2_222)
    const res = await api.post(PROCESS, cardBody(orderId, 2_222, CARDS.visa), { key })
    const id = res.body.transactionId as string
    await server.db.query("update transactions set status = 'PROCESSING' where id = $1", [id])
    await runReconcile()
    await sleep(3_000)
    expect((await statusOf(id)).status).toBe("PROCESSING")
  })
})
