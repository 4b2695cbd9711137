import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, signup } from "./support/http.ts"
import { CARDS, freshCpf } from "./support/payments.ts"
import { type Receiver, startReceiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The hosted card form (issue 20 §4, docs/checkout.md "Hosted card form"): a v1 credit_card charge made
 * without a card is pending with a checkout page that takes the card; the card goes to the gateway in
 * a POST body only and never reaches the merchant, an event, a webhook payload or the request log.
 */

let server: TestServer
let receiver: Receiver
let m: Awaited<ReturnType<typeof signup>>
const api = () => client(server.baseUrl)
const CVV = "734"

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, webhookAllowPrivateUrls: true })
  receiver = await startReceiver()
  m = await signup(api(), "Loja Hospedada")
  await api().post("/api/webhooks/upsert", { url: receiver.url }, { key: m.key })
})
afterAll(async () => {
  await receiver?.close()
  await server?.close()
})

const hosted = async (amount = 30_000, installments = 3) => {
  const reply = await api().post(
    "/public/v1/transactions",
    {
      method: "credit_card",
      amount,
      installments,
      customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" }
    },
    { token: m.key }
  )
  expect(reply.status, reply.text).toBe(201)
  const url = new URL(reply.body.data.checkout_url)
  return { data: reply.body.data, path: url.pathname }
}

const card = (number: string) => ({
  holder_name: "MARIA SILVA",
  number,
  exp_month: "12",
  exp_year: String(new Date().getUTCFullYear() + 2),
  cvv: CVV
})

describe("the hosted card form", () => {
  it("a charge without a card is pending; its page shows the form; the card pays it; no one else sees it", async () => {
    const { data, path } = await hosted()
    // i = 2.99 % a month, n = 3 on R$ 300,00: 10,604 each, 31,812 in all (v1.transactions.test.ts).
    expect(data).toMatchObject({ status: "pending", method: "credit_card", amount: 30_000, amount_total: 31_812 })
    expect(data.card).toBeUndefined()

    const page = await fetch(`${server.baseUrl}${path}`, { headers: { accept: "text/html" } })
    const html = await page.text()
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'")
    expect(html).toContain('id="card-form"')
    expect(html).toContain(`data-pay-url="${path}/card"`)
    expect(html).toContain("3x de R$\u00a0106,04")
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/) // no inline script
    expect(html).not.toMatch(/\sstyle=/) // no inline style

    const bad = await api().post(`${path}/card`, card("4242424242424241"))
    expect(bad.status, bad.text).toBe(400)
    expect(bad.body.errors[0].field).toBe("number")
    expect((await api().post(`${path}/card`, { ...card(CARDS.visa), extra: 1 })).status).toBe(400)

    const paid = await api().post(`${path}/card`, card(CARDS.visa))
    expect(paid.status, paid.text).toBe(200)
    expect(paid.body).toEqual({ status: "paid", reason: null })
    // One card per charge.
    const again = await api().post(`${path}/card`, card(CARDS.visa))
    expect(again.status, again.text).toBe(409)

    const read = await api().get(`/public/v1/transactions/${data.hash}`, { token: m.key })
    expect(read.body.data).toMatchObject({
      status: "paid",
      amount_total: 31_812,
      installments: 3,
      card: { brand: "Visa", last4: "4242", holder_name: "MARIA SILVA" }
    })
    const after = await (await fetch(`${server.baseUrl}${path}`, { headers: { accept: "text/html" } })).text()
    expect(after).toContain('data-state="paid"')
    expect(after).not.toContain('id="card-form"')

    await receiver.waitFor(
      (rs) => rs.some((r) => r.body.includes(data.hash) && r.body.includes("transaction.paid")),
      10_000,
      "transaction.paid delivered"
    )
    const events = await api().get(`/api/events?transactionId=${data.hash}`, { key: m.key })
    expect(events.body.events.map((e: any) => e.type)).toEqual(["transaction.paid", "transaction.created"])
    await new Promise((r) => setTimeout(r, 400)) // the request log's batch
    const log = await api().get("/api/request-log?limit=100", { key: m.key })
    const { rows } = await server.db.query("select * from request_log")
    // What the merchant and its systems can see: nowhere the card number or the CVV.
    const seen = [
      JSON.stringify(read.body),
      JSON.stringify(events.body),
      JSON.stringify(log.body),
      JSON.stringify(rows),
      ...receiver.requests.map((r) => r.body + JSON.stringify(r.headers) + r.path),
      after
    ].join("\n")
    expect(seen).not.toContain(CARDS.visa)
    expect(seen).not.toContain(`"${CVV}"`)
    // The checkout calls are no API-key requests: not in the merchant's request log at all.
    expect(rows.map((r) => r.path).filter((p: string) => p.startsWith("/checkout"))).toEqual([])
  })

  it("a refused card shows a reason the buyer can read; a card held for review is processing", async () => {
    const refused = await hosted(10_000, 1)
    const reply = await api().post(`${refused.path}/card`, card(CARDS.insufficientFunds))
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toEqual({ status: "refused", reason: "O cartão não tem saldo ou limite suficiente." })
    const page = await (await fetch(`${server.baseUrl}${refused.path}`, { headers: { accept: "text/html" } })).text()
    expect(page).toContain("O cartão não tem saldo ou limite suficiente.")

    const review = await hosted(10_000, 1)
    const held = await api().post(`${review.path}/card`, card("4000000000000101"))
    expect(held.status, held.text).toBe(200)
    expect(held.body).toEqual({ status: "processing", reason: null })
    const read = await api().get(`/public/v1/transactions/${review.data.hash}`, { token: m.key })
    expect(read.body.data.status).toBe("antifraud") // v1 words for a charge in review
  })

  it("an unknown token is a 404; a charge that is not a pending card is a 409", async () => {
    expect((await api().post("/checkout/nope/card", card(CARDS.visa))).status).toBe(404)
    const pix = await api().post(
      "/public/v1/transactions",
      {
        method: "pix",
        amount: 1_000,
        customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" }
      },
      { token: m.key }
    )
    const path = new URL(pix.body.data.checkout_url).pathname
    const reply = await api().post(`${path}/card`, card(CARDS.visa))
    expect(reply.status, reply.text).toBe(409)
  })

  it("the buyer chooses the plan up to max_installments: totals from the Price table, fee follows", async () => {
    const customer = () => ({ name: "Ana Souza", email: "ana@example.com", document: freshCpf(), ip: "203.0.113.8" })
    const create = (extra: Record<string, unknown>) =>
      api().post(
        "/public/v1/transactions",
        { method: "credit_card", amount: 30_000, customer: customer(), ...extra },
        {
          token: m.key
        }
      )
    const created = await create({ max_installments: 12 })
    expect(created.status, created.text).toBe(201)
    // Until the buyer chooses: one installment, nothing added.
    expect(created.body.data).toMatchObject({
      status: "pending",
      installments: 1,
      max_installments: 12,
      amount_total: 30_000
    })
    const path = new URL(created.body.data.checkout_url).pathname

    // Each plan on the page with its total, computed here from the rule (docs/configuration.md defaults:
    // 1 without interest, 2.99 % a month above: each = round_half_up(N·i·(1+i)^n / ((1+i)^n − 1))).
    const each = (n: number) => {
      const [a, b] = [299n, 10_000n]
      const grown = (b + a) ** BigInt(n)
      const num = 30_000n * a * grown
      const den = b * (grown - b ** BigInt(n))
      return Number((2n * num + den) / (2n * den))
    }
    const html = await (await fetch(`${server.baseUrl}${path}`, { headers: { accept: "text/html" } })).text()
    const brl = (c: number) =>
      `R$\u00a0${Math.floor(c / 100).toLocaleString("pt-BR")},${String(c % 100).padStart(2, "0")}`
    expect(html).toContain('<select id="cc-installments"')
    expect(html.match(/<option value="\d+"/g)).toHaveLength(12)
    expect(html).toContain(`à vista (total ${brl(30_000)})`)
    expect(html).toContain(`3x de ${brl(each(3))} (total ${brl(each(3) * 3)})`)
    expect(html).toContain(`12x de ${brl(each(12))} (total ${brl(each(12) * 12)})`)

    // Broken or not allowed: a 400 naming the field, and the charge is still payable.
    for (const installments of ["três", 2.5, 0, 13]) {
      const bad = await api().post(`${path}/card`, { ...card(CARDS.visa), installments })
      expect(bad.status, bad.text).toBe(400)
      expect(bad.body.errors[0].field).toBe("installments")
    }
    const fewer = await create({ max_installments: 2 })
    const over = await api().post(`${new URL(fewer.body.data.checkout_url).pathname}/card`, {
      ...card(CARDS.visa),
      installments: 3
    })
    expect(over.status, over.text).toBe(400)
    expect(over.body.errors[0].field).toBe("installments")

    const paid = await api().post(`${path}/card`, { ...card(CARDS.visa), installments: 3 })
    expect(paid.status, paid.text).toBe(200)
    expect(paid.body.status).toBe("paid")
    const total = each(3) * 3
    const read = await api().get(`/public/v1/transactions/${created.body.data.hash}`, { token: m.key })
    expect(read.body.data).toMatchObject({
      status: "paid",
      installments: 3,
      max_installments: 12,
      amount: 30_000,
      amount_total: total,
      amount_interest: total - 30_000
    })
    // The fee follows the new total: FEE_CREDIT_CARD 3.99 %, rounded half up.
    const { rows } = await server.db.query("select fee from transactions where id = $1", [created.body.data.hash])
    expect(Number(rows[0].fee)).toBe(Math.floor((total * 399 + 5_000) / 10_000))
  })

  it("max_installments: only for a card charge without card nor installments; a fixed plan stays fixed", async () => {
    const customer = { name: "Ana Souza", email: "ana@example.com", document: freshCpf(), ip: "203.0.113.8" }
    const create = (body: Record<string, unknown>) =>
      api().post("/public/v1/transactions", { amount: 30_000, customer, ...body }, { token: m.key })
    for (const body of [
      { method: "credit_card", max_installments: 13 },
      { method: "credit_card", max_installments: "doze" },
      { method: "credit_card", max_installments: 6, installments: 3 },
      { method: "credit_card", max_installments: 6, card: card(CARDS.visa) },
      { method: "pix", max_installments: 6 }
    ]) {
      const reply = await create(body)
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body.errors[0].field, reply.text).toBe("max_installments")
    }
    // The merchant fixed 3: the page shows it fixed, and another plan is refused.
    const { path } = await hosted(30_000, 3)
    const html = await (await fetch(`${server.baseUrl}${path}`, { headers: { accept: "text/html" } })).text()
    expect(html).not.toContain("cc-installments")
    const other = await api().post(`${path}/card`, { ...card(CARDS.visa), installments: 5 })
    expect(other.status, other.text).toBe(400)
    expect(other.body.errors[0].field).toBe("installments")
  })
})
