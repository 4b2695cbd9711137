import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { cardBody, newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Issue 20 §1: the dashboard API under /api/dashboard, through the real stack. The login JWT only (an
 * API key is a 401), every record scoped to the account (another account's id is a 404), keyset pages
 * and the CSV equal to the list. Amounts are computed here from what the test paid.
 */
let server: TestServer
let api: Client
let owner: Awaited<ReturnType<typeof signup>>
let stranger: Awaited<ReturnType<typeof signup>>
const cards: Array<{ id: string; amount: number; document: string }> = []
let pixId = ""
let strangerTx = ""

const pay = async (who: { key: string }, amount: number, metadata?: Record<string, string>) => {
  const order = await newOrder(api, who.key, amount)
  const reply = await api.post(PROCESS, cardBody(order.orderId, amount, undefined, metadata ? { metadata } : {}), {
    key: who.key
  })
  expect(reply.status, reply.text).toBe(201)
  return { id: reply.body.transactionId as string, amount, document: order.document }
}

const dash = (path: string, token = owner.token) => api.get(`/api/dashboard${path}`, { token })

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, webhookAllowPrivateUrls: true })
  api = client(server.baseUrl)
  owner = await signup(api)
  stranger = await signup(api)
  for (const amount of [10_000, 25_050, 3_333]) cards.push(await pay(owner, amount))
  const order = await newOrder(api, owner.key, 7_700)
  const pix = await api.post(PROCESS, pixBody(order.orderId, 7_700), { key: owner.key })
  expect(pix.status, pix.text).toBe(201)
  pixId = pix.body.transactionId
  strangerTx = (await pay(stranger, 5_000)).id
}, 240_000)
afterAll(async () => {
  await server?.close()
})

describe("authentication", () => {
  it("an API key, as X-Api-Key or as Bearer, is a 401 on every dashboard route", async () => {
    for (const path of ["/summary", "/transactions", "/balance", "/api-keys", "/customers"]) {
      const byHeader = await api.get(`/api/dashboard${path}`, { key: owner.key })
      expect(byHeader.status, byHeader.text).toBe(401)
      const asBearer = await api.get(`/api/dashboard${path}`, { headers: { authorization: `Bearer ${owner.key}` } })
      expect(asBearer.status, asBearer.text).toBe(401)
    }
  })

  it("test mode is the default; live is refused, naming what is missing, while no live rail exists", async () => {
    expect((await dash("/balance")).status).toBe(200)
    const live = await api.get("/api/dashboard/balance", {
      token: owner.token,
      headers: { "x-gateway-mode": "live" }
    })
    expect(live.status, live.text).toBe(400)
    expect(live.body).toMatchObject({ code: "mode_unavailable", errors: [{ field: "X-Gateway-Mode" }] })
    expect(live.body.message).toContain("LIVE_ACQUIRERS")
  })
})

describe("transactions", () => {
  it("lists the account's transactions newest first, and nothing of another account", async () => {
    const reply = await dash("/transactions")
    expect(reply.status, reply.text).toBe(200)
    const ids = reply.body.data.map((t: { id: string }) => t.id)
    expect(ids).toEqual([pixId, ...cards.map((c) => c.id).reverse()])
    expect(ids).not.toContain(strangerTx)
    expect(reply.body.data[1]).toMatchObject({ method: "CARD", amountTotal: 3_333, status: "CAPTURED" })
  })

  it("filters by status, method, amount range and document, and pages by cursor", async () => {
    const paid = await dash("/transactions?method=CARD&amount_min=3334&amount_max=25050")
    expect(paid.body.data.map((t: { amountTotal: number }) => t.amountTotal)).toEqual([25_050, 10_000])
    const pending = await dash("/transactions?status=PENDING")
    expect(pending.body.data.map((t: { id: string }) => t.id)).toEqual([pixId])
    const byDoc = await dash(`/transactions?document=${cards[0]!.document}`)
    expect(byDoc.body.data.map((t: { id: string }) => t.id)).toEqual([cards[0]!.id])
    const first = await dash("/transactions?limit=2")
    expect(first.body.data).toHaveLength(2)
    const second = await dash(`/transactions?limit=2&cursor=${first.body.nextCursor}`)
    const third = await dash(`/transactions?limit=2&cursor=${second.body.nextCursor}`)
    expect([...first.body.data, ...second.body.data, ...third.body.data].map((t: { id: string }) => t.id)).toEqual([
      pixId,
      ...cards.map((c) => c.id).reverse()
    ])
    expect(third.body.nextCursor).toBeNull()
  })

  it("names a broken filter in a 400", async () => {
    const reply = await dash("/transactions?status=NOPE&amount_min=-1&from=2026-02-30&cursor=zzz&limit=0")
    expect(reply.status, reply.text).toBe(400)
    expect(reply.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
      ["amount_min", "cursor", "from", "limit", "status"].sort()
    )
    expect((await dash("/transactions?color=red")).status).toBe(400)
  })

  it("an impossible day, in a cursor or an instant bound, is a 400 naming it on every paged list", async () => {
    // The list's own cursor with its day made 2026-02-30: JavaScript reads it as 2 March, PostgreSQL refuses it.
    const first = await dash("/transactions?limit=1")
    const tampered = (list: string) =>
      Buffer.from(
        JSON.stringify(
          (JSON.parse(Buffer.from(first.body.nextCursor, "base64url").toString("utf8")) as Array<unknown>).map(
            (part) =>
              typeof part !== "string"
                ? part
                : /^\d{4}-\d{2}-\d{2} /.test(part)
                  ? part.replace(/^\d{4}-\d{2}-\d{2}/, "2026-02-30")
                  : part === "transactions"
                    ? list
                    : part
          )
        )
      ).toString("base64url")
    for (const list of ["transactions", "customers", "withdrawals", "subaccounts"]) {
      const reply = await dash(`/${list}?cursor=${tampered(list)}`)
      expect(reply.status, `${list}: ${reply.text}`).toBe(400)
      expect(reply.body.errors.map((e: { field: string }) => e.field)).toEqual(["cursor"])
    }
    const instants = await dash("/transactions?from=2026-02-30T10:00:00Z&to=2026-04-31T23:00:00-03:00")
    expect(instants.status, instants.text).toBe(400)
    expect(instants.body.errors.map((e: { field: string }) => e.field)).toEqual(["from", "to"])
    const summary = await dash("/summary?from=2026-02-29T10:00:00Z")
    expect(summary.status, summary.text).toBe(400)
    expect(summary.body.errors.map((e: { field: string }) => e.field)).toEqual(["from"])
    // A cursor of one list is not another's.
    const customers = await dash(`/customers?cursor=${first.body.nextCursor}`)
    expect(customers.status, customers.text).toBe(400)
  })

  it("the CSV export holds exactly the list's transactions", async () => {
    const reply = await fetch(`${server.baseUrl}/api/dashboard/exports/transactions.csv`, {
      headers: { authorization: `Bearer ${owner.token}` }
    })
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toMatch(/^text\/csv/)
    const lines = (await reply.text()).trim().split("\r\n")
    expect(lines[0]).toMatch(/^id,created_at,method,status,amount/)
    expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual([pixId, ...cards.map((c) => c.id).reverse()])
  })

  it("one transaction's timeline: created, antifraud, authorised, paid, its events", async () => {
    const reply = await dash(`/transactions/${cards[0]!.id}`)
    expect(reply.status, reply.text).toBe(200)
    const kinds = reply.body.timeline.map((e: { kind: string }) => e.kind)
    expect(kinds.slice(0, 2)).toEqual(["created", "antifraud"])
    expect(kinds).toContain("paid")
    expect(reply.body.timeline.map((e: { title: string }) => e.title)).toContain("transaction.paid")
    expect((await dash(`/transactions/${strangerTx}`)).status).toBe(404)
  })

  it("each event of the timeline carries the payload as delivered, the one GET /api/events/{id} shows", async () => {
    const reply = await dash(`/transactions/${cards[0]!.id}`)
    expect(reply.status, reply.text).toBe(200)
    const events = reply.body.timeline.filter((e: { kind: string }) => e.kind === "event" || e.kind === "dispute")
    expect(events.map((e: { title: string }) => e.title)).toEqual(["transaction.created", "transaction.paid"])
    for (const entry of events) {
      const shown = await api.get(`/api/events/${entry.detail.id}`, { key: owner.key })
      expect(shown.status, shown.text).toBe(200)
      expect(entry.detail.payload, entry.title).toEqual(shown.body.payload)
      expect(entry.detail.payload).toMatchObject({ event: entry.title, data: { transactionId: cards[0]!.id } })
    }
  })

  it("refunds R$ 10,00 and shows it; another account's transaction is a 404", async () => {
    const path = `/api/dashboard/transactions/${cards[1]!.id}/refund`
    const reply = await api.post(path, { amount: 1_000 }, { token: owner.token })
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body.transaction).toMatchObject({
      status: "PARTIAL_REFUND",
      refundedAmount: 1_000,
      refundable: 24_050
    })
    expect(reply.body.timeline.find((e: { kind: string }) => e.kind === "refund").detail).toMatchObject({
      amount: 1_000,
      status: "SUCCEEDED"
    })
    const foreign = await api.post(`/api/dashboard/transactions/${strangerTx}/refund`, {}, { token: owner.token })
    expect(foreign.status, foreign.text).toBe(404)
    const tooMuch = await api.post(path, { amount: 24_051 }, { token: owner.token })
    expect(tooMuch.status).toBeGreaterThanOrEqual(400)
    expect(tooMuch.status).toBeLessThan(500)
  })

  it("approves a card charge held for review: captured, the analysis completed", async () => {
    const order = await newOrder(api, owner.key, 4_000)
    const held = await api.post(PROCESS, cardBody(order.orderId, 4_000, "4000000000000101"), { key: owner.key })
    expect(held.status, held.text).toBe(201)
    const id = held.body.transactionId as string
    const before = await dash(`/transactions/${id}`)
    expect(before.body.transaction).toMatchObject({ status: "ANTIFRAUD", antifraud: { status: "in_review" } })
    const reply = await api.post(
      `/api/dashboard/transactions/${id}/antifraud`,
      { decision: "approve" },
      { token: owner.token }
    )
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body.transaction).toMatchObject({ status: "CAPTURED", antifraud: { status: "completed" } })
    cards.push({ id, amount: 4_000, document: order.document })
  })

  it("an antifraud decision on a charge not in review is refused, another account's is a 404", async () => {
    const mine = await api.post(
      `/api/dashboard/transactions/${cards[0]!.id}/antifraud`,
      { decision: "approve" },
      { token: owner.token }
    )
    expect(mine.status).toBeGreaterThanOrEqual(400)
    expect(mine.status).toBeLessThan(500)
    const foreign = await api.post(
      `/api/dashboard/transactions/${strangerTx}/antifraud`,
      { decision: "reject" },
      { token: owner.token }
    )
    expect(foreign.status, foreign.text).toBe(404)
  })
})

describe("summary, balance, financials", () => {
  it("sums the paid volume to the centavo", async () => {
    const reply = await dash("/summary")
    expect(reply.status, reply.text).toBe(200)
    const gross = cards.reduce((n, c) => n + c.amount, 0)
    const card = reply.body.byMethod.find((m: { method: string }) => m.method === "CARD")
    expect(card).toMatchObject({ count: cards.length, paid: cards.length, refused: 0, gross, approvalRate: 1 })
    expect(card.net).toBe(gross - card.refunded - card.fees)
    expect(reply.body.totals).toMatchObject({ count: cards.length + 1, paid: cards.length, gross })
    expect(reply.body.byDay.length).toBeGreaterThan(0)
  })

  it("balance and financials answer for the account", async () => {
    const balance = await dash("/balance")
    expect(balance.status, balance.text).toBe(200)
    expect(Object.keys(balance.body).sort()).toEqual(["available", "pending", "reserved", "updatedAt"])
    const financials = await dash("/financials")
    expect(financials.status, financials.text).toBe(200)
    const csv = await fetch(`${server.baseUrl}/api/dashboard/exports/financials.csv`, {
      headers: { authorization: `Bearer ${owner.token}` }
    })
    expect(csv.status).toBe(200)
    expect((await csv.text()).trim().split("\r\n").length).toBe(financials.body.data.length + 1)
  })

  it("the statement pages by its own nextCursor, every posting once, in the list's order", async () => {
    const all = await dash("/financials?limit=200")
    expect(all.status, all.text).toBe(200)
    expect(all.body.data.length).toBeGreaterThan(2)
    const paged: Array<{ id: string }> = []
    let cursor: string | null = null
    for (let pages = 0; pages < all.body.data.length; pages++) {
      const reply = await dash(`/financials?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`)
      expect(reply.status, reply.text).toBe(200)
      paged.push(...reply.body.data)
      cursor = reply.body.nextCursor
      if (cursor === null) break
    }
    expect(paged.map((p) => p.id)).toEqual(all.body.data.map((p: { id: string }) => p.id))
    expect((await dash(`/transactions?cursor=${(await dash("/financials?limit=1")).body.nextCursor}`)).status).toBe(400)
  })
})

describe("customers, withdrawals, subaccounts, keys, webhook", () => {
  it("customers: the account's only, searchable by document", async () => {
    const all = await dash("/customers")
    expect(all.status, all.text).toBe(200)
    expect(all.body.data).toHaveLength(cards.length + 1)
    const one = await dash(`/customers?search=${cards[2]!.document}`)
    expect(one.body.data.map((c: { document: string }) => c.document)).toEqual([cards[2]!.document])
  })

  it("withdrawals: a request names a broken bank account; the list is the account's", async () => {
    const bad = await api.post(
      "/api/dashboard/withdrawals",
      { amount: 100, bankAccount: { bank_code: "1" } },
      { token: owner.token }
    )
    expect(bad.status, bad.text).toBe(400)
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain("bankAccount.bank_code")
    const list = await dash("/withdrawals")
    expect(list.status, list.text).toBe(200)
    expect(list.body.data).toEqual([])
    expect((await dash("/subaccounts")).status).toBe(200)
  })

  it("API keys: create with scopes, list, revoke; another account's key is a 404", async () => {
    const created = await api.post(
      "/api/dashboard/api-keys",
      { label: "Relatórios", scopes: ["transactions:read"] },
      { token: owner.token }
    )
    expect(created.status, created.text).toBe(201)
    expect(created.body.fullKey).toMatch(/^sk_/)
    const usable = await api.get("/api/transactions", { key: created.body.fullKey })
    expect(usable.status).toBe(200)
    const list = await dash("/api-keys")
    expect(list.body.restricted.map((k: { id: string }) => k.id)).toContain(created.body.id)
    expect(list.body.primary.scopes).toBeNull()
    const foreign = await api.del(`/api/dashboard/api-keys/${created.body.id}`, { token: stranger.token })
    expect(foreign.status).toBe(404)
    const revoked = await api.del(`/api/dashboard/api-keys/${created.body.id}`, { token: owner.token })
    expect(revoked.body.active).toBe(false)
    expect((await api.get("/api/transactions", { key: created.body.fullKey })).status).toBe(401)
    const bad = await api.post("/api/dashboard/api-keys", { label: "x", scopes: ["nope"] }, { token: owner.token })
    expect(bad.status).toBe(400)
  })

  it("regenerates the primary key: the old one is refused", async () => {
    const other = await signup(api)
    const reply = await api.post("/api/dashboard/api-keys/primary/regenerate", undefined, { token: other.token })
    expect(reply.status, reply.text).toBe(200)
    expect((await api.get("/api/transactions", { key: other.key })).status).toBe(401)
    expect((await api.get("/api/transactions", { key: reply.body.fullKey })).status).toBe(200)
  })

  it("webhook endpoint: set, read, remove", async () => {
    expect((await dash("/webhook")).status).toBe(404)
    const bad = await api.request("PUT", "/api/dashboard/webhook", { url: "ftp://x" }, { token: owner.token })
    expect(bad.status).toBe(400)
    const set = await api.request(
      "PUT",
      "/api/dashboard/webhook",
      { url: "http://127.0.0.1:9/gw" },
      { token: owner.token }
    )
    expect(set.status, set.text).toBe(200)
    expect((await dash("/webhook")).body.url).toBe("http://127.0.0.1:9/gw")
    expect((await api.del("/api/dashboard/webhook", { token: owner.token })).status).toBe(204)
  })

  it("is in /openapi.json", async () => {
    const doc = await api.get("/openapi.json")
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        "/api/dashboard/transactions",
        "/api/dashboard/summary",
        "/api/dashboard/transactions/{id}"
      ])
    )
  })
})
