import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { freshCpf, newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * `pagination.total` of the v1 transaction list (CONTRACT-v1) without counting the account's rows on
 * every page (issue 10, migration 0013): the unfiltered total is the account's running count, kept by
 * a trigger in the same database transaction as each row; a filtered list still counts its rows.
 */

let server: TestServer
let api: Client
const V1 = "/public/v1/transactions"
const seen: Array<string> = []
let recording = false
const original = pg.Client.prototype.query

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  pg.Client.prototype.query = function (this: pg.Client, ...args: Array<unknown>) {
    if (recording) {
      const first = args[0] as string | { text?: string } | undefined
      seen.push((typeof first === "string" ? first : (first?.text ?? "")).replace(/\s+/g, " "))
    }
    return (original as (...a: Array<unknown>) => unknown).apply(this, args)
  } as typeof original
})
afterAll(async () => {
  pg.Client.prototype.query = original
  await server?.close()
})

const v1Pix = (key: string, amount: number) =>
  api.post(
    V1,
    { method: "pix", amount, customer: { name: "Maria Silva", email: "m@example.com", document: freshCpf() } },
    { token: key }
  )

const totalOf = async (key: string, query = "") => {
  const page = await api.get(`${V1}?per_page=5${query}`, { token: key })
  expect(page.status, page.text).toBe(200)
  const { total, total_pages } = page.body.pagination as { total: number; total_pages: number }
  return { total, total_pages }
}

describe("pagination.total of /public/v1/transactions", () => {
  it("counts every transaction of the account after concurrent charges on both interfaces, no other's", async () => {
    const mine = await signup(api)
    const other = await signup(api)
    const orders = await Promise.all(Array.from({ length: 8 }, () => newOrder(api, mine.key, 5_000)))
    const replies = await Promise.all([
      ...Array.from({ length: 24 }, (_, i) => v1Pix(mine.key, 1_000 + i)),
      ...orders.map((o) => api.post(PROCESS, pixBody(o.orderId, 5_000), { key: mine.key })),
      ...Array.from({ length: 3 }, () => v1Pix(other.key, 700))
    ])
    for (const reply of replies) expect(reply.status, reply.text).toBe(201)

    expect(await totalOf(mine.key)).toEqual({ total: 32, total_pages: 7 })
    expect(await totalOf(other.key)).toEqual({ total: 3, total_pages: 1 })
    // A filter counts its own rows: every one is PIX, and one paid is the only one paid.
    expect(await totalOf(mine.key, "&method=pix")).toEqual({ total: 32, total_pages: 7 })
    const paid = await api.post(`/api/sandbox/transactions/${replies[0]!.body.data.hash}/pay`, undefined, {
      key: mine.key
    })
    expect(paid.status, paid.text).toBe(200)
    expect(await totalOf(mine.key, "&status=paid")).toEqual({ total: 1, total_pages: 1 })
    expect(await totalOf(mine.key)).toEqual({ total: 32, total_pages: 7 })

    // The running count is the rows' count, however the charges spread over connections.
    const { rows } = await server.db.query<{ kept: number; counted: number }>(
      `select (select sum(n)::int from transaction_totals where account_id = $1) as kept,
              (select count(*)::int from transactions where account_id = $1) as counted`,
      [mine.accountId]
    )
    expect(rows[0]).toEqual({ kept: 32, counted: 32 })
  })

  it("reads the running count for the unfiltered list, and counts rows only under a filter", async () => {
    const mine = await signup(api)
    expect((await v1Pix(mine.key, 1_234)).status).toBe(201)
    const statements = async (query: string) => {
      seen.length = 0
      recording = true
      const page = await api.get(`${V1}${query}`, { token: mine.key })
      recording = false
      expect(page.status, page.text).toBe(200)
      expect(page.body.pagination.total).toBe(1)
      return seen
    }
    const counts = (texts: ReadonlyArray<string>) => texts.filter((t) => /count\(\*\).* from transactions/i.test(t))
    const plain = await statements("?per_page=20")
    expect(counts(plain)).toEqual([])
    expect(plain.some((t) => t.includes("transaction_totals"))).toBe(true)
    expect(counts(await statements("?per_page=20&method=pix"))).toHaveLength(1)
  })
})
