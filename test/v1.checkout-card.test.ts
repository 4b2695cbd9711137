import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf, newOrder, PROCESS, cardBody } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Every card transaction has its hosted page (issue 19 item 6; CONTRACT-v1 §2 `checkout_url`, §6): approved,
 * refused, failed and held for review alike, and the page names the brand, the last 4 digits, the
 * installments and the live status, in pt-BR, without any more of the card.
 */

let server: TestServer
let api: Client
let key: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api, "Loja do Pedro")).key
})
afterAll(async () => {
  await server?.close()
})

const V1 = "/public/v1"
const REVIEW_CARD = "4000000000000101"
const CHECKOUT_URL = () => new RegExp(`^${server.baseUrl}/checkout/[A-Za-z0-9_-]{43}$`)

const charge = async (number: string, installments = 1, amount = 10_000) => {
  const reply = await api.post(
    `${V1}/transactions`,
    {
      method: "credit_card",
      amount,
      installments,
      customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" },
      card: { number, holder_name: "MARIA SILVA", exp_month: "12", exp_year: "2035", cvv: "123" }
    },
    { token: key }
  )
  expect(reply.status, reply.text).toBe(201)
  return reply.body.data
}

/** The page behind a checkout_url, as a buyer's browser asks for it. */
const page = async (url: string) => {
  const response = await fetch(url, { headers: { accept: "text/html" } })
  const html = await response.text()
  expect(response.status, html).toBe(200)
  expect(response.headers.get("content-type")).toContain("text/html")
  // The page's words without markup, with non-breaking spaces read as spaces.
  const text = html
    .replace(/<[^>]+>/g, " ")
    .replace(/\u00a0|&nbsp;/g, " ")
    .replace(/\s+/g, " ")
  return { html, text }
}

/** CONTRACT-v1 §4's Price-table installment at 2.99 % a month, rounded half up, in R$ words. */
const installmentOf = (amount: number, n: number) => {
  const grown = 10_299n ** BigInt(n)
  const base = 10_000n ** BigInt(n)
  const num = BigInt(amount) * 299n * grown
  const den = 10_000n * (grown - base)
  const each = Number((2n * num + den) / (2n * den))
  return `R$ ${Math.floor(each / 100)},${String(each % 100).padStart(2, "0")}`
}

describe("checkout_url of card transactions", () => {
  it("approved in 3 installments: the URL in the answer and in reads; the page shows brand, last 4, 3x", async () => {
    const t = await charge(CARDS.mastercard, 3)
    expect(t.status).toBe("paid")
    expect(t.checkout_url).toMatch(CHECKOUT_URL())
    const read = await api.get(`${V1}/transactions/${t.hash}`, { token: key })
    expect(read.body.data.checkout_url).toBe(t.checkout_url)
    const list = await api.get(`${V1}/transactions?per_page=100`, { token: key })
    expect(list.body.data.find((x: { hash: string }) => x.hash === t.hash).checkout_url).toBe(t.checkout_url)

    const { html, text } = await page(t.checkout_url)
    expect(text).toContain("Loja do Pedro")
    expect(text).toContain("Mastercard terminado em 4444")
    expect(text).toContain(`3x de ${installmentOf(10_000, 3)}`)
    expect(text).toContain("Pagamento confirmado")
    expect(html).toContain('data-state="paid"')
    expect(html).not.toContain(CARDS.mastercard)
    expect(html).not.toContain(CARDS.mastercard.slice(0, 6))
  })

  it("refused by the acquirer, refused by antifraud, failed: each has its URL and says so", async () => {
    const cases = [
      { number: CARDS.declined, status: "refused", label: "Pagamento recusado", last4: "0002" },
      { number: CARDS.fraud, status: "refused", label: "Pagamento recusado", last4: "0019" },
      { number: CARDS.processingError, status: "failed", label: "Pagamento não processado", last4: "0119" }
    ]
    for (const c of cases) {
      const t = await charge(c.number)
      expect(t.status).toBe(c.status)
      expect(t.checkout_url, c.number).toMatch(CHECKOUT_URL())
      const { html, text } = await page(t.checkout_url)
      expect(text).toContain(`Visa terminado em ${c.last4}`)
      expect(text).toContain(c.label)
      expect(html).not.toContain(c.number)
    }
  })

  it("held for review keeps its URL through the approval; the page turns from analysis to paid", async () => {
    const t = await charge(REVIEW_CARD, 2)
    expect(t.status).toBe("antifraud")
    expect(t.checkout_url).toMatch(CHECKOUT_URL())
    expect((await page(t.checkout_url)).text).toContain("Em análise")
    const approved = await api.post(`/api/sandbox/transactions/${t.hash}/antifraud`, { decision: "approve" }, { key })
    expect(approved.status, approved.text).toBe(200)
    const read = await api.get(`${V1}/transactions/${t.hash}`, { token: key })
    expect(read.body.data).toMatchObject({ status: "paid", checkout_url: t.checkout_url })
    const status = await fetch(`${t.checkout_url}/status`).then((r) => r.json())
    expect(status).toEqual({ status: "paid" })
    const { text } = await page(t.checkout_url)
    expect(text).toContain("Visa terminado em 0101")
    expect(text).toContain(`2x de ${installmentOf(10_000, 2)}`)
    expect(text).toContain("Pagamento confirmado")
  })

  it("a card charged through /api reads in v1 with its checkout_url", async () => {
    const { orderId } = await newOrder(api, key, 7_000)
    const charged = await api.post(PROCESS, cardBody(orderId, 7_000, CARDS.visa), { key })
    expect(charged.status, charged.text).toBe(201)
    const read = await api.get(`${V1}/transactions/${charged.body.transactionId}`, { token: key })
    expect(read.body.data.checkout_url).toMatch(CHECKOUT_URL())
    expect((await page(read.body.data.checkout_url)).text).toContain("Visa terminado em 4242")
  })
})
