import { createHash } from "node:crypto"
import { canonicalJson } from "../src/domain/canonicalJson.ts"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseBrCode } from "../src/domain/brcode.ts"
import { isValidBarcode, isValidDigitableLine } from "../src/domain/boleto.ts"
import { addCalendarDays, holidayName, isBusinessDay, onOrNextBusinessDay } from "../src/domain/calendar.ts"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf, newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { jsonBody, type Receiver, startReceiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * /public/v1 transactions (issue 8; CONTRACT-v1 §1–5) through real HTTP on real PostgreSQL: conventions,
 * each method and outcome, validation naming v1 paths, reads through both interfaces, refunds, events.
 */

let server: TestServer
let api: Client
let key: string
let other: string
let receiver: Receiver
let secret: string

const V1 = "/public/v1"
const OFFSET_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-03:00$/

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
  other = (await signup(api)).key
  receiver = await startReceiver()
  const hook = await api.post("/api/webhooks/upsert", { url: receiver.url }, { key })
  secret = hook.body.secret
})
afterAll(async () => {
  await receiver?.close()
  await server?.close()
})

const bearer = (k = key) => ({ token: k })
const customer = (overrides: Record<string, unknown> = {}) => ({
  name: "Maria Silva",
  email: "maria@example.com",
  document: freshCpf(),
  phone: "+55 (11) 91234-5678",
  ip: "203.0.113.7",
  ...overrides
})
const card = (number: string = CARDS.visa) => ({
  number,
  holder_name: "MARIA SILVA",
  exp_month: "12",
  exp_year: String(new Date().getUTCFullYear() + 3),
  cvv: "123"
})
const create = (body: Record<string, unknown>, options: Record<string, unknown> = bearer()) =>
  api.post(`${V1}/transactions`, body, options)

describe("conventions (CONTRACT-v1 §1)", () => {
  it(
    "accepts the key as Bearer or as api_token; a missing, unknown or JWT " + "token is 401 with success:false",
    async () => {
      expect((await api.get(`${V1}/installments?amount=1000`, bearer())).status).toBe(200)
      expect((await api.get(`${V1}/installments?amount=1000&api_token=${key}`)).status).toBe(200)
      for (const reply of [
        await api.get(`${V1}/installments?amount=1000`),
        await api.get(`${V1}/installments?amount=1000&api_token=sk_live_${"x".repeat(43)}`),
        await api.get(`${V1}/installments?amount=1000`, bearer("not-a-key"))
      ]) {
        expect(reply.status).toBe(401)
        expect(reply.body).toMatchObject({ success: false, statusCode: 401, code: "invalid_api_key" })
      }
    }
  )

  it("406 for an Accept without JSON, 415 for a non-JSON body, neither consuming the rate limit", async () => {
    const { key: limited } = await signup(api)
    await server.db.query("update api_keys set rate_limit = 2 where key_prefix = $1", [limited.slice(0, 16)])
    const notAcceptable = await api.get(`${V1}/installments?amount=1000`, {
      token: limited,
      headers: { accept: "text/html" }
    })
    expect(notAcceptable.status).toBe(406)
    expect(notAcceptable.body).toMatchObject({ success: false, statusCode: 406 })
    const unsupported = await api.post(`${V1}/transactions`, undefined, {
      token: limited,
      raw: "method=pix",
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expect(unsupported.status).toBe(415)
    expect(unsupported.body).toMatchObject({ success: false, statusCode: 415 })
    for (const accept of [undefined, "*/*", "application/*", "text/html, application/json;q=0.5"]) {
      const ok = await api.get(`${V1}/installments?amount=1000`, {
        token: limited,
        headers: accept === undefined ? {} : { accept }
      })
      if (accept === undefined || accept === "*/*") expect(ok.status).toBe(200)
      else expect([200, 429]).toContain(ok.status)
    }
  })

  it("an unknown v1 route is a 404 with the v1 body", async () => {
    const reply = await api.get(`${V1}/nothing-here`, bearer())
    expect(reply.status).toBe(404)
    expect(reply.body.success).toBe(false)
  })
})

describe("POST /public/v1/transactions", () => {
  it("pix: 201 pending with a real BR Code, QR URL, checkout URL and São Paulo offsets", async () => {
    const reply = await create({
      method: "pix",
      amount: 15_000,
      customer: customer({ document: "123.456.789-09" }),
      products: [{ name: "Camiseta", quantity: 2, unit_price: 7_500, sku: "CAM-01" }],
      metadata: { order_id: "1234", origin: "site" }
    })
    expect(reply.status).toBe(201)
    const t = reply.body.data
    expect(reply.body.success).toBe(true)
    expect(t).toMatchObject({
      status: "pending",
      method: "pix",
      amount: 15_000,
      amount_total: 15_000,
      amount_interest: 0,
      refunded_amount: 0,
      installments: 1,
      metadata: { order_id: "1234", origin: "site" },
      products: [{ name: "Camiseta", quantity: 2, unit_price: 7_500, sku: "CAM-01", link: null }],
      // The customer as sent but its document (CONTRACT-v1 §2); the phone is checked as digits, echoed as sent.
      customer: { document: "12345678909", document_type: "cpf", phone: "+55 (11) 91234-5678" },
      split: [],
      refusal_reason: null,
      paid_at: null
    })
    const parsed = parseBrCode(t.pix.qr_code)
    expect(parsed.ok && parsed.code.amountCents).toBe(15_000)
    expect(t.created_at).toMatch(OFFSET_ISO)
    expect(t.expires_at).toMatch(OFFSET_ISO)
    const png = await fetch(t.pix.qr_code_url)
    expect(png.headers.get("content-type")).toBe("image/png")
    expect(t.checkout_url).toMatch(new RegExp(`^${server.baseUrl}/checkout/[A-Za-z0-9_-]{43}$`))
  })

  it("billet: 201 pending with valid FEBRABAN codes; expires_at names the due date in São Paulo", async () => {
    const due = new Date(Date.now() + 5 * 86_400_000)
    const date = due.toLocaleDateString("en-CA", { timeZone: "America/Sao_Paulo" })
    const reply = await create({
      method: "billet",
      amount: 8_990,
      expires_at: `${date}T20:00:00-03:00`,
      customer: customer({ document: "11.222.333/0001-81" })
    })
    expect(reply.status).toBe(201)
    const t = reply.body.data
    expect(t.status).toBe("pending")
    expect(t.billet.due_date).toBe(date)
    expect(isValidBarcode(t.billet.barcode)).toBe(true)
    expect(isValidDigitableLine(t.billet.digitable_line)).toBe(true)
    expect(t.customer.document_type).toBe("cnpj")
    const pdf = await fetch(t.billet.pdf_url)
    expect(pdf.headers.get("content-type")).toBe("application/pdf")
  })

  it("billet due on a closed day: the due date stays, payable until the next business day's end", async () => {
    // The first closed day ahead (a holiday when one falls within 60 days, such as Christmas 2026,
    // else a Saturday): it expires at the end of the next business day (docs/calendar.md).
    const today = new Date().toLocaleDateString("en-CA", { timeZone: "America/Sao_Paulo" })
    const ahead = Array.from({ length: 55 }, (_, i) => addCalendarDays(today, i + 2))
    const closed = ahead.find((d) => holidayName(d) !== undefined) ?? ahead.find((d) => !isBusinessDay(d))!
    const reply = await create({
      method: "billet",
      amount: 8_990,
      expires_at: `${closed}T12:00:00-03:00`,
      customer: customer({ document: "11.222.333/0001-81" })
    })
    expect(reply.status).toBe(201)
    expect(reply.body.data.billet.due_date).toBe(closed)
    const payable = onOrNextBusinessDay(closed)
    expect(payable > closed).toBe(true)
    expect(reply.body.data.expires_at).toBe(`${payable}T23:59:59-03:00`)
  })

  it("accepts an alphanumeric CNPJ (Receita example 12.ABC.345/01DE-35) and rejects a wrong check digit", async () => {
    const ok = await create({ method: "pix", amount: 1_000, customer: customer({ document: "12.ABC.345/01DE-35" }) })
    expect(ok.status).toBe(201)
    expect(ok.body.data.customer).toMatchObject({ document: "12ABC34501DE35", document_type: "cnpj" })
    const bad = await create({ method: "pix", amount: 1_000, customer: customer({ document: "12.ABC.345/01DE-36" }) })
    expect(bad.status).toBe(400)
    expect(bad.body.errors.map((e: any) => e.field)).toEqual(["customer.document"])
  })

  const cardCases: ReadonlyArray<readonly [string, string, string | null]> = [
    [CARDS.visa, "paid", null],
    [CARDS.declined, "refused", "card_declined"],
    [CARDS.insufficientFunds, "refused", "insufficient_funds"],
    [CARDS.fraud, "refused", "fraud_suspected"],
    [CARDS.processingError, "failed", "processing_error"],
    ["4000000000000101", "antifraud", null]
  ]
  for (const [number, status, reason] of cardCases) {
    it(`credit_card ${number}: 201 ${status}${reason ? ` (${reason})` : ""}`, async () => {
      const reply = await create({ method: "credit_card", amount: 10_000, customer: customer(), card: card(number) })
      expect(reply.status).toBe(201)
      expect(reply.body.data).toMatchObject({ status, refusal_reason: reason, method: "credit_card" })
      expect(reply.body.data.card).toEqual({ brand: "Visa", last4: number.slice(-4), holder_name: "MARIA SILVA" })
      expect(JSON.stringify(reply.body)).not.toContain(number)
    })
  }

  it("credit_card in 3 installments charges option 3's total (Price table, 2.99 % a month)", async () => {
    const amount = 30_000
    // i = 0.0299, n = 3: (1+i)^3 = 1.092408…; 30000·i·(1+i)^3 / ((1+i)^3 − 1) = 10603.87… → 10604 each, total 31812.
    const reply = await create({ method: "credit_card", amount, installments: 3, customer: customer(), card: card() })
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({
      status: "paid",
      installments: 3,
      amount: 30_000,
      amount_total: 31_812,
      amount_interest: 1_812
    })
    const simulated = await api.get(`${V1}/installments?amount=${amount}`, bearer())
    expect(simulated.body.installments[2]).toEqual({
      installment: 3,
      amount: 10_604,
      total: 31_812,
      interest_rate: 2.99
    })
  })

  it("a 400 on a card's number or CVV names the field without quoting the value", async () => {
    const body = { method: "credit_card", amount: 1_000, customer: customer() }
    const reply = await create({ ...body, card: { ...card(), number: 4111111111111111, cvv: 739 } })
    expect(reply.status, reply.text).toBe(400)
    expect(reply.body.errors.map((e: any) => e.field)).toEqual(["card.number", "card.cvv"])
    expect(reply.text).not.toContain("4111111111111111")
    expect(reply.text).not.toContain("739")
    // Other fields keep Schema's whole message, the value included, to show what was sent.
    const other = await create({ ...body, customer: { ...customer(), name: 42 } })
    expect(other.body.errors[0].message).toContain("actual 42")
  })

  it("bounds a product's quantity and line total: 400 naming the field, nothing charged", async () => {
    const before = await server.db.query("select count(*)::int as n from transactions")
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      // Accepted, charged and then unpresentable (Schema.Int refuses an unsafe integer) before the bound.
      [{ name: "x", quantity: 1e16, unit_price: 100 }, "products[0].quantity"],
      [{ name: "x", quantity: 1_000_001, unit_price: 1 }, "products[0].quantity"],
      // 1,000,000 × 10,000 centavos is a line above the gateway's ceiling of 9,999,999,999.
      [{ name: "x", quantity: 1_000_000, unit_price: 10_000 }, "products[0].quantity"]
    ]
    for (const [product, field] of cases) {
      const reply = await create({
        method: "credit_card",
        amount: 10_000,
        customer: customer(),
        card: card(),
        products: [product]
      })
      expect(reply.status, reply.text).toBe(400)
      expect(reply.body.errors.map((e: any) => e.field)).toEqual([field])
    }
    const after = await server.db.query("select count(*)::int as n from transactions")
    expect(after.rows[0].n).toBe(before.rows[0].n)
    const largest = { name: "x", quantity: 1_000_000, unit_price: 9_999 }
    const ok = await create({ method: "pix", amount: 10_000, customer: customer(), products: [largest] })
    expect(ok.status, ok.text).toBe(201)
    expect(ok.body.data.products[0]).toMatchObject({ quantity: 1_000_000, unit_price: 9_999 })
    const read = await api.get(`${V1}/transactions/${ok.body.data.hash}`, bearer())
    expect(read.status, read.text).toBe(200)
  })

  it("names every broken field by its v1 path, never a 500", async () => {
    const reply = await create({
      method: "credit_card",
      amount: 0,
      installments: 13,
      comment: "x".repeat(501),
      customer: customer({
        name: "",
        email: "nope",
        document: "111.111.111-11",
        phone: "123",
        ip: "999.1.1.1",
        zip_code: "1234",
        state: "XX",
        country: "ZZ"
      }),
      products: [{ name: "", quantity: 0, unit_price: -1, link: "ftp://x" }],
      metadata: { big: "x".repeat(9_000) },
      card: { number: "4242424242424241", holder_name: "", exp_month: "13", exp_year: "1999", cvv: "1" }
    })
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ success: false, statusCode: 400, code: "validation_failed" })
    const fields = reply.body.errors.map((e: any) => e.field)
    for (const field of [
      "amount",
      "customer.name",
      "customer.email",
      "customer.document",
      "customer.phone",
      "customer.ip",
      "customer.zip_code",
      "customer.state",
      "customer.country",
      "products[0].name",
      "products[0].quantity",
      "products[0].unit_price",
      "products[0].link",
      "metadata",
      "comment",
      "installments",
      "card.number",
      "card.holder_name",
      "card.exp_month",
      "card.exp_year",
      "card.cvv"
    ]) {
      expect(fields, field).toContain(field)
    }
    const types = await create({ method: "boleto", amount: "10", customer: { name: 1 } })
    expect(types.status).toBe(400)
    expect(types.body.errors.map((e: any) => e.field)).toEqual(expect.arrayContaining(["method", "amount"]))
    // Without card or card_token the charge waits for the buyer's card on its hosted form (issue 20 §4,
    // docs/checkout.md "Hosted card form"; test/checkout.hosted.test.ts).
    const noCard = await create({ method: "credit_card", amount: 100, customer: customer() })
    expect(noCard.status, noCard.text).toBe(201)
    expect(noCard.body.data.status).toBe("pending")
    const pixTooSoon = await create({
      method: "pix",
      amount: 100,
      customer: customer(),
      expires_at: new Date(Date.now() + 60_000).toISOString()
    })
    expect(pixTooSoon.body.errors[0].field).toBe("expires_at")
    const noOffset = await create({
      method: "pix",
      amount: 100,
      customer: customer(),
      expires_at: "2030-01-01T10:00:00"
    })
    expect(noOffset.body.errors[0].field).toBe("expires_at")
  })

  it(
    "card_token: another account's is 404 card_token not found; saved for " + "another document is 400 card_token",
    async () => {
      const { customerId, document } = await newOrder(api, key, 1_000)
      const saved = await api.post(
        "/api/payment-gateway/tokenize-card",
        {
          customerId,
          doc: document,
          holderName: "MARIA SILVA",
          cardNumber: CARDS.visa,
          brand: "Visa",
          expirationMonth: "12",
          expirationYear: String((new Date().getUTCFullYear() + 3) % 100).padStart(2, "0"),
          securityCode: "123",
          birthdate: "1990-01-01",
          cellNumber: "(11) 91234-5678",
          address: {
            postal_code: "01310100",
            street: "Av Paulista",
            number: "1000",
            neighborhood: "Bela Vista",
            city: "São Paulo",
            state: "SP"
          }
        },
        { key }
      )
      expect(saved.status).toBe(201)
      const token = saved.body.cardToken
      const paid = await create({
        method: "credit_card",
        amount: 2_000,
        customer: customer({ document }),
        card_token: token
      })
      expect(paid.status).toBe(201)
      expect(paid.body.data.status).toBe("paid")
      const otherDoc = await create({ method: "credit_card", amount: 2_000, customer: customer(), card_token: token })
      expect(otherDoc.status).toBe(400)
      expect(otherDoc.body.errors[0].field).toBe("card_token")
      const foreign = await create(
        { method: "credit_card", amount: 2_000, customer: customer({ document }), card_token: token },
        bearer(other)
      )
      expect(foreign.status).toBe(404)
      expect(foreign.body.message).toBe("card_token not found")
    }
  )

  it("Idempotency-Key: a replay is byte for byte, another body 422", async () => {
    const body = { method: "pix", amount: 4_200, customer: customer() }
    const headers = { "idempotency-key": `v1-${Date.now()}` }
    const first = await create(body, { token: key, headers })
    const again = await create(body, { token: key, headers })
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.text).toBe(first.text)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    const changed = await create({ ...body, amount: 4_201 }, { token: key, headers })
    expect(changed.status).toBe(422)
    expect(changed.body).toMatchObject({ success: false, code: "idempotency_key_reused" })
  })

  it("Idempotency-Key: a card charge's stored fingerprint is keyed, not a SHA-256 of its card and CVV", async () => {
    const body = { method: "credit_card", amount: 4_400, installments: 1, customer: customer(), card: card() }
    const idempotencyKey = `v1-card-${Date.now()}`
    const first = await create(body, { token: key, headers: { "idempotency-key": idempotencyKey } })
    expect(first.status, first.text).toBe(201)
    const stored = await server.db.query("select fingerprint from idempotency_keys where key = $1", [idempotencyKey])
    const plain = createHash("sha256")
      .update(`POST /public/v1/transactions\n${canonicalJson(body)}`)
      .digest("hex")
    expect(stored.rows[0].fingerprint).toMatch(/^[0-9a-f]{64}$/)
    expect(stored.rows[0].fingerprint).not.toBe(plain)
    const again = await create(body, { token: key, headers: { "idempotency-key": idempotencyKey } })
    expect(again.text).toBe(first.text)
  })

  it("Idempotency-Key: an error's replay is byte for byte too, success: false included", async () => {
    const pending = await create({ method: "pix", amount: 4_300, customer: customer() })
    const headers = { "idempotency-key": `v1-refund-${Date.now()}` }
    // A PIX not yet paid has nothing to refund: a 409 the key keeps.
    const refund = () => api.post(`${V1}/transactions/${pending.body.data.hash}/refund`, {}, { token: key, headers })
    const first = await refund()
    const again = await refund()
    expect(first.status, first.text).toBe(409)
    expect(first.body.success).toBe(false)
    expect(again.status).toBe(409)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.text).toBe(first.text)
  })
})

describe("reads through both interfaces (CONTRACT-v1 §2)", () => {
  it("GET /public/v1/transactions/{hash}: one's own; another account's or a malformed hash 404", async () => {
    const made = await create({ method: "pix", amount: 1_111, customer: customer() })
    const hash = made.body.data.hash
    const got = await api.get(`${V1}/transactions/${hash}`, bearer())
    expect(got.status).toBe(200)
    expect(got.body.data).toEqual(made.body.data)
    expect((await api.get(`${V1}/transactions/${hash}`, bearer(other))).status).toBe(404)
    expect((await api.get(`${V1}/transactions/not-a-hash`, bearer())).status).toBe(404)
    const v2 = await api.get(`/api/transactions/${hash}`, { key })
    expect(v2.status).toBe(200)
    expect(v2.body).toMatchObject({ id: hash, orderId: null, method: "PIX", status: "PENDING", amount: 1_111 })
  })

  it("an /api transaction reads in v1 words with its order's customer and order_id metadata", async () => {
    const { document, orderId } = await newOrder(api, key, 5_000)
    const charged = await api.post(PROCESS, pixBody(orderId, 5_000), { key })
    const id = charged.body.transactionId
    await api.post(`/api/sandbox/transactions/${id}/pay`, undefined, { key })
    const got = await api.get(`${V1}/transactions/${id}`, bearer())
    expect(got.body.data).toMatchObject({
      hash: id,
      status: "paid",
      method: "pix",
      metadata: { order_id: orderId },
      customer: { document, document_type: "cpf" }
    })
    expect(got.body.data.paid_at).toMatch(OFFSET_ISO)
  })

  it("maps every status word: expired v1 pix is cancelled, expired /api pix failed", async () => {
    const v1 = await create({ method: "pix", amount: 700, customer: customer() })
    await api.post(`/api/sandbox/transactions/${v1.body.data.hash}/expire`, undefined, { key })
    expect((await api.get(`${V1}/transactions/${v1.body.data.hash}`, bearer())).body.data.status).toBe("cancelled")
    expect((await api.get(`/api/transactions/${v1.body.data.hash}`, { key })).body.status).toBe("CANCELLED")
    const { orderId } = await newOrder(api, key, 700)
    const v2 = await api.post(PROCESS, pixBody(orderId, 700), { key })
    await api.post(`/api/sandbox/transactions/${v2.body.transactionId}/expire`, undefined, { key })
    expect((await api.get(`${V1}/transactions/${v2.body.transactionId}`, bearer())).body.data.status).toBe("failed")
  })

  it("lists newest first with pagination and filters; bad parameters are 400 naming them", async () => {
    const { key: fresh } = await signup(api)
    const doc = freshCpf()
    const made = []
    for (let i = 0; i < 5; i++) {
      made.push(
        (await create({ method: "pix", amount: 100 + i, customer: customer({ document: doc }) }, bearer(fresh))).body
          .data
      )
    }
    await create({ method: "credit_card", amount: 900, customer: customer(), card: card() }, bearer(fresh))
    const page1 = await api.get(`${V1}/transactions?per_page=2`, bearer(fresh))
    expect(page1.body.pagination).toEqual({
      page: 1,
      per_page: 2,
      total: 6,
      total_pages: 3,
      next_cursor: expect.any(String)
    })
    expect(page1.body.data[0].method).toBe("credit_card")
    const pix = await api.get(`${V1}/transactions?method=pix&document=${doc}&per_page=100`, bearer(fresh))
    expect(pix.body.data.map((t: any) => t.hash)).toEqual(made.map((t) => t.hash).reverse())
    const paid = await api.get(`${V1}/transactions?status=paid`, bearer(fresh))
    expect(paid.body.pagination.total).toBe(1)
    // A page past the last, however far: 200 with `data: []` (CONTRACT-v1 §1), not a 400 past a cap.
    for (const page of [9, 2_000_000, Number.MAX_SAFE_INTEGER]) {
      const beyond = await api.get(`${V1}/transactions?page=${page}`, bearer(fresh))
      expect(beyond.status, String(page)).toBe(200)
      expect(beyond.body.data).toEqual([])
    }
    const today = new Date().toLocaleDateString("en-CA", { timeZone: "America/Sao_Paulo" })
    const dated = await api.get(`${V1}/transactions?created_from=${today}&created_to=${today}`, bearer(fresh))
    expect(dated.body.pagination.total).toBe(6)
    for (const [query, field] of [
      ["page=0", "page"],
      ["page=9007199254740992", "page"],
      ["per_page=101", "per_page"],
      ["status=lost", "status"],
      ["method=cash", "method"],
      ["created_from=2026-13-01", "created_from"],
      ["created_to=2026-02-30", "created_to"]
    ]) {
      const bad = await api.get(`${V1}/transactions?${query}`, bearer(fresh))
      expect(bad.status, query).toBe(400)
      expect(bad.body.errors[0].field).toBe(field)
    }
  })
})

describe("keyset pages (issue 10)", () => {
  it("next_cursor walks the same pages as page numbers, by keyset, to a last page without one", async () => {
    const { key: fresh } = await signup(api)
    // Seven in the same millisecond would still be ordered: the key is created_at to the microsecond, then id.
    await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        create({ method: "pix", amount: 200 + i, customer: customer() }, bearer(fresh))
      )
    )
    const byNumber: Array<string> = []
    for (const page of [1, 2, 3]) {
      const r = await api.get(`${V1}/transactions?per_page=3&page=${page}`, bearer(fresh))
      byNumber.push(...r.body.data.map((t: any) => t.hash))
    }
    const byCursor: Array<string> = []
    let url = `${V1}/transactions?per_page=3`
    const pages: Array<unknown> = []
    for (;;) {
      const r = await api.get(url, bearer(fresh))
      expect(r.status, r.text).toBe(200)
      byCursor.push(...r.body.data.map((t: any) => t.hash))
      const { next_cursor, ...pagination } = r.body.pagination
      pages.push(pagination)
      if (next_cursor === null) break
      url = `${V1}/transactions?per_page=3&cursor=${next_cursor}`
    }
    expect(byCursor).toHaveLength(7)
    expect(byCursor).toEqual(byNumber)
    expect(pages).toEqual([1, 2, 3].map((page) => ({ page, per_page: 3, total: 7, total_pages: 3 })))
    for (const cursor of ["nope", Buffer.from('[2,"x","y"]').toString("base64url"), "W10"]) {
      const bad = await api.get(`${V1}/transactions?cursor=${cursor}`, bearer(fresh))
      expect(bad.status, cursor).toBe(400)
      expect(bad.body.errors[0].field).toBe("cursor")
    }
  })
})

describe("POST /public/v1/transactions/{hash}/refund (CONTRACT-v1 §3)", () => {
  it("partial then full; 409 not_refundable after; 400 amount over the balance; pending 409", async () => {
    const paid = await create({ method: "credit_card", amount: 10_000, customer: customer(), card: card() })
    const hash = paid.body.data.hash
    const over = await api.post(`${V1}/transactions/${hash}/refund`, { amount: 10_001 }, bearer())
    expect(over.status).toBe(400)
    expect(over.body.errors[0].field).toBe("amount")
    const part = await api.post(`${V1}/transactions/${hash}/refund`, { amount: 3_000, reason: "one item" }, bearer())
    expect(part.status).toBe(200)
    expect(part.body.data).toMatchObject({ status: "refunded", refunded_amount: 3_000 })
    const rest = await api.post(`${V1}/transactions/${hash}/refund`, {}, bearer())
    expect(rest.body.data).toMatchObject({ status: "refunded", refunded_amount: 10_000 })
    const again = await api.post(`${V1}/transactions/${hash}/refund`, {}, bearer())
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ success: false, code: "not_refundable" })
    const pending = await create({ method: "pix", amount: 500, customer: customer() })
    const refused = await api.post(`${V1}/transactions/${pending.body.data.hash}/refund`, {}, bearer())
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe("not_refundable")
  })

  it("billet: partial 400 amount", async () => {
    const billet = await create({ method: "billet", amount: 5_000, customer: customer() })
    await server.db.query("update transactions set status = 'PAID', paid_at = now() where id = $1", [
      billet.body.data.hash
    ])
    const partial = await api.post(`${V1}/transactions/${billet.body.data.hash}/refund`, { amount: 100 }, bearer())
    expect(partial.status).toBe(400)
    expect(partial.body.errors[0].field).toBe("amount")
  })

  it("20 concurrent partial refunds of 700 on 10 000 never exceed the refundable balance", async () => {
    const paid = await create({ method: "credit_card", amount: 10_000, customer: customer(), card: card() })
    const hash = paid.body.data.hash
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => api.post(`${V1}/transactions/${hash}/refund`, { amount: 700 }, bearer()))
    )
    const ok = replies.filter((r) => r.status === 200).length
    expect(ok).toBe(14)
    for (const r of replies.filter((r) => r.status !== 200)) expect([400, 409]).toContain(r.status)
    const final = await api.get(`${V1}/transactions/${hash}`, bearer())
    expect(final.body.data.refunded_amount).toBe(14 * 700)
  })
})

describe("events (CONTRACT-v1 §5)", () => {
  it("v1 transactions send v1 payloads, signed the Standard Webhooks way", async () => {
    const made = await create({ method: "pix", amount: 2_500, customer: customer(), metadata: { order: "A1" } })
    const hash = made.body.data.hash
    await api.post(`/api/sandbox/transactions/${hash}/pay`, undefined, { key })
    await api.post(`${V1}/transactions/${hash}/refund`, { amount: 500 }, bearer())
    const refused = await create({
      method: "credit_card",
      amount: 900,
      customer: customer(),
      card: card(CARDS.declined)
    })
    const failed = await create({
      method: "credit_card",
      amount: 900,
      customer: customer(),
      card: card(CARDS.processingError)
    })
    const cancelled = await create({ method: "pix", amount: 300, customer: customer() })
    await api.post(`/api/sandbox/transactions/${cancelled.body.data.hash}/expire`, undefined, { key })
    const expected: ReadonlyArray<readonly [string, string, string]> = [
      [hash, "transaction.created", "pending"],
      [hash, "transaction.paid", "paid"],
      [hash, "transaction.refunded", "refunded"],
      [refused.body.data.hash, "transaction.refused", "refused"],
      [failed.body.data.hash, "transaction.failed", "failed"],
      [cancelled.body.data.hash, "transaction.cancelled", "cancelled"]
    ]
    const verifier = new Webhook(secret)
    const bodies = await receiver.waitFor(
      (requests) =>
        expected.every(([h, event]) =>
          requests.some((r) => {
            const b = jsonBody(r)
            return b.event === event && b.data?.hash === h
          })
        ),
      20_000
    )
    /** The delivery of `event` for the transaction `h` (the receiver also gets other tests' events). */
    const delivery = (event: string, h: string) =>
      bodies.find((r) => jsonBody(r).event === event && jsonBody(r).data.hash === h)!
    for (const [h, event, status] of expected) {
      const request = delivery(event, h)
      const verified = verifier.verify(request.body, request.headers) as any
      expect(verified.data.status, event).toBe(status)
      expect(verified.created_at).toMatch(OFFSET_ISO)
      expect(Object.keys(verified.data).sort()).toEqual(
        [
          "amount",
          "amount_total",
          "hash",
          "metadata",
          "method",
          "paid_at",
          "refusal_reason",
          "refunded_amount",
          "status"
        ].sort()
      )
    }
    const paidEvent = jsonBody(delivery("transaction.paid", hash))
    expect(paidEvent.data).toMatchObject({
      method: "pix",
      amount: 2_500,
      amount_total: 2_500,
      metadata: { order: "A1" }
    })
    expect(paidEvent.data.paid_at).toMatch(OFFSET_ISO)
    const refusedEvent = delivery("transaction.refused", refused.body.data.hash)
    expect(jsonBody(refusedEvent).data.refusal_reason).toBe("card_declined")
  })
})

describe("api_token stays secret", () => {
  it("never appears in metrics or stored rows", async () => {
    await api.get(`${V1}/installments?amount=1234&api_token=${key}`)
    await api.get(`${V1}/transactions/${crypto.randomUUID()}?api_token=${key}`)
    const metrics = await (await fetch(server.metricsUrl)).text()
    expect(metrics).not.toContain(key)
    expect(metrics).not.toContain("api_token")
    const tables = await server.db.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public'"
    )
    for (const { table_name } of tables.rows) {
      const rows = await server.db.query(`select * from ${table_name}`)
      expect(JSON.stringify(rows.rows), table_name).not.toContain(key)
    }
  })
})

describe("OpenAPI (issue 8)", () => {
  it("documents both interfaces with the v1 security schemes, query and bearer, and the v1 examples", async () => {
    const doc = (await api.get("/openapi.json")).body
    expect(doc.openapi).toMatch(/^3\.1\./)
    expect(doc.components.securitySchemes.apiToken).toMatchObject({ type: "apiKey", in: "query", name: "api_token" })
    expect(doc.components.securitySchemes.apiKeyBearer).toMatchObject({ type: "http", scheme: "bearer" })
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header" })
    for (const path of [
      "/public/v1/transactions",
      "/public/v1/transactions/{hash}",
      "/public/v1/transactions/{hash}/refund",
      "/public/v1/installments",
      "/api/payment-gateway/process"
    ]) {
      expect(doc.paths[path], path).toBeDefined()
    }
    const create = doc.paths["/public/v1/transactions"].post
    // The recommended credential first (docs/api.md): the key as a bearer token; api_token in the query is also read.
    expect(create.security).toEqual([{ apiKeyBearer: [] }, { apiToken: [] }])
    expect(JSON.stringify(create.requestBody)).toContain("credit_card")
  })
})
