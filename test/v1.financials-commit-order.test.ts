import { afterAll, beforeAll, describe, expect, it } from "vitest"
import pg from "pg"
import { client, type Client, type Reply, signup } from "./support/http.ts"
import { CARDS, eventually, freshCpf } from "./support/payments.ts"
import { moneyConfig } from "./support/money.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { saoPauloDate } from "../src/domain/time.ts"

/**
 * docs/decisions.md "v1 list cursors": passed back as `?cursor=`, the next page is read by a seek, "and a
 * row created meanwhile neither repeats nor hides a row of the next page". Financials are ordered by the
 * postings' created_at: stamped at the database transaction's start, a movement that started before another
 * but committed after it landed behind a cursor already handed out. And a balance's updated_at is its latest
 * posting's time (CONTRACT-v1 §7), never moved back by a movement that commits late (migration 0052).
 */

let server: TestServer
let api: Client
const V1 = "/public/v1"
const BANK = { bank_code: "341", agency: "0001", account: "123456", account_digit: "7", type: "checking" }

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, money: moneyConfig() })
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

const customer = () => ({ name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" })
const card = () => ({
  number: CARDS.visa,
  holder_name: "MARIA SILVA",
  exp_month: "12",
  exp_year: String(new Date().getUTCFullYear() + 3),
  cvv: "123"
})

/**
 * A v1 refund of 1 000 whose database transaction starts, then waits on the sale's row lock, held by another
 * connection (as a concurrent refund or dispute holds it), while `meanwhile` runs; `release` lets it commit.
 */
const refundHeldBack = async (key: string, hash: string, meanwhile: () => Promise<void>) => {
  const holder = new pg.Client({ connectionString: server.databaseUrl })
  await holder.connect()
  try {
    await holder.query("begin")
    await holder.query("select 1 from transactions where id = $1 for update", [hash])
    const refund = api.post(`${V1}/transactions/${hash}/refund`, { amount: 1_000 }, { token: key })
    await eventually(async () => {
      const { rows } = await server.db.query(
        `select count(*)::int as n from pg_stat_activity
         where wait_event_type = 'Lock' and query ilike '%from transactions%for update%'`
      )
      return rows[0].n > 0 ? true : undefined
    })
    await meanwhile()
    const release = async () => {
      await holder.query("commit")
      await holder.end()
    }
    return { refund, release }
  } catch (e) {
    await holder.query("rollback").catch(() => undefined)
    await holder.end()
    throw e
  }
}

describe("financials by cursor while a movement commits", () => {
  it("walking every page by next_cursor returns every line of the statement, none hidden", async () => {
    const { key } = await signup(api)
    const pix = await api.post(
      `${V1}/transactions`,
      { method: "pix", amount: 10_000, customer: customer() },
      { token: key }
    )
    expect(pix.status, pix.text).toBe(201)
    expect((await api.post(`/api/sandbox/transactions/${pix.body.data.hash}/pay`, undefined, { key })).status).toBe(200)
    const sale = await api.post(
      `${V1}/transactions`,
      { method: "credit_card", amount: 10_000, installments: 1, customer: customer(), card: card() },
      { token: key }
    )
    expect(sale.status, sale.text).toBe(201)
    const hash = sale.body.data.hash as string

    // Meanwhile two withdrawals commit.
    const { refund, release } = await refundHeldBack(key, hash, async () => {
      for (const amount of [100, 200]) {
        const w = await api.post(`${V1}/withdrawals`, { amount, bank_account: BANK }, { token: key })
        expect(w.status, w.text).toBe(201)
      }
    })
    const today = saoPauloDate(new Date())
    const url = `${V1}/financials?start_at=${today}&end_at=${today}`
    const before = await api.get(`${url}&per_page=100`, { token: key })
    expect(before.status, before.text).toBe(200)
    const n = before.body.data.length as number
    // Page 1 stops one line short of the end: its cursor points past the first withdrawal.
    const page1 = await api.get(`${url}&per_page=${n - 1}`, { token: key })
    expect(page1.status, page1.text).toBe(200)
    const cursor = page1.body.pagination.next_cursor as string
    expect(cursor).toEqual(expect.any(String))
    // The refund commits now.
    await release()
    const refunded = await refund
    expect(refunded.status, refunded.text).toBe(200)
    const after = await api.get(`${url}&per_page=100`, { token: key })
    const all = after.body.data.map((l: any) => l.id) as string[]
    const walked: string[] = page1.body.data.map((l: any) => l.id)
    let next: string | null = cursor
    while (next !== null) {
      const page: Reply = await api.get(`${url}&cursor=${encodeURIComponent(next)}`, { token: key })
      expect(page.status, page.text).toBe(200)
      walked.push(...page.body.data.map((l: any) => l.id))
      next = page.body.pagination.next_cursor
    }
    const refundLines = after.body.data.filter((l: any) => l.transaction_hash === hash && l.type === "refund")
    expect(refundLines.length).toBeGreaterThan(0)
    // Every line of the statement is met once walking it by cursor.
    expect(new Set(walked).size).toBe(walked.length)
    expect([...walked].sort()).toEqual([...all].sort())
  })

  it("balance updated_at is the latest posting's time, never moved back by a movement that commits late", async () => {
    const { key } = await signup(api)
    const pix = await api.post(
      `${V1}/transactions`,
      { method: "pix", amount: 10_000, customer: customer() },
      { token: key }
    )
    expect(pix.status, pix.text).toBe(201)
    const hash = pix.body.data.hash as string
    expect((await api.post(`/api/sandbox/transactions/${hash}/pay`, undefined, { key })).status).toBe(200)
    const { refund, release } = await refundHeldBack(key, hash, async () => {
      // isoInSaoPaulo shows seconds: let a second pass between the refund's start and the withdrawal.
      await new Promise((r) => setTimeout(r, 1_100))
      const w = await api.post(`${V1}/withdrawals`, { amount: 100, bank_account: BANK }, { token: key })
      expect(w.status, w.text).toBe(201)
    })
    const seen = (await api.get(`${V1}/balance`, { token: key })).body.data.updated_at as string
    await release()
    expect((await refund).status).toBe(200)
    const today = saoPauloDate(new Date())
    const lines = (await api.get(`${V1}/financials?start_at=${today}&end_at=${today}&per_page=100`, { token: key }))
      .body.data as Array<{ created_at: string }>
    const latest = lines
      .map((l) => l.created_at)
      .sort()
      .at(-1)
    const shown = (await api.get(`${V1}/balance`, { token: key })).body.data.updated_at as string
    // The latest posting is the withdrawal's; the balance said so before the refund committed.
    expect(shown >= seen, `updated_at went back from ${seen} to ${shown}`).toBe(true)
    expect(shown).toBe(latest)
  })
})
