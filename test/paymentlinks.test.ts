import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startLoopbackFake, type LoopbackFake } from "./fakes/loopback/server.ts"
import { createTestDatabase } from "./support/database.ts"
import { client, type Client, liveMerchant, signup } from "./support/http.ts"
import { expectError, freshCpf } from "./support/payments.ts"
import { spawnRole, stopAll, type RoleProcess } from "./support/processes.ts"

/**
 * Payment links (issue 20 §4, docs/payment-links.md) through a real service process: the v1 extension
 * (create, validate, list, get, deactivate, the link's transactions), the buyer's visits under
 * /pay/{id} that each create a v1 transaction in the link's tenant and mode, `max_uses` and expiry
 * decided by the database under concurrency, and tenant scoping. Live rails are the test-only
 * `loopback` provider (as test/modes.test.ts): a live link's card visit asks no provider.
 */

const VISITS_PER_MINUTE = 45
let fake: LoopbackFake
let service: RoleProcess
let api: Client
let m: Awaited<ReturnType<typeof signup>>
let other: Awaited<ReturnType<typeof signup>>

beforeAll(async () => {
  fake = await startLoopbackFake()
  service = await spawnRole(
    "all",
    {
      DATABASE_URL: await createTestDatabase(),
      RATE_LIMIT_PER_MINUTE: "100000",
      // Above any other test's visits of one link (40), below the rate-limit test's 60.
      PAYMENT_LINK_VISITS_PER_MINUTE: String(VISITS_PER_MINUTE),
      LIVE_LOOPBACK_ALLOWED: "true",
      LOOPBACK_PROVIDER_URL: fake.url,
      LIVE_ACQUIRERS: "loopback",
      LIVE_PIX_PROVIDER: "loopback"
    },
    { readyTimeoutMs: 90_000 }
  )
  api = client(service.baseUrl)
  m = await signup(api, "Loja dos Links")
  other = await signup(api, "Outra Loja")
}, 120_000)
afterAll(async () => {
  await stopAll([service])
  await fake?.close()
})

const LINKS = "/public/v1/payment_links"
const create = (body: unknown, key = m.key, headers: Record<string, string> = {}) =>
  api.post(LINKS, body, { token: key, headers })
const buyer = () => ({ name: "Ana Souza", email: "ana@example.com", document: freshCpf() })
const visit = (id: string, body: unknown) => api.post(`/pay/${id}`, body, { headers: { accept: "application/json" } })
const fixed = async (extra: Record<string, unknown> = {}, key = m.key) => {
  const reply = await create(
    { name: "Camiseta", amount: 8_990, payment_methods: ["pix", "credit_card"], ...extra },
    key
  )
  expect(reply.status, reply.text).toBe(201)
  return reply.body.data
}
const linkTransactions = async (id: string, key = m.key, query = "") => {
  const reply = await api.get(`${LINKS}/${id}/transactions${query}`, { token: key })
  expect(reply.status, reply.text).toBe(200)
  return reply.body
}

describe("creating payment links (v1 extension)", () => {
  it("a fixed-amount link: 201 with its buyer url, read back, listed newest first; Idempotency-Key too", async () => {
    const body = {
      name: "Camiseta Azul",
      description: "Tamanho M",
      amount: 8_990,
      items: [{ name: "Camiseta Azul M", quantity: 1, unit_price: 8_990, sku: "CAM-M" }],
      payment_methods: ["credit_card", "pix", "billet"],
      max_installments: 3,
      max_uses: 10,
      metadata: { campaign: "natal" }
    }
    const made = await create(body, m.key, { "idempotency-key": "link-1" })
    expect(made.status, made.text).toBe(201)
    const link = made.body.data
    expect(link).toMatchObject({
      name: "Camiseta Azul",
      description: "Tamanho M",
      amount: 8_990,
      min_amount: null,
      max_amount: null,
      items: [{ name: "Camiseta Azul M", quantity: 1, unit_price: 8_990, sku: "CAM-M" }],
      payment_methods: ["credit_card", "pix", "billet"],
      max_installments: 3,
      expires_at: null,
      max_uses: 10,
      uses: 0,
      active: true,
      status: "active",
      metadata: { campaign: "natal" }
    })
    expect(link.url).toMatch(new RegExp(`^http://[^/]+/pay/${link.id}$`))
    expect(link.livemode).toBeUndefined()
    const replay = await create(body, m.key, { "idempotency-key": "link-1" })
    expect(replay.status).toBe(201)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.body.data.id).toBe(link.id)
    expectError(await create({ ...body, name: "Outro" }, m.key, { "idempotency-key": "link-1" }), 422)

    const read = await api.get(`${LINKS}/${link.id}`, { token: m.key })
    expect(read.status).toBe(200)
    expect(read.body.data).toEqual(link)
    const second = await fixed()
    const list = await api.get(`${LINKS}?per_page=1`, { token: m.key })
    expect(list.status, list.text).toBe(200)
    expect(list.body.data.map((l: { id: string }) => l.id)).toEqual([second.id])
    expect(list.body.pagination).toMatchObject({ page: 1, per_page: 1, total: 2 })
    const next = await api.get(`${LINKS}?cursor=${list.body.pagination.next_cursor}`, { token: m.key })
    expect(next.body.data.map((l: { id: string }) => l.id)).toEqual([link.id])
  })

  it("bad input is a 400 naming every broken field", async () => {
    const bad = await create({
      name: " ",
      amount: 0,
      min_amount: 100,
      payment_methods: ["pix", "boleto", "pix"],
      max_installments: 13,
      expires_at: "2020-01-01T00:00:00-03:00",
      max_uses: 0,
      items: [{ name: "x", quantity: 0, unit_price: -1 }]
    })
    const fields = expectError(bad, 400).errors!.map((e) => e.field)
    expect(fields.sort()).toEqual(
      [
        "name",
        "amount",
        "min_amount",
        "payment_methods[1]",
        "payment_methods[2]",
        "max_installments",
        "expires_at",
        "max_uses",
        "items[0].quantity",
        "items[0].unit_price"
      ].sort()
    )
    const open = await create({ name: "Doação", payment_methods: ["pix"], min_amount: 5_000, max_amount: 1_000 })
    expect(expectError(open, 400).errors!.map((e) => e.field)).toEqual(["max_amount"])
    const installments = await create({ name: "PIX", amount: 100, payment_methods: ["pix"], max_installments: 2 })
    expect(expectError(installments, 400).errors!.map((e) => e.field)).toEqual(["max_installments"])
    const none = await create({ name: "Nada", amount: 100, payment_methods: [] })
    expect(expectError(none, 400).errors!.map((e) => e.field)).toEqual(["payment_methods"])
    expect(expectError(await create({ name: "X", payment_methods: ["pix"], extra: 1 }), 400).errors![0]!.field).toBe(
      "extra"
    )
    expect(expectError(await api.get(`${LINKS}?active=maybe`, { token: m.key }), 400).errors![0]!.field).toBe("active")
  })
})

describe("the buyer's visits", () => {
  it("each visit creates its own v1 transaction in the link's account, to the centavo, on the link", async () => {
    const link = await fixed({ items: [{ name: "Camiseta", quantity: 2, unit_price: 4_495 }], metadata: { c: 1 } })
    const page = await fetch(`${service.baseUrl}/pay/${link.id}`, { headers: { accept: "text/html" } })
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'")
    expect(html).toContain("Camiseta")
    expect(html).toContain("R$\u00a089,90")
    expect(html).toContain('data-method="pix"')
    expect(html).toContain('data-method="credit_card"')
    expect(html).not.toContain('data-method="billet"')
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/)
    expect(html).not.toMatch(/\sstyle=/)

    const pix = await visit(link.id, { method: "pix", customer: buyer() })
    expect(pix.status, pix.text).toBe(201)
    expect(pix.body.checkout_url).toMatch(/^http:\/\/[^/]+\/checkout\/[A-Za-z0-9_-]{43}$/)
    const card = await visit(link.id, { method: "credit_card", customer: buyer() })
    expect(card.status, card.text).toBe(201)

    const { data, pagination } = await linkTransactions(link.id)
    expect(pagination.total).toBe(2)
    const [cardTx, pixTx] = data
    expect(pixTx).toMatchObject({
      method: "pix",
      status: "pending",
      amount: 8_990,
      amount_total: 8_990,
      checkout_url: pix.body.checkout_url,
      metadata: { c: 1, payment_link_id: link.id },
      products: [{ name: "Camiseta", quantity: 2, unit_price: 4_495 }]
    })
    expect(pixTx.pix.qr_code).toBeTruthy()
    // A card visit carries no card: pending on the hosted form, à vista (no interest) until the buyer types it.
    expect(cardTx).toMatchObject({
      method: "credit_card",
      status: "pending",
      amount: 8_990,
      installments: 1,
      amount_interest: 0,
      amount_total: 8_990,
      checkout_url: card.body.checkout_url
    })
    expect(cardTx.card).toBeUndefined()
    // They are the account's transactions like any other.
    const read = await api.get(`/public/v1/transactions/${pixTx.hash}`, { token: m.key })
    expect(read.status).toBe(200)
    expect((await api.get(`${LINKS}/${link.id}`, { token: m.key })).body.data.uses).toBe(2)
    // The card visit's page is the hosted card form.
    const form = await fetch(card.body.checkout_url, { headers: { accept: "text/html" } })
    expect(await form.text()).toContain('id="card-form"')
  })

  it("an open amount is the buyer's, within the link's bounds; the method must be the link's", async () => {
    const made = await create({ name: "Doação", payment_methods: ["pix"], min_amount: 1_000, max_amount: 50_000 })
    expect(made.status, made.text).toBe(201)
    const link = made.body.data
    expect(link).toMatchObject({ amount: null, min_amount: 1_000, max_amount: 50_000 })
    const html = await (await fetch(`${service.baseUrl}/pay/${link.id}`, { headers: { accept: "text/html" } })).text()
    expect(html).toContain('id="link-amount"')

    expect(expectError(await visit(link.id, { method: "pix", customer: buyer() }), 400).errors![0]!.field).toBe(
      "amount"
    )
    expect(
      expectError(await visit(link.id, { method: "pix", amount: 999, customer: buyer() }), 400).errors![0]!.field
    ).toBe("amount")
    expect(
      expectError(await visit(link.id, { method: "pix", amount: 50_001, customer: buyer() }), 400).errors![0]!.field
    ).toBe("amount")
    expect(
      expectError(await visit(link.id, { method: "credit_card", amount: 2_550, customer: buyer() }), 400).errors![0]!
        .field
    ).toBe("method")
    const badCpf = await visit(link.id, { method: "pix", amount: 2_550, customer: { ...buyer(), document: "123" } })
    expect(expectError(badCpf, 400).errors![0]!.field).toBe("customer.document")
    expect(expectError(await visit(link.id, { method: "pix", amount: 2_550 }), 400).errors![0]!.field).toBe("customer")

    const paid = await visit(link.id, { method: "pix", amount: 2_550, customer: buyer() })
    expect(paid.status, paid.text).toBe(201)
    const { data } = await linkTransactions(link.id)
    expect(data.map((t: { amount: number }) => t.amount)).toEqual([2_550])
    // None of the refused visits took a use.
    expect((await api.get(`${LINKS}/${link.id}`, { token: m.key })).body.data.uses).toBe(1)

    const fixedLink = await fixed()
    const chosen = await visit(fixedLink.id, { method: "pix", amount: 100, customer: buyer() })
    expect(expectError(chosen, 400).errors![0]!.field).toBe("amount")
  })

  it("a billet visit is a pending billet of the link's amount; restricted keys need the links' scopes", async () => {
    const link = await fixed({ payment_methods: ["billet"] })
    const billet = await visit(link.id, { method: "billet", customer: buyer() })
    expect(billet.status, billet.text).toBe(201)
    const [t] = (await linkTransactions(link.id)).data
    expect(t).toMatchObject({ method: "billet", status: "pending", amount: 8_990, amount_total: 8_990 })
    expect(t.billet.digitable_line).toBeTruthy()

    const restricted = async (scopes: ReadonlyArray<string>) => {
      const made = await api.post("/api/dashboard/api-keys", { label: scopes.join(" "), scopes }, { token: m.token })
      expect(made.status, made.text).toBe(201)
      return made.body.fullKey as string
    }
    const payments = await restricted(["transactions:read", "payments:write"])
    const forbidden = (reply: { status: number; body: { code?: string }; text: string }) => {
      expect(reply.status, reply.text).toBe(403)
      expect(reply.body.code).toBe("insufficient_permissions")
    }
    forbidden(await api.get(LINKS, { token: payments }))
    const reader = await restricted(["payment_links:read"])
    expect((await api.get(`${LINKS}/${link.id}`, { token: reader })).status).toBe(200)
    forbidden(await create({ name: "X", amount: 100, payment_methods: ["pix"] }, reader))
    forbidden(await api.post(`${LINKS}/${link.id}/deactivate`, undefined, { token: reader }))
    forbidden(await api.post(`${LINKS}/${link.id}/activate`, undefined, { token: reader }))
    const writer = await restricted(["payment_links:*"])
    expect((await create({ name: "X", amount: 100, payment_methods: ["pix"] }, writer)).status).toBe(201)
  })

  it("a deactivated link says so: a page (410) to a browser, 409 to an API client, and creates nothing", async () => {
    const link = await fixed()
    const off = await api.post(`${LINKS}/${link.id}/deactivate`, undefined, { token: m.key })
    expect(off.status, off.text).toBe(200)
    expect(off.body.data).toMatchObject({ active: false, status: "inactive" })
    const page = await fetch(`${service.baseUrl}/pay/${link.id}`, { headers: { accept: "text/html" } })
    expect(page.status).toBe(410)
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'")
    expect(await page.text()).toContain("Este link de pagamento foi desativado")
    expectError(
      await api.get(`/pay/${link.id}`, { headers: { accept: "application/json" } }),
      409,
      "payment_link_inactive"
    )
    expectError(await visit(link.id, { method: "pix", customer: buyer() }), 409, "payment_link_inactive")
    expect((await linkTransactions(link.id)).pagination.total).toBe(0)
    const unknown = await fetch(`${service.baseUrl}/pay/${crypto.randomUUID()}`, { headers: { accept: "text/html" } })
    expect(unknown.status).toBe(404)
    expect(await unknown.text()).toContain("Link de pagamento inválido")
    expect(
      (await api.get(`${LINKS}?active=false`, { token: m.key })).body.data.map((l: { id: string }) => l.id)
    ).toContain(link.id)
  })

  it("activated again: the same link and address take visits, its uses kept; twice is harmless", async () => {
    const link = await fixed({ max_uses: 3 })
    expect((await visit(link.id, { method: "pix", customer: buyer() })).status).toBe(201)
    expect((await api.post(`${LINKS}/${link.id}/deactivate`, undefined, { token: m.key })).status).toBe(200)
    expectError(await visit(link.id, { method: "pix", customer: buyer() }), 409, "payment_link_inactive")

    const on = await api.post(`${LINKS}/${link.id}/activate`, undefined, { token: m.key })
    expect(on.status, on.text).toBe(200)
    expect(on.body.data).toMatchObject({ id: link.id, url: link.url, active: true, status: "active", uses: 1 })
    const again = await api.post(`${LINKS}/${link.id}/activate`, undefined, { token: m.key })
    expect(again.status).toBe(200)
    expect(again.body.data).toEqual(on.body.data)
    const page = await fetch(`${service.baseUrl}/pay/${link.id}`, { headers: { accept: "text/html" } })
    expect(page.status).toBe(200)
    // Its uses count on from where they were: two more visits, then it is used up.
    for (let i = 0; i < 2; i++) expect((await visit(link.id, { method: "pix", customer: buyer() })).status).toBe(201)
    expectError(await visit(link.id, { method: "pix", customer: buyer() }), 409, "payment_link_used_up")
    // Activated, a used-up link stays used up: the switch is the merchant's, the cap is the link's.
    const used = await api.post(`${LINKS}/${link.id}/activate`, undefined, { token: m.key })
    expect(used.body.data).toMatchObject({ active: true, status: "used_up", uses: 3 })
    expect((await linkTransactions(link.id)).pagination.total).toBe(3)
    // Another account's link, or no link: 404, and nothing changes.
    const off = await api.post(`${LINKS}/${link.id}/deactivate`, undefined, { token: m.key })
    expect(off.body.data.active).toBe(false)
    expectError(await api.post(`${LINKS}/${link.id}/activate`, undefined, { token: other.key }), 404)
    expectError(await api.post(`${LINKS}/${crypto.randomUUID()}/activate`, undefined, { token: m.key }), 404)
    expect((await api.get(`${LINKS}/${link.id}`, { token: m.key })).body.data.active).toBe(false)
  })

  it("an expired link takes no visit", async () => {
    const expiresAt = new Date(Date.now() + 2_000)
    const link = await fixed({ expires_at: expiresAt.toISOString() })
    expect((await visit(link.id, { method: "pix", customer: buyer() })).status).toBe(201)
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 200))
    expectError(await visit(link.id, { method: "pix", customer: buyer() }), 409, "payment_link_expired")
    const page = await fetch(`${service.baseUrl}/pay/${link.id}`, { headers: { accept: "text/html" } })
    expect(page.status).toBe(410)
    expect(await page.text()).toContain("Este link de pagamento expirou")
    expect((await api.get(`${LINKS}/${link.id}`, { token: m.key })).body.data).toMatchObject({
      status: "expired",
      uses: 1
    })
    expect((await linkTransactions(link.id)).pagination.total).toBe(1)
  })

  it("max_uses holds under concurrency: 40 parallel visits of a 5-use link create exactly 5 transactions", async () => {
    for (let round = 0; round < 3; round += 1) {
      const link = await fixed({ max_uses: 5 })
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          visit(link.id, { method: i % 2 === 0 ? "pix" : "credit_card", customer: buyer() })
        )
      )
      const statuses = replies.map((r) => r.status)
      expect(statuses.filter((s) => s === 201).length, `round ${round}: ${statuses.join(",")}`).toBe(5)
      for (const r of replies.filter((r) => r.status !== 201)) {
        expect(r.status, r.text).toBe(409)
        expect(r.body.code).toBe("payment_link_used_up")
      }
      const { data, pagination } = await linkTransactions(link.id)
      expect(pagination.total).toBe(5)
      expect(new Set(data.map((t: { checkout_url: string }) => t.checkout_url))).toEqual(
        new Set(replies.filter((r) => r.status === 201).map((r) => r.body.checkout_url))
      )
      expect((await api.get(`${LINKS}/${link.id}`, { token: m.key })).body.data).toMatchObject({
        uses: 5,
        status: "used_up"
      })
      const page = await fetch(`${service.baseUrl}/pay/${link.id}`, { headers: { accept: "text/html" } })
      expect(page.status).toBe(410)
      expect(await page.text()).toContain("Este link de pagamento esgotou")
    }
  })

  it("a link takes PAYMENT_LINK_VISITS_PER_MINUTE visits a minute; past it 429, no use, nothing made", async () => {
    const link = await fixed()
    const busy = await fixed()
    // A body refused by validation is checked before the window and takes no slot.
    for (let i = 0; i < 5; i += 1) {
      const bad = await visit(link.id, { method: "pix", customer: { ...buyer(), document: "123" } })
      expect(expectError(bad, 400).errors![0]!.field).toBe("customer.document")
    }
    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        visit(link.id, { method: i % 2 === 0 ? "pix" : "credit_card", customer: buyer() })
      )
    )
    const made = replies.filter((r) => r.status === 201)
    expect(made.length, replies.map((r) => r.status).join(",")).toBe(VISITS_PER_MINUTE)
    for (const r of replies.filter((r) => r.status !== 201)) {
      expectError(r, 429, "payment_link_rate_limited")
      const retry = Number(r.headers.get("retry-after"))
      expect(retry >= 1 && retry <= 60, `retry-after ${retry}`).toBe(true)
      expect(r.body.message).toContain(`at most ${VISITS_PER_MINUTE} visits a minute`)
    }
    // Exactly the admitted visits made transactions and took uses, to the centavo.
    const { data, pagination } = await linkTransactions(link.id, m.key, "?per_page=100")
    expect(pagination.total).toBe(VISITS_PER_MINUTE)
    expect(data.reduce((sum: number, t: { amount: number }) => sum + t.amount, 0)).toBe(VISITS_PER_MINUTE * 8_990)
    expect((await api.get(`${LINKS}/${link.id}`, { token: m.key })).body.data.uses).toBe(VISITS_PER_MINUTE)
    // Another link's visits are counted apart.
    expect((await visit(busy.id, { method: "pix", customer: buyer() })).status).toBe(201)
  })
})

describe("tenant scoping", () => {
  it("another account's link is a 404 for every operation", async () => {
    const link = await fixed()
    expectError(await api.get(`${LINKS}/${link.id}`, { token: other.key }), 404)
    expectError(await api.get(`${LINKS}/${link.id}/transactions`, { token: other.key }), 404)
    expectError(await api.post(`${LINKS}/${link.id}/deactivate`, undefined, { token: other.key }), 404)
    expectError(await api.get(`${LINKS}/not-a-uuid`, { token: m.key }), 404)
    expect((await api.get(LINKS, { token: other.key })).body.data).toEqual([])
    expect((await api.get(`${LINKS}/${link.id}`, { token: m.key })).body.data.active).toBe(true)
  })

  it("a live link's visits are live transactions, a test link's test ones; neither key sees the other's", async () => {
    const live = await liveMerchant(api, "Loja ao Vivo")
    const liveLink = await fixed({ payment_methods: ["credit_card"] }, live.key)
    expect(liveLink.livemode).toBe(true)
    const testLink = await fixed({ payment_methods: ["credit_card"] }, live.testKey)
    expect(testLink.livemode).toBeUndefined()
    expect((await visit(liveLink.id, { method: "credit_card", customer: buyer() })).status).toBe(201)
    expect((await visit(testLink.id, { method: "credit_card", customer: buyer() })).status).toBe(201)

    const liveTx = (await linkTransactions(liveLink.id, live.key)).data
    expect(liveTx).toHaveLength(1)
    expect(liveTx[0]).toMatchObject({ livemode: true, amount: 8_990, status: "pending" })
    const testTx = (await linkTransactions(testLink.id, live.testKey)).data
    expect(testTx).toHaveLength(1)
    expect(testTx[0].livemode).toBeUndefined()
    expectError(await api.get(`${LINKS}/${liveLink.id}`, { token: live.testKey }), 404)
    expectError(await api.get(`${LINKS}/${testLink.id}`, { token: live.key }), 404)
    expectError(await api.get(`/public/v1/transactions/${liveTx[0].hash}`, { token: live.testKey }), 404)
    expectError(await api.get(`/public/v1/transactions/${testTx[0].hash}`, { token: live.key }), 404)
  })
})

describe("the dashboard's payment-link routes", () => {
  const DASH = "/api/dashboard/payment-links"
  const dash = (token: string, mode: "test" | "live" = "test") => ({ token, headers: { "x-gateway-mode": mode } })

  it("create, list, deactivate and the link's transactions with the login JWT; an API key is a 401", async () => {
    const made = await api.post(DASH, { name: "Ingresso", amount: 12_000, payment_methods: ["pix"] }, dash(m.token))
    expect(made.status, made.text).toBe(201)
    expect(made.body).toMatchObject({ name: "Ingresso", amount: 12_000, payment_methods: ["pix"], status: "active" })
    const bad = await api.post(DASH, { name: "", payment_methods: ["cash"] }, dash(m.token))
    expect(
      expectError(bad, 400)
        .errors!.map((e) => e.field)
        .sort()
    ).toEqual(["name", "payment_methods[0]"])

    const list = await api.get(`${DASH}?per_page=1`, dash(m.token))
    expect(list.status, list.text).toBe(200)
    expect(list.body.data[0].id).toBe(made.body.id)
    expect(list.body.total).toBeGreaterThan(1)
    expectError(await api.get(`${DASH}?per_page=0`, dash(m.token)), 400)

    expect((await visit(made.body.id, { method: "pix", customer: buyer() })).status).toBe(201)
    const txs = await api.get(`${DASH}/${made.body.id}/transactions`, dash(m.token))
    expect(txs.status, txs.text).toBe(200)
    expect(txs.body.total).toBe(1)
    expect(txs.body.data[0]).toMatchObject({ method: "PIX", status: "PENDING", amount: 12_000, amountTotal: 12_000 })
    expect(txs.body.data[0].buyer.name).toBe("Ana Souza")

    const off = await api.post(`${DASH}/${made.body.id}/deactivate`, undefined, dash(m.token))
    expect(off.status, off.text).toBe(200)
    expect(off.body).toMatchObject({ active: false, status: "inactive" })
    expectError(await api.post(`${DASH}/${made.body.id}/activate`, undefined, dash(other.token)), 404)
    const on = await api.post(`${DASH}/${made.body.id}/activate`, undefined, dash(m.token))
    expect(on.status, on.text).toBe(200)
    expect(on.body).toMatchObject({ active: true, status: "active", uses: 1 })
    expect((await visit(made.body.id, { method: "pix", customer: buyer() })).status).toBe(201)

    // Never an API key; another account's link is a 404.
    expectError(await api.get(DASH, { key: m.key }), 401)
    expectError(await api.get(DASH, { token: m.key }), 401)
    expectError(await api.post(`${DASH}/${made.body.id}/deactivate`, undefined, dash(other.token)), 404)
    expectError(await api.get(`${DASH}/${made.body.id}/transactions`, dash(other.token)), 404)
  })

  it("X-Gateway-Mode: live shows and makes the live tenant's links only", async () => {
    const live = await liveMerchant(api, "Loja Dupla")
    const made = await api.post(
      DASH,
      { name: "Ao vivo", amount: 5_000, payment_methods: ["credit_card"] },
      dash(live.token, "live")
    )
    expect(made.status, made.text).toBe(201)
    expect(made.body.livemode).toBe(true)
    const viaKey = await api.get(`${LINKS}/${made.body.id}`, { token: live.key })
    expect(viaKey.body.data.livemode).toBe(true)
    expectError(await api.get(`${LINKS}/${made.body.id}`, { token: live.testKey }), 404)
    expect((await api.get(DASH, dash(live.token))).body.data).toEqual([])
    expect((await api.get(DASH, dash(live.token, "live"))).body.data.map((l: { id: string }) => l.id)).toEqual([
      made.body.id
    ])
  })
})
