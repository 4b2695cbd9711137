import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { blockedBy } from "./support/locks.ts"
import { CARDS, cardBody, newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * An order takes no PIX while a card charge of it is in flight (PROCESSING: its outcome unknown), also when
 * that card charge commits while the PIX's one statement waits for the order's lock: the statement's own
 * snapshot, taken before the wait, would not see it (migration 0056, OrderRepoLive.expectAsRead;
 * docs/providers.md "Known limits").
 */
let server: TestServer
let api: Client

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

describe("a PIX of an order whose card charge is in flight", () => {
  it("is refused (409) when the card charge commits while the PIX waits for the order's lock", async () => {
    const { key } = await signup(api)
    const { amount, orderId } = await newOrder(api, key, 10_000)
    // A card charge of the order the sandbox declined: the holder puts it back in flight, as a charge
    // whose acquirer has not answered yet is, in a transaction holding the order's lock.
    const declined = await api.post(PROCESS, cardBody(orderId, amount, CARDS.declined), { key })
    expect(declined.status, declined.text).toBe(422)
    expect(declined.body.code).toBe("card_declined")
    const holder = await server.db.connect()
    try {
      await holder.query("begin")
      await holder.query("select 1 from orders where id = $1 for update", [orderId])
      await holder.query("update transactions set status = 'PROCESSING' where id = $1", [declined.body.transactionId])
      const pix = api.post(PROCESS, pixBody(orderId, amount), { key })
      await blockedBy(server.db, holder)
      await holder.query("commit")
      const reply = await pix
      expect(reply.status, reply.text).toBe(409)
      expect(reply.body.code).toBe("payment_in_progress")
    } finally {
      await holder.query("rollback").catch(() => undefined)
      holder.release()
    }
    const rows = await server.db.query("select method, status from transactions where order_id = $1", [orderId])
    expect(rows.rows).toEqual([{ method: "CARD", status: "PROCESSING" }])
  })
})
