import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CPFS, client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * What a sweep of hostile values over every operation of /openapi.json found (2026-11-27), each pinned by
 * one request. The rule (docs/input.md): bad input gets a 4xx envelope naming the field, never a 500, and
 * nothing the merchant sent is silently dropped or altered. Before: v1 date filters before 1914 (São
 * Paulo's local mean time, -03:06:28) reached SQL as NaN, a 500; `1e400` in metadata was stored as null;
 * a bad expiry year was named as the month; installments sent with PIX or billet were dropped; a path
 * parameter over the router's 100 characters was an unknown route; `document=` matched every transaction.
 */
let server: TestServer
let api: Client
let key: string
let customerId: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 1_000_000 })
  api = client(server.baseUrl)
  ;({ key } = await signup(api))
  customerId = (
    await api.post(
      "/api/customers",
      { name: "Maria", email: "m@example.com", document: CPFS[0], phone: "(11) 91234-5678" },
      { key }
    )
  ).body.id
})
afterAll(async () => {
  await server?.close()
})

const fields = (body: any): Array<string> => (body?.errors ?? []).map((e: { field: string }) => e.field)
const customer = { name: "Maria", email: "m@example.com", document: CPFS[1] }
const address = {
  postal_code: "01310100",
  street: "Avenida Paulista",
  number: "1578",
  neighborhood: "Bela Vista",
  city: "São Paulo",
  state: "SP"
}

describe("v1 date filters before 1914 (São Paulo's LMT offset -03:06:28 makes an Invalid Date)", () => {
  for (const path of [
    "/public/v1/transactions?created_from=1900-01-01",
    "/public/v1/transactions?created_to=1913-12-31",
    "/public/v1/subaccounts?created_from=1900-01-01",
    "/public/v1/payment_links?created_to=1900-01-01",
    "/public/v1/financials?start_at=1900-01-01&end_at=1900-12-31"
  ]) {
    it(`GET ${path}: not a 500`, async () => {
      const reply = await api.get(path, { token: key })
      expect(reply.status, reply.text).toBeLessThan(500)
      if (reply.status === 400) expect(fields(reply.body).length).toBeGreaterThan(0)
    })
  }
})

describe("metadata numbers JSON cannot carry are stored altered (1e400 becomes null)", () => {
  it("POST /public/v1/transactions metadata.note = 1e400: 400 naming metadata.note, not 201 with null", async () => {
    const reply = await api.request("POST", "/public/v1/transactions", undefined, {
      token: key,
      raw: `{"method":"pix","amount":1000,"customer":${JSON.stringify(customer)},"metadata":{"note":1e400}}`
    })
    expect(reply.status, reply.text).toBe(400)
    expect(fields(reply.body)).toContain("metadata.note")
  })

  it("POST /public/v1/payment_links metadata.note = 1e400: 400 naming metadata.note", async () => {
    const reply = await api.request("POST", "/public/v1/payment_links", undefined, {
      token: key,
      raw: `{"name":"x","amount":1000,"payment_methods":["pix"],"metadata":{"note":1e400}}`
    })
    expect(reply.status, reply.text).toBe(400)
    expect(fields(reply.body)).toContain("metadata.note")
  })
})

describe("a bad expiry year is named as the month", () => {
  it("POST /checkout/{token}/card exp_year 'abc': the error names exp_year", async () => {
    const charge = await api.post(
      "/public/v1/transactions",
      { method: "credit_card", amount: 10_000, customer },
      { token: key }
    )
    const token = /\/checkout\/([^/"?]+)/.exec(JSON.stringify(charge.body))![1]
    const reply = await api.post(`/checkout/${token}/card`, {
      holder_name: "MARIA",
      number: "4111111111111111",
      exp_month: "12",
      exp_year: "abc",
      cvv: "123"
    })
    expect(reply.status, reply.text).toBe(400)
    expect(fields(reply.body)).toContain("exp_year")
  })

  it("POST /api/payment-gateway/tokenize-card expirationYear 'abc': the error names expirationYear", async () => {
    const reply = await api.post(
      "/api/payment-gateway/tokenize-card",
      {
        customerId,
        doc: CPFS[0],
        holderName: "MARIA DA SILVA",
        cardNumber: "5555555555554444",
        brand: "Mastercard",
        expirationMonth: "08",
        expirationYear: "abc",
        securityCode: "321",
        birthdate: "1990-05-17",
        cellNumber: "(11) 91234-5678",
        address
      },
      { key }
    )
    expect(reply.status, reply.text).toBe(400)
    expect(fields(reply.body)).toContain("expirationYear")
  })
})

describe("installments out of range are accepted and dropped on PIX/BOLETO", () => {
  it("POST /api/payment-gateway/process PIX with installments 99: 400 naming installments", async () => {
    const order = await api.post("/api/orders", { customerId, amount: 15_000 }, { key })
    const reply = await api.post(
      "/api/payment-gateway/process",
      {
        orderId: order.body.id,
        method: "PIX",
        amount: 15_000,
        buyerDoc: CPFS[0],
        buyerCellNumber: "(11) 91234-5678",
        buyerAddress: address,
        installments: 99
      },
      { key }
    )
    expect(reply.status, reply.text).toBe(400)
    expect(fields(reply.body)).toContain("installments")
  })

  it("POST /public/v1/transactions pix with installments -1: 400 naming installments", async () => {
    const reply = await api.post(
      "/public/v1/transactions",
      { method: "pix", amount: 1000, customer, installments: -1 },
      { token: key }
    )
    expect(reply.status, reply.text).toBe(400)
    expect(fields(reply.body)).toContain("installments")
  })
})

describe("path parameters over 100 characters are an unknown route, not the parameter's 400", () => {
  it("GET /api/customers/{101 characters}: 400 naming id", async () => {
    const reply = await api.get(`/api/customers/${"a".repeat(101)}`, { key })
    expect(reply.status, reply.text).toBe(400)
    expect(fields(reply.body)).toContain("id")
  })
})

describe("an empty v1 document filter is silently ignored", () => {
  it("GET /public/v1/transactions?document= does not answer with every transaction", async () => {
    await api.post("/public/v1/transactions", { method: "pix", amount: 1000, customer }, { token: key })
    const reply = await api.get("/public/v1/transactions?document=", { token: key })
    if (reply.status === 400) expect(fields(reply.body)).toContain("document")
    else expect(reply.body.pagination.total, reply.text.slice(0, 300)).toBe(0)
  })
})
