import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { cardBody, newOrder, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The feeds' commit horizon (settledHorizon.ts, docs/decisions.md "Feeds in commit order") counts only the
 * gateway's own writing sessions: another session's open write does not hide every merchant's new events.
 * And the postings of one ledger entry share one instant (one São Paulo day, one statement page).
 */
let server: TestServer
let api: Client
let key: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 1_000_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe("the commit horizon", () => {
  it("another session's open write (an operator's psql) does not hide every merchant's new events", async () => {
    // A session of the database, not the gateway's, that has written and not ended: an operator's psql
    // `begin; update …` left open.
    const other = new pg.Client({ connectionString: server.databaseUrl })
    await other.connect()
    try {
      await other.query("begin")
      await other.query("select txid_current()")
      const { amount, orderId } = await newOrder(api, key)
      const r = await api.post(PROCESS, cardBody(orderId, amount), { key })
      expect(r.status, r.text).toBe(201)
      const stored = await server.db.query<{ n: number }>("select count(*)::int as n from events")
      expect(stored.rows[0]!.n).toBeGreaterThan(0)
      let listed = 0
      for (let i = 0; i < 20 && listed === 0; i++) {
        const page = await api.get("/api/events?limit=10", { key })
        expect(page.status, page.text).toBe(200)
        listed = (page.body.events as Array<unknown>).length
        if (listed === 0) await sleep(100)
      }
      expect(listed, "events committed, not listed while an unrelated transaction is open").toBeGreaterThan(0)
    } finally {
      await other.query("rollback").catch(() => undefined)
      await other.end()
    }
  })

  it("the postings of one ledger entry share one instant (one São Paulo day, one statement page)", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const r = await api.post(PROCESS, cardBody(orderId, amount), { key })
    expect(r.status, r.text).toBe(201)
    const { rows } = await server.db.query<{ entry: string; instants: number; first: string; last: string }>(
      `select entry_id::text as entry, count(distinct created_at)::int as instants,
              min(created_at)::text as first, max(created_at)::text as last
       from ledger_postings group by entry_id having count(*) > 1`
    )
    expect(rows.length).toBeGreaterThan(0)
    const split = rows.filter((row) => row.instants > 1)
    // A sale entry's "sale" and "fee" postings of the merchant stamped apart: a São Paulo midnight (or a
    // financials end_at, or a cursor/horizon) falling between them shows the sale on one day and its fee on the next.
    expect(split, JSON.stringify(split.slice(0, 2))).toEqual([])
  })
})
