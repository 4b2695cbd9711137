import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A PIX charge is recorded by one statement after its admission (issue 22 §2, docs/performance.md "One
 * statement after admission"): the order as read a moment before is expected unchanged under its row
 * lock by the statement that writes the transaction, its event, documents, job and idempotency reply.
 * These tests change the order between that read and that statement, and check that the charge then
 * writes nothing and answers from the order as it is (the locking path), as it did in two transactions.
 */

let server: TestServer
let api: Client
let key: string

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 }, { role: "api" })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

/**
 * Holds the order's row lock on a connection of its own, sends the charge (its read does not wait for a
 * lock; its statement does), waits until that statement waits for the lock, then runs `change` and
 * commits it: the waiting statement finds the order changed.
 */
const chargeWhileChanging = async (body: object, orderId: string, change: string, idempotencyKey: string) => {
  const held = await server.db.connect()
  try {
    await held.query("begin")
    await held.query("select 1 from orders where id = $1 for update", [orderId])
    const reply = api.post(PROCESS, body, { key, headers: { "idempotency-key": idempotencyKey } })
    for (let i = 0; ; i++) {
      // From another connection: a transaction sees one snapshot of pg_stat_activity.
      const { rows } = await server.db.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock' and query like '%insert into transactions%'`
      )
      if (rows[0]!.n > 0) break
      if (i > 200) throw new Error("the charge never waited for the order's lock")
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    await held.query(change, [orderId])
    await held.query("commit")
    return await reply
  } finally {
    held.release()
  }
}

const transactionsOf = async (orderId: string) =>
  (await server.db.query<{ n: number }>("select count(*)::int as n from transactions where order_id = $1", [orderId]))
    .rows[0]!.n

describe("a PIX charge whose order changes between its check and its write", () => {
  it("paid meanwhile: 409 order_not_payable, nothing written, and the key replays the 409", async () => {
    const { orderId } = await newOrder(api, key, 5_000)
    const idempotencyKey = crypto.randomUUID()
    const body = pixBody(orderId, 5_000)
    const reply = await chargeWhileChanging(
      body,
      orderId,
      "update orders set status = 'PAID' where id = $1",
      idempotencyKey
    )
    expect(reply.status, reply.text).toBe(409)
    expect(reply.body).toMatchObject({ code: "order_not_payable" })
    expect(await transactionsOf(orderId)).toBe(0)
    const events = await server.db.query(
      "select 1 from events e join transactions t on t.id = e.transaction_id where t.order_id = $1",
      [orderId]
    )
    expect(events.rowCount).toBe(0)
    const replay = await api.post(PROCESS, body, { key, headers: { "idempotency-key": idempotencyKey } })
    expect(replay.status).toBe(409)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.text).toBe(reply.text)
  })

  it("changed in a way that does not matter (its updated_at): the charge is made, once", async () => {
    const { orderId } = await newOrder(api, key, 5_000)
    const reply = await chargeWhileChanging(
      pixBody(orderId, 5_000),
      orderId,
      "update orders set updated_at = now() where id = $1",
      crypto.randomUUID()
    )
    expect(reply.status, reply.text).toBe(201)
    expect(await transactionsOf(orderId)).toBe(1)
  })
})
