import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshCpf } from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { defaultMoney } from "./support/config.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * `pagination.next_cursor` on every v1 list (issue 10; src/http/v1/cursor.ts): walking a list by cursor
 * gives exactly the pages that page numbers give, each a seek on the list's index; a cursor is refused
 * (400 naming it, never a 500) when it is not one this list gave, or contradicts `page` / `per_page`.
 */

let server: TestServer
let api: Client
let key: string
const V1 = "/public/v1"
const today = () => new Date().toLocaleDateString("en-CA", { timeZone: "America/Sao_Paulo" })
const BANK = { bank_code: "341", agency: "0001", account: "0123456", account_digit: "7", type: "checking" }

beforeAll(async () => {
  server = await startTestServer({
    rateLimitPerMinute: 100_000,
    // Withdrawals stay pending while the lists are walked (a payout could add a posting midway).
    money: { ...defaultMoney, withdrawalDelaySeconds: 3_600 }
  })
  api = client(server.baseUrl)
  key = (await signup(api)).key
  for (let i = 0; i < 5; i++) {
    const created = await api.post(
      `${V1}/transactions`,
      { method: "pix", amount: 10_000 + i, customer: { name: "Maria", email: "m@example.com", document: freshCpf() } },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    const paid = await api.post(`/api/sandbox/transactions/${created.body.data.hash}/pay`, undefined, { key })
    expect(paid.status, paid.text).toBe(200)
  }
  for (let i = 0; i < 5; i++) {
    const w = await api.post(`${V1}/withdrawals`, { amount: 100 + i, bank_account: BANK }, { token: key })
    expect(w.status, w.text).toBe(201)
    const s = await api.post(
      `${V1}/subaccounts`,
      { name: `Parceira ${i}`, document: freshCpf(), email: "p@example.com", phone: "11912345678", bank_account: BANK },
      { token: key }
    )
    expect(s.status, s.text).toBe(201)
  }
})
afterAll(async () => {
  await server?.close()
})

/** Each v1 list: its path with its filters, and what identifies one of its items. */
const LISTS = {
  transactions: { path: `${V1}/transactions?method=pix`, id: (t: any) => t.hash },
  // 5 sales, 5 fees and 5 withdrawals: 15 postings on today's statement.
  financials: { path: () => `${V1}/financials?start_at=${today()}&end_at=${today()}`, id: (m: any) => m.id },
  subaccounts: { path: `${V1}/subaccounts`, id: (s: any) => s.id },
  withdrawals: { path: `${V1}/withdrawals`, id: (w: any) => w.id }
} as const

const pathOf = (list: keyof typeof LISTS) => {
  const path = LISTS[list].path
  const base = typeof path === "function" ? path() : path
  // Ready for `&more=…`.
  return base.includes("?") ? base : `${base}?`
}
const get = async (url: string) => {
  const reply = await api.get(url, { token: key })
  expect(reply.status, `${url}: ${reply.text}`).toBe(200)
  return reply.body
}

describe("next_cursor walks every v1 list as page numbers do (issue 10)", () => {
  for (const list of Object.keys(LISTS) as Array<keyof typeof LISTS>) {
    it(list, async () => {
      const base = pathOf(list)
      const first = await get(`${base}&per_page=2`)
      const { total, total_pages } = first.pagination
      expect(total).toBeGreaterThanOrEqual(5)
      const byNumber: Array<string> = []
      for (let page = 1; page <= total_pages; page++)
        byNumber.push(...(await get(`${base}&per_page=2&page=${page}`)).data.map(LISTS[list].id))
      const byCursor: Array<string> = []
      const paginations: Array<unknown> = []
      let body = first
      for (;;) {
        byCursor.push(...body.data.map(LISTS[list].id))
        const { next_cursor, ...rest } = body.pagination
        paginations.push(rest)
        if (next_cursor === null) break
        expect(next_cursor).toEqual(expect.any(String))
        // The cursor names its page and per_page: the request gives neither.
        body = await get(`${base}&cursor=${next_cursor}`)
      }
      expect(byCursor).toHaveLength(total)
      expect(new Set(byCursor).size).toBe(total)
      expect(byCursor).toEqual(byNumber)
      expect(paginations).toEqual(
        Array.from({ length: total_pages }, (_, i) => ({ page: i + 1, per_page: 2, total, total_pages }))
      )
    })
  }

  it("a last page that is exactly full gives no cursor", async () => {
    const { total } = (await get(`${pathOf("subaccounts")}&per_page=1`)).pagination
    const last = await get(`${pathOf("subaccounts")}&per_page=${total}`)
    expect(last.data).toHaveLength(total)
    expect(last.pagination.next_cursor).toBeNull()
  })

  it("a transaction made between two pages does not repeat a row on the next page by cursor", async () => {
    const page1 = await get(`${pathOf("transactions")}&per_page=2`)
    await api.post(
      `${V1}/transactions`,
      { method: "pix", amount: 777, customer: { name: "Maria", email: "m@example.com", document: freshCpf() } },
      { token: key }
    )
    const page2 = await get(`${pathOf("transactions")}&cursor=${page1.pagination.next_cursor}`)
    const seen = new Set(page1.data.map((t: any) => t.hash))
    expect(page2.data.filter((t: any) => seen.has(t.hash))).toEqual([])
    expect(page2.pagination.page).toBe(2)
  })
})

describe("a cursor that is not this list's is a 400 naming it", () => {
  const cursorOf = (list: string) => get(`${pathOf(list as keyof typeof LISTS)}&per_page=2`)
  const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

  it("garbage, another list's, and a forged key that PostgreSQL would refuse", async () => {
    const transactions = (await cursorOf("transactions")).pagination.next_cursor as string
    const financials = (await cursorOf("financials")).pagination.next_cursor as string
    const [, page, perPage, at, id] = JSON.parse(Buffer.from(transactions, "base64url").toString()) as Array<unknown>
    const bad: Array<[string, string]> = [
      [pathOf("transactions"), "nope"],
      [pathOf("transactions"), forge(["transactions", 2, 2, "x", "y"])],
      [pathOf("transactions"), financials],
      [pathOf("financials"), transactions],
      [pathOf("subaccounts"), transactions],
      [pathOf("withdrawals"), financials],
      [pathOf("transactions"), forge(["transactions", page, perPage, "2026-02-30 10:00:00.123456+00", id])],
      [pathOf("transactions"), forge(["transactions", page, perPage, "2026-01-01 24:00:00+00", id])],
      [pathOf("transactions"), forge(["transactions", page, perPage, at, "12345"])],
      [pathOf("transactions"), forge(["transactions", 1, perPage, at, id])],
      [pathOf("transactions"), forge(["transactions", page, 101, at, id])]
    ]
    for (const [path, cursor] of bad) {
      const reply = await api.get(`${path}&cursor=${cursor}`, { token: key })
      expect(reply.status, `${path} ${cursor}: ${reply.text}`).toBe(400)
      expect(reply.body.errors.map((e: any) => e.field)).toEqual(["cursor"])
    }
  })

  it("with page, or with another per_page", async () => {
    const cursor = (await cursorOf("transactions")).pagination.next_cursor as string
    const withPage = await api.get(`${pathOf("transactions")}&cursor=${cursor}&page=2`, { token: key })
    expect(withPage.status).toBe(400)
    expect(withPage.body.errors.map((e: any) => e.field)).toEqual(["cursor"])
    const otherSize = await api.get(`${pathOf("transactions")}&cursor=${cursor}&per_page=3`, { token: key })
    expect(otherSize.status).toBe(400)
    expect(otherSize.body.errors.map((e: any) => e.field)).toEqual(["per_page"])
    const sameSize = await api.get(`${pathOf("transactions")}&cursor=${cursor}&per_page=2`, { token: key })
    expect(sameSize.status, sameSize.text).toBe(200)
  })
})
