import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestDatabase } from "./support/database.ts"
import { client, type Client, signup } from "./support/http.ts"
import { expectError, freshCpf } from "./support/payments.ts"
import { spawnRole, stopAll, type RoleProcess } from "./support/processes.ts"

/**
 * Editing a payment link already shared (docs/payment-links.md "Editing a link"), through a real service
 * process: what may change and what may not, the limits that revive a used-up or expired link, `max_uses`
 * never below the uses made even while buyers visit, scopes, tenants and the dashboard's route.
 */

let service: RoleProcess
let api: Client
let m: Awaited<ReturnType<typeof signup>>
let other: Awaited<ReturnType<typeof signup>>

beforeAll(async () => {
  service = await spawnRole(
    "all",
    {
      DATABASE_URL: await createTestDatabase(),
      RATE_LIMIT_PER_MINUTE: "100000",
      PAYMENT_LINK_VISITS_PER_MINUTE: "1000"
    },
    { readyTimeoutMs: 90_000 }
  )
  api = client(service.baseUrl)
  m = await signup(api, "Loja que Edita")
  other = await signup(api, "Outra Loja")
}, 120_000)
afterAll(async () => {
  await stopAll([service])
})

const LINKS = "/public/v1/payment_links"
const buyer = () => ({ name: "Ana Souza", email: "ana@example.com", document: freshCpf() })
const visit = (id: string, body: unknown) => api.post(`/pay/${id}`, body, { headers: { accept: "application/json" } })
const pix = (id: string) => visit(id, { method: "pix", customer: buyer() })
const made = async (extra: Record<string, unknown> = {}) => {
  const reply = await api.post(
    LINKS,
    { name: "Camiseta", amount: 8_990, payment_methods: ["pix", "credit_card"], ...extra },
    { token: m.key }
  )
  expect(reply.status, reply.text).toBe(201)
  return reply.body.data
}
const edit = (id: string, body: unknown, token = m.key) => api.patch(`${LINKS}/${id}`, body, { token })
const edited = async (id: string, body: unknown) => {
  const reply = await edit(id, body)
  expect(reply.status, reply.text).toBe(200)
  return reply.body.data
}
const fields = (reply: Parameters<typeof expectError>[0]) =>
  expectError(reply, 400)
    .errors!.map((e) => e.field)
    .sort()

describe("editing a payment link", () => {
  it("changes what the page says and the link's terms; omitted fields stay, null clears", async () => {
    const link = await made({
      description: "Tamanho M",
      items: [{ name: "Camiseta M", quantity: 1, unit_price: 8_990 }],
      max_installments: 3,
      max_uses: 10,
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      metadata: { campaign: "natal" }
    })
    const later = new Date(Math.floor(Date.now() / 1000) * 1000 + 7 * 86_400_000)
    const changed = await edited(link.id, {
      name: "Camiseta Azul",
      description: null,
      items: [{ name: "Camiseta Azul G", quantity: 1, unit_price: 8_990, sku: "AZ-G" }],
      payment_methods: ["pix", "billet"],
      expires_at: later.toISOString(),
      max_uses: null,
      metadata: { campaign: "ano-novo" }
    })
    expect(changed).toMatchObject({
      id: link.id,
      url: link.url,
      name: "Camiseta Azul",
      description: null,
      amount: 8_990,
      items: [{ name: "Camiseta Azul G", quantity: 1, unit_price: 8_990, sku: "AZ-G" }],
      payment_methods: ["pix", "billet"],
      // Cards taken away: their installments with them.
      max_installments: 1,
      max_uses: null,
      metadata: { campaign: "ano-novo" },
      uses: 0,
      status: "active",
      created_at: link.created_at
    })
    // v1 writes instants in São Paulo's offset, to the second.
    expect(new Date(changed.expires_at).getTime()).toBe(later.getTime())
    expect((await api.get(`${LINKS}/${link.id}`, { token: m.key })).body.data).toEqual(changed)
    // An empty edit changes nothing, not even updated_at (written to the second: a second later).
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    expect(await edited(link.id, {})).toEqual(changed)

    const page = await (await fetch(`${service.baseUrl}/pay/${link.id}`, { headers: { accept: "text/html" } })).text()
    expect(page).toContain("Camiseta Azul G")
    expect(page).toContain('data-method="billet"')
    expect(page).not.toContain('data-method="credit_card"')
    expectError(await visit(link.id, { method: "credit_card", customer: buyer() }), 400)
    const paid = await pix(link.id)
    expect(paid.status, paid.text).toBe(201)
    const [t] = (await api.get(`${LINKS}/${link.id}/transactions`, { token: m.key })).body.data
    expect(t).toMatchObject({
      amount: 8_990,
      metadata: { campaign: "ano-novo", payment_link_id: link.id },
      products: [{ name: "Camiseta Azul G", quantity: 1, unit_price: 8_990 }]
    })
    // The transaction keeps what it was made with; the link's metadata cleared is {}.
    expect(await edited(link.id, { metadata: null })).toMatchObject({ metadata: {}, uses: 1 })
    expect((await api.get(`/public/v1/transactions/${t.hash}`, { token: m.key })).body.data.metadata).toEqual({
      campaign: "ano-novo",
      payment_link_id: link.id
    })
  })

  it("the amount is the page's promise and cannot change; every broken field is named at once", async () => {
    const link = await made()
    expect(fields(await edit(link.id, { amount: 100, min_amount: 1, max_amount: 2 }))).toEqual([
      "amount",
      "max_amount",
      "min_amount"
    ])
    const broken = {
      name: " ",
      description: "x".repeat(1_001),
      items: [{ name: "", quantity: 0, unit_price: -1 }],
      payment_methods: [],
      max_installments: 99,
      expires_at: "2030-01-01T00:00:00",
      max_uses: 0,
      metadata: { blob: "x".repeat(8_001) }
    }
    // A field the operation does not declare is refused by the body's schema, before the rules.
    expect(fields(await edit(link.id, { ...broken, colour: "blue" }))).toEqual(["colour"])
    expect(fields(await edit(link.id, { expires_at: new Date(Date.now() - 1_000).toISOString() }))).toEqual([
      "expires_at"
    ])
    expect(fields(await edit(link.id, broken))).toEqual([
      "description",
      "expires_at",
      "items[0].name",
      "items[0].quantity",
      "items[0].unit_price",
      "max_installments",
      "max_uses",
      "metadata",
      "name",
      "payment_methods"
    ])
    expect(fields(await edit(link.id, { max_uses: "3", expires_at: 5 }))).toEqual(["expires_at", "max_uses"])
    // Installments need cards, in the link as it would be.
    expect(fields(await edit(link.id, { payment_methods: ["pix"], max_installments: 2 }))).toEqual(["max_installments"])
    const pixOnly = await made({ payment_methods: ["pix"] })
    expect(fields(await edit(pixOnly.id, { max_installments: 2 }))).toEqual(["max_installments"])
    expect(await edited(pixOnly.id, { payment_methods: ["pix", "credit_card"], max_installments: 2 })).toMatchObject({
      max_installments: 2
    })
    // Nothing refused changed anything.
    expect((await api.get(`${LINKS}/${link.id}`, { token: m.key })).body.data).toEqual(link)
  })

  it("raising max_uses or moving expires_at revives the link; max_uses never goes below its uses", async () => {
    const link = await made({ max_uses: 2 })
    for (let i = 0; i < 2; i++) expect((await pix(link.id)).status).toBe(201)
    expectError(await pix(link.id), 409, "payment_link_used_up")
    const below = expectError(await edit(link.id, { max_uses: 1 }), 400)
    expect(below.errors).toEqual([
      { field: "max_uses", message: "max_uses must be at least 2, the transactions the link has already created" }
    ])
    expect(await edited(link.id, { max_uses: 2 })).toMatchObject({ status: "used_up" })
    expect(await edited(link.id, { max_uses: 3 })).toMatchObject({ status: "active", uses: 2, max_uses: 3 })
    expect((await pix(link.id)).status).toBe(201)
    expectError(await pix(link.id), 409, "payment_link_used_up")

    const expiresAt = new Date(Date.now() + 1_500)
    const soon = await made({ expires_at: expiresAt.toISOString() })
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 200))
    expectError(await pix(soon.id), 409, "payment_link_expired")
    expect(await edited(soon.id, { expires_at: null })).toMatchObject({ status: "active", expires_at: null })
    expect((await pix(soon.id)).status).toBe(201)
    // A deactivated link stays deactivated whatever is edited: the switch is the merchant's alone.
    await api.post(`${LINKS}/${soon.id}/deactivate`, undefined, { token: m.key })
    expect(await edited(soon.id, { name: "Outro nome" })).toMatchObject({ active: false, status: "inactive" })
  })

  it("max_uses lowered while buyers visit: never below the uses made, never more uses than it allows", async () => {
    // The edit reads the link under its row lock: a visit holding a use commits first and is counted.
    // Without the lock the edit could pass its check on a stale count and break the table's check (a 500).
    for (let round = 0; round < 8; round += 1) {
      const link = await made({ max_uses: 12 })
      const lowered = 3 + (round % 4)
      const visits = Array.from({ length: 16 }, () => pix(link.id))
      await new Promise((resolve) => setTimeout(resolve, round * 4))
      const [change, ...replies] = await Promise.all([edit(link.id, { max_uses: lowered }), ...visits])
      const made201 = replies.filter((r) => r.status === 201).length
      for (const r of replies.filter((r) => r.status !== 201)) {
        expect(r.status, r.text).toBe(409)
        expect(r.body.code).toBe("payment_link_used_up")
      }
      const now = (await api.get(`${LINKS}/${link.id}`, { token: m.key })).body.data
      expect(now.uses, `round ${round}`).toBe(made201)
      expect((await api.get(`${LINKS}/${link.id}/transactions`, { token: m.key })).body.pagination.total).toBe(made201)
      if (change.status === 200) {
        expect(now.max_uses).toBe(lowered)
        expect(made201).toBeLessThanOrEqual(lowered)
      } else {
        expect(change.status, change.text).toBe(400)
        expect(change.body.errors[0].field).toBe("max_uses")
        expect(change.body.errors[0].message).toMatch(/^max_uses must be at least (\d+),/)
        expect(Number(/at least (\d+)/.exec(change.body.errors[0].message)![1])).toBeGreaterThan(lowered)
        expect(now.max_uses).toBe(12)
      }
    }
  })

  it("needs payment_links:write; another account's link or none is a 404; the dashboard's login edits", async () => {
    const link = await made()
    const key = async (scopes: ReadonlyArray<string>) =>
      (await api.post("/api/dashboard/api-keys", { label: scopes.join(" "), scopes }, { token: m.token })).body
        .fullKey as string
    const reader = await key(["payment_links:read"])
    const denied = await edit(link.id, { name: "X" }, reader)
    expect(denied.status, denied.text).toBe(403)
    expect(denied.body.code).toBe("insufficient_permissions")
    expect((await edit(link.id, { name: "Por escopo" }, await key(["payment_links:write"]))).status).toBe(200)
    expectError(await edit(link.id, { name: "X" }, other.key), 404)
    expectError(await edit(crypto.randomUUID(), { name: "X" }), 404)
    expectError(await edit("not-a-link", { name: "X" }), 404)

    const DASH = "/api/dashboard/payment-links"
    const dash = (token: string) => ({ token, headers: { "x-gateway-mode": "test" } })
    const viaDashboard = await api.patch(`${DASH}/${link.id}`, { name: "Pelo painel", max_uses: 5 }, dash(m.token))
    expect(viaDashboard.status, viaDashboard.text).toBe(200)
    expect(viaDashboard.body).toMatchObject({ id: link.id, name: "Pelo painel", max_uses: 5, uses: 0 })
    expect(fields(await api.patch(`${DASH}/${link.id}`, { amount: 1 }, dash(m.token)))).toEqual(["amount"])
    expectError(await api.patch(`${DASH}/${link.id}`, { name: "X" }, dash(other.token)), 404)
    expectError(await api.patch(`${DASH}/${link.id}`, { name: "X" }, { key: m.key }), 401)
    expect((await api.get(`${LINKS}/${link.id}`, { token: m.key })).body.data.name).toBe("Pelo painel")
  })
})
