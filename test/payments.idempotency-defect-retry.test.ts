import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A keyed charge that fails with a defect (500) and is retried at once with the same key is made once.
 * idempotency.ts: "A defect (the database went away mid-request) frees the key for the retry, which
 * resumes the same reserved resource id ... so the client's retry right after the recovery is not
 * refused as still in flight." The release is forked (inBackground) and not awaited before the 500.
 */

let server: TestServer
let api: Client
let key: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
  // The first event insert after each restart of the sequence fails: one charge dies at its commit.
  await server.db.query(`create sequence fail_once_seq`)
  await server.db.query(`
    create function fail_first_event() returns trigger language plpgsql as $$
    begin
      if nextval('fail_once_seq') = 1 then raise exception 'injected failure'; end if;
      return new;
    end $$`)
  await server.db.query(
    `create trigger fail_first_event before insert on events for each row execute function fail_first_event()`
  )
})
afterAll(async () => {
  await server?.close()
})

describe("a 500 then an immediate retry with the same key", () => {
  it("the retry is not refused 409 idempotency_key_in_use", async () => {
    const outcomes: Array<string> = []
    for (let i = 0; i < 15; i++) {
      const { amount, orderId } = await newOrder(api, key)
      await server.db.query(`alter sequence fail_once_seq restart with 1`)
      const body = pixBody(orderId, amount)
      const idem = randomUUID()
      const first = await api.post(PROCESS, body, { key, headers: { "idempotency-key": idem } })
      expect(first.status, first.text).toBe(500)
      const retry = await api.post(PROCESS, body, { key, headers: { "idempotency-key": idem } })
      outcomes.push(`${retry.status} ${retry.body?.code ?? ""}`)
      const rows = await server.db.query("select count(*)::int as n from transactions where order_id = $1", [orderId])
      expect(rows.rows[0].n, retry.text).toBeLessThanOrEqual(1)
    }
    expect(
      outcomes.filter((o) => o.startsWith("409")),
      outcomes.join(", ")
    ).toEqual([])
    expect(
      outcomes.filter((o) => !o.startsWith("201")),
      outcomes.join(", ")
    ).toEqual([])
  }, 60_000)
})
