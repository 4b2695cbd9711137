import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The request log is newest first by (created_at, id) with ties by id descending (docs/api.md "Lists"; keyset
 * cursor of docs/dashboard.md). RequestLogLive selected `id::text` and ordered by a bare `id`, which names the
 * select list's text (PostgreSQL resolves ORDER BY names against the output columns first): "9" > "12" > "11"
 * > "10". The seek after the cursor compares the table's bigint, so paging over rows that share a created_at
 * skipped some. The ORDER BY now names the table's columns.
 */

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
})
afterAll(async () => {
  await server?.close()
})

describe("request log keyset pages with rows sharing a created_at", () => {
  it("limit=1 pages through every row once, ties by id descending (100000001 … 99999998)", async () => {
    const api = client(server.baseUrl)
    const m = await signup(api, "Loja Empate")
    // Four entries of the same microsecond (requests of the same millisecond: `at` is a JS Date).
    // Ids across a power of ten: 99999998 … 100000001.
    const ids: Array<string> = []
    const at = (await server.db.query("select (date_trunc('second', now()) + interval '1 hour')::text as at")).rows[0]
      .at
    for (const id of ["99999998", "99999999", "100000000", "100000001"]) {
      const r = await server.db.query(
        `insert into request_log (id, account_id, key_id, method, path, status, latency_ms, request_id, created_at)
         overriding system value
         values ($1, $2, null, 'GET', $3, 200, 1, $4, $5::timestamptz) returning id::text`,
        [id, m.accountId, `/tie/${id}`, `req-${id}`, at]
      )
      ids.push(r.rows[0].id)
    }
    const expected = [...ids].sort((a, b) => Number(b) - Number(a))
    const seen: Array<string> = []
    let cursor: string | null = null
    for (let guard = 0; guard < 40; guard++) {
      const reply: { status: number; text: string; body: any } = await api.get(
        `/api/request-log?limit=1${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
        { key: m.key }
      )
      expect(reply.status, reply.text).toBe(200)
      for (const r of reply.body.requests) if (r.path.startsWith("/tie/")) seen.push(r.id)
      cursor = reply.body.nextCursor
      if (cursor === null) break
    }
    expect(seen).toEqual(expected)
  })
})
