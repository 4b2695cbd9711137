import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { customerBody } from "./support/foundation.ts"
import { client, type Client, type RequestOptions, signup } from "./support/http.ts"
import { cardBody, freshCpf, newOrder, pixBody, PROCESS, tokenizeBody } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Issue 19.7 (docs/api.md "Unknown fields"): /openapi.json declares `additionalProperties: false` for
 * every body, and the service does what it says. For every operation of the document that takes a
 * body, a valid body with one field more at the top and one more inside a nested object is a 400
 * naming that field by its path, and nothing is stored; `__proto__` and `constructor` are refused
 * like any other unknown key (and `__proto__` pollutes nothing).
 */

let server: TestServer
let api: Client
let account: Awaited<ReturnType<typeof signup>>
let customerId: string
let orderId: string
let transactionId: string
let v1Hash: string
let subaccountId: string
let paymentLinkId: string

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, webhookAllowPrivateUrls: true })
  api = client(server.baseUrl)
  account = await signup(api)
  const order = await newOrder(api, account.key, 10_000)
  customerId = order.customerId
  orderId = (await newOrder(api, account.key, 10_000)).orderId
  const pix = await api.post(PROCESS, pixBody(order.orderId, 10_000), { key: account.key })
  expect(pix.status, pix.text).toBe(201)
  transactionId = pix.body.transactionId
  const v1 = await api.post("/public/v1/transactions", v1Pix(), { token: account.key })
  expect(v1.status, v1.text).toBe(201)
  v1Hash = v1.body.data.hash
  const sub = await api.post("/public/v1/subaccounts", subaccountBody(), { token: account.key })
  expect(sub.status, sub.text).toBe(201)
  subaccountId = sub.body.data.id
  const link = await api.post(
    "/public/v1/payment_links",
    { name: "Camiseta", amount: 5_000, payment_methods: ["pix"] },
    { token: account.key }
  )
  expect(link.status, link.text).toBe(201)
  paymentLinkId = link.body.data.id
})
afterAll(async () => {
  await server?.close()
})

const BANK = {
  bank_code: "341",
  agency: "0001",
  agency_digit: "",
  account: "0123456",
  account_digit: "1",
  type: "checking"
}
const v1Pix = () => ({
  method: "pix",
  amount: 5_000,
  customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), phone: "11912345678" },
  products: [{ name: "Camiseta", quantity: 1, unit_price: 5_000 }],
  metadata: { order_id: "A-1" }
})

const subaccountBody = () => ({
  name: "Loja Parceira",
  document: freshCpf(),
  email: "parceira@example.com",
  phone: "11912345678",
  bank_account: { ...BANK }
})

type Body = Record<string, unknown>
/** A valid body of each operation that takes one, keyed by the document's method and path template. */
const validBodies = (): Record<string, () => Body> => ({
  "post /api/auth/signup": () => ({
    name: "Outra Loja",
    email: `other-${randomUUID()}@example.com`,
    password: "correct horse battery"
  }),
  "post /api/auth/login": () => ({ email: account.email, password: account.password }),
  "post /api/customers": () => customerBody(),
  "patch /api/customers/{id}": () => ({ name: "Maria Souza" }),
  "post /api/orders": () => ({ customerId, amount: 2_500 }),
  "post /api/payment-gateway/process": () => cardBody(orderId, 10_000),
  "post /api/payment-gateway/tokenize-card": () => tokenizeBody(customerId),
  "post /api/payment-gateway/refund": () => ({ transactionId, amount: 100, reason: "troca" }),
  "post /api/webhooks/upsert": () => ({ url: "http://127.0.0.1:9/payments" }),
  "post /api/sandbox/transactions/{id}/antifraud": () => ({ decision: "approve" }),
  "post /api/sandbox/transactions/{id}/chargeback": () => ({ stage: "open" }),
  "post /api/sandbox/transactions/{id}/med": () => ({ stage: "open" }),
  "post /public/v1/transactions": () => ({
    ...v1Pix(),
    method: "credit_card",
    card: { number: "4111111111111111", holder_name: "MARIA SILVA", exp_month: "12", exp_year: "2031", cvv: "123" },
    split: [{ subaccount_id: subaccountId, percentage: 10 }]
  }),
  "post /public/v1/transactions/{hash}/refund": () => ({ amount: 100, reason: "troca" }),
  "post /public/v1/withdrawals": () => ({ amount: 100, bank_account: { ...BANK } }),
  "post /public/v1/subaccounts": subaccountBody,
  "post /api/dashboard/transactions/{id}/refund": () => ({ amount: 100, reason: "troca" }),
  "post /api/dashboard/transactions/{id}/antifraud": () => ({ decision: "approve" }),
  "post /api/dashboard/withdrawals": () => ({ amount: 100, bankAccount: { ...BANK } }),
  "post /api/dashboard/api-keys": () => ({ label: "Relatórios", scopes: ["orders:read"] }),
  "put /api/dashboard/webhook": () => ({ url: "http://127.0.0.1:9/payments" }),
  "post /api/webhooks/deliveries/resend-failed": () => ({ since: "2026-01-01T00:00:00Z" }),
  "post /api/webhooks/rotate-secret": () => ({ overlapSeconds: 60 }),
  "post /api/dashboard/webhooks/deliveries/resend-failed": () => ({ since: "2026-01-01T00:00:00Z" }),
  "post /api/dashboard/webhooks/rotate-secret": () => ({ overlapSeconds: 60 }),
  // The hosted card form's submission (docs/checkout.md): the page's token is its credential.
  "post /checkout/{token}/card": () => ({
    holder_name: "MARIA SILVA",
    number: "4111111111111111",
    exp_month: "12",
    exp_year: "2031",
    cvv: "123"
  }),
  "post /public/v1/payment_links": () => ({
    name: "Camiseta",
    amount: 5_000,
    items: [{ name: "Camiseta", quantity: 1, unit_price: 5_000 }],
    payment_methods: ["pix", "credit_card"],
    metadata: { campaign: "natal" }
  }),
  "post /api/dashboard/payment-links": () => ({ name: "Doação", payment_methods: ["pix"], min_amount: 1_000 }),
  "patch /public/v1/payment_links/{id}": () => ({
    name: "Camiseta Azul",
    items: [{ name: "Camiseta Azul", quantity: 1, unit_price: 5_000 }],
    metadata: { campaign: "natal" }
  }),
  "patch /api/dashboard/payment-links/{id}": () => ({ name: "Camiseta", max_uses: 10 }),
  // A payment link's buyer visit (docs/payment-links.md): the body is refused before the link is looked up.
  "post /pay/{id}": () => ({
    method: "pix",
    customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf() }
  })
})

/** The path with its parameters filled with resources of the account. */
const concrete = (template: string) =>
  template
    .replace(
      "{id}",
      template.startsWith("/api/customers")
        ? customerId
        : /payment[-_]links/.test(template)
          ? paymentLinkId
          : transactionId
    )
    .replace("{hash}", v1Hash)

const auth = (path: string): RequestOptions =>
  path.startsWith("/public/v1") || path.startsWith("/api/dashboard")
    ? { token: path.startsWith("/api/dashboard") ? account.token : account.key }
    : path.startsWith("/api/auth")
      ? {}
      : { key: account.key }

/** Every row of every table a request could write, as one text: equal before and after means nothing stored. */
const snapshot = async () => {
  const tables = [
    "accounts",
    "cards",
    "customers",
    "events",
    "idempotency_keys",
    "ledger_postings",
    "orders",
    "payment_links",
    "payment_link_transactions",
    "refunds",
    "subaccounts",
    "transactions",
    "webhooks",
    "withdrawals"
  ]
  const parts: Array<string> = []
  for (const table of tables) {
    const { rows } = await server.db.query(
      `select count(*)::text as n, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from ${table} t`
    )
    parts.push(`${table}:${rows[0].n}:${rows[0].h}`)
  }
  return parts.join("\n")
}

/** Every nested object of a body (not free-form metadata), as the paths to put a key into. */
const nestedTargets = (body: Body): Array<Array<string | number>> =>
  Object.entries(body).flatMap(([key, value]): Array<Array<string | number>> => {
    if (key === "metadata") return []
    if (Array.isArray(value) && typeof value[0] === "object" && value[0] !== null) return [[key, 0]]
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return [[key]]
    return []
  })
const fieldName = (path: ReadonlyArray<string | number>) =>
  path.map((k, i) => (typeof k === "number" ? `[${k}]` : i === 0 ? k : `.${k}`)).join("")
const withKeyAt = (body: Body, at: ReadonlyArray<string | number>, key: string): Body => {
  const copy = structuredClone(body)
  let target: any = copy
  for (const step of at) target = target[step]
  target[key] = 1
  return copy
}

const operationsWithBody = async () => {
  const document = (await api.get("/openapi.json")).body
  const operations: Array<{ method: string; template: string }> = []
  for (const [template, item] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (typeof operation === "object" && operation?.requestBody !== undefined) operations.push({ method, template })
    }
  }
  return operations
}

describe("unknown body fields (issue 19.7)", () => {
  it("every operation with a body: an unknown field, top or nested, is a 400 naming it; nothing stored", async () => {
    const operations = await operationsWithBody()
    const bodies = validBodies()
    // The table covers the document: an operation added later without a body here fails this test.
    expect(operations.map((o) => `${o.method} ${o.template}`).sort()).toEqual(Object.keys(bodies).sort())
    let nestedChecked = 0
    for (const { method, template } of operations) {
      const label = `${method} ${template}`
      const body = bodies[label]!()
      const path = concrete(template)
      const cases: Array<[Body, string]> = [
        [{ ...body, colour: "blue" }, "colour"],
        [JSON.parse(JSON.stringify(body).replace(/^\{/, '{"constructor":"x",')), "constructor"],
        [JSON.parse(JSON.stringify(body).replace(/^\{/, '{"__proto__":{"polluted":true},')), "__proto__"]
      ]
      for (const at of nestedTargets(body)) {
        nestedChecked += 1
        cases.push([withKeyAt(body, at, "colour"), fieldName([...at, "colour"])])
      }
      for (const [sent, field] of cases) {
        const before = await snapshot()
        const reply = await api.request(method.toUpperCase(), path, sent, auth(path))
        expect(reply.status, `${label} ${field}: ${reply.text}`).toBe(400)
        expect(reply.body.code, label).toBe("validation_failed")
        expect(reply.body.errors, `${label} ${field}`).toContainEqual({
          field,
          message: `${field} is not a known field`
        })
        expect(reply.body.message, label).toBe(`${field} is not a known field`)
        if (path.startsWith("/public/v1")) expect(reply.body.success, label).toBe(false)
        expect(await snapshot(), `${label} ${field} stored something`).toBe(before)
      }
      // The same body without the extra field is not refused as malformed: the fixture is valid, so
      // the 400 above was the unknown field's.
      const control = await api.request(method.toUpperCase(), path, body, auth(path))
      expect(control.status === 400 && control.body.code === "validation_failed", `${label}: ${control.text}`).toBe(
        false
      )
    }
    // buyerAddress, address, customer, products[0], card, split[0], bank_account (twice), the dashboard's
    // bankAccount, a payment link's items[0] (made and edited) and its buyer visit's customer
    expect(nestedChecked).toBe(12)
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
  })

  it("__proto__ inside free-form metadata is refused by its path and pollutes nothing", async () => {
    const sent = JSON.parse(JSON.stringify(v1Pix()).replace('"metadata":{', '"metadata":{"__proto__":{"admin":true},'))
    const before = await snapshot()
    const reply = await api.post("/public/v1/transactions", sent, { token: account.key })
    expect(reply.status, reply.text).toBe(400)
    expect(reply.body.errors).toEqual([
      { field: "metadata.__proto__", message: "metadata.__proto__ is not a known field" }
    ])
    expect(await snapshot()).toBe(before)
    expect(({} as Record<string, unknown>)["admin"]).toBeUndefined()
    // Other keys stay free in metadata, `constructor` included.
    const ok = await api.post(
      "/public/v1/transactions",
      { ...v1Pix(), metadata: { constructor: "x", prototype: "y" } },
      { token: account.key }
    )
    expect(ok.status, ok.text).toBe(201)
    expect(ok.body.data.metadata).toEqual({ constructor: "x", prototype: "y" })
  })

  it("several unknown fields are all named, beside the other broken fields", async () => {
    const reply = await api.post(
      "/api/customers",
      { ...customerBody({ email: "not an email" }), nickname: "Mari", address: { city: "SP" } },
      { key: account.key }
    )
    expect(reply.status, reply.text).toBe(400)
    const fields = reply.body.errors.map((e: { field: string }) => e.field)
    expect(fields).toEqual(expect.arrayContaining(["email", "nickname", "address"]))
  })
})
