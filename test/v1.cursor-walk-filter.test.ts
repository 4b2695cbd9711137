import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshCpf } from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A v1 cursor is a seek after the last row given (src/http/v1/cursor.ts), but `paginationOf`
 * (src/http/v1/listParams.ts) gave the next cursor only while `page * per_page < total`, the total counted
 * now. When rows already shown left the filter (pending charges paid while a client walks `status=pending`),
 * the count dropped below the cursor's page number and the walk ended early: rows that existed and matched
 * throughout were never shown. A page reached by a cursor now gives the next one whenever it is full.
 */

let server: TestServer
let api: Client
let key: string
const V1 = "/public/v1"

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

describe("v1 next_cursor while rows already shown leave the filter", () => {
  it("status=pending walked by cursor shows every charge that stayed pending throughout", async () => {
    const hashes: Array<string> = []
    for (let i = 0; i < 5; i++) {
      const created = await api.post(
        `${V1}/transactions`,
        {
          method: "pix",
          amount: 10_000 + i,
          customer: { name: "Maria", email: "m@example.com", document: freshCpf() }
        },
        { token: key }
      )
      expect(created.status, created.text).toBe(201)
      hashes.push(created.body.data.hash)
    }
    const first = await api.get(`${V1}/transactions?status=pending&per_page=2`, { token: key })
    expect(first.status, first.text).toBe(200)
    expect(first.body.pagination.total).toBe(5)
    const shown: Array<string> = first.body.data.map((t: any) => t.hash)
    expect(shown).toEqual([hashes[4], hashes[3]])
    // The two charges already shown are paid meanwhile: they leave the filter.
    for (const hash of shown) {
      const paid = await api.post(`/api/sandbox/transactions/${hash}/pay`, undefined, { key })
      expect(paid.status, paid.text).toBe(200)
    }
    let cursor: string | null = first.body.pagination.next_cursor
    expect(cursor).not.toBeNull()
    for (let guard = 0; cursor !== null && guard < 10; guard++) {
      const page = await api.get(`${V1}/transactions?status=pending&cursor=${cursor}`, { token: key })
      expect(page.status, page.text).toBe(200)
      shown.push(...page.body.data.map((t: any) => t.hash))
      cursor = page.body.pagination.next_cursor
    }
    // hashes[0..2] stayed pending all along: each must be shown.
    expect(shown).toEqual([hashes[4], hashes[3], hashes[2], hashes[1], hashes[0]])
  })
})
