import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { cardBody, freshCpf, newOrder, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A merchant polling GET /api/events while charges commit concurrently: the poller walks from the top
 * (newest first) page by page until it meets an event it has already seen, and sees every event exactly
 * once. An event stamped at its transaction's start and committed after newer ones used to land behind
 * them, below where the poller stopped (src/adapters/postgres/settledHorizon.ts, docs/webhooks.md "Events").
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

describe("events polled while charges commit", () => {
  it("an incremental poller (stop at the first event already seen) sees every event", async () => {
    const seen = new Map<string, number>()
    /** One poll: newest first, until an id already seen or the end. */
    const poll = async () => {
      let cursor: string | null = null
      const fresh: Array<string> = []
      for (;;) {
        const url: string = `/api/events?limit=10${cursor === null ? "" : `&cursor=${cursor}`}`
        const page = await api.get(url, { key })
        expect(page.status, page.text).toBe(200)
        let stop = false
        for (const e of page.body.events as Array<{ id: string }>) {
          if (seen.has(e.id)) {
            stop = true
            break
          }
          fresh.push(e.id)
        }
        cursor = page.body.nextCursor
        if (stop || cursor === null) break
      }
      for (const id of fresh) seen.set(id, (seen.get(id) ?? 0) + 1)
    }

    let writing = true
    const writers = (async () => {
      const one = async () => {
        const { amount, orderId } = await newOrder(api, key)
        const r = await api.post(PROCESS, cardBody(orderId, amount), { key })
        expect(r.status, r.text).toBe(201)
        const v1 = await api.post(
          "/public/v1/transactions",
          { method: "pix", amount: 5_000, customer: { name: "Maria", email: "m@example.com", document: freshCpf() } },
          { token: key }
        )
        expect(v1.status, v1.text).toBe(201)
        const paid = await api.post(`/api/sandbox/transactions/${v1.body.data.hash}/pay`, undefined, { key })
        expect(paid.status, paid.text).toBe(200)
      }
      for (let round = 0; round < 8; round++) await Promise.all(Array.from({ length: 8 }, one))
      writing = false
    })()
    const poller = (async () => {
      while (writing) {
        await poll()
        await sleep(5)
      }
    })()
    await writers
    await poller
    await sleep(500)
    await poll()

    const all = (
      await server.db.query<{ id: string }>(
        `select e.id from events e join accounts a on a.id = e.account_id
         where a.id = (select account_id from api_keys limit 1)`
      )
    ).rows.map((r) => r.id)
    const missed = all.filter((id) => !seen.has(id))
    const twice = [...seen.entries()].filter(([, n]) => n > 1)
    if (process.env.EVENTS_DEBUG) {
      const rows = await server.db.query(
        `select id, type, created_at::text as at, xmin::text as x, (select count(*) from events) as n
         from events order by created_at desc, id desc`
      )
      for (const r of rows.rows) console.log(seen.has(r.id) ? "seen  " : "MISSED", r.type, r.at, r.x)
    }
    expect(twice).toEqual([])
    expect(missed, `${missed.length} of ${all.length} events never seen by the poller`).toEqual([])
  }, 120_000)
})
