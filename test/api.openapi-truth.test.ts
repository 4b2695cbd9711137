import { randomUUID } from "node:crypto"
import { createRequire } from "node:module"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { GatewayApi } from "../src/http/Api.ts"
import { routeTable } from "../src/http/shared/routes.ts"
import { client, type Client, type Reply, type RequestOptions, signup } from "./support/http.ts"
import {
  boletoBody,
  CARDS,
  cardBody,
  freshCpf,
  newOrder,
  PROCESS,
  pixBody,
  REFUND,
  TOKENIZE,
  tokenizeBody,
  v1Card
} from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * /openapi.json says what the service answers (docs/api.md "Reference"): every status an operation can
 * answer is listed on it (400 everywhere, 413 and 415 wherever a body is read), every body matches the
 * schema listed for its status (/public/v1's errors carry `success: false`), the document compiles in a
 * JSON Schema 2020-12 validator, and its request examples are accepted as they stand. A merchant's session
 * over both interfaces is validated answer by answer. Also the rule of the rate-limit headers
 * (docs/api.md "Rate-limit headers"): a request refused before its admission carries none.
 */

// ajv 8 with the JSON Schema 2020-12 dialect of OpenAPI 3.1, as openapi-backend (a dev dependency) installs it.
const fromBackend = createRequire(createRequire(import.meta.url).resolve("openapi-backend"))
const Ajv2020 = fromBackend("ajv/dist/2020").default
const addFormats = fromBackend("ajv-formats").default

let server: TestServer
let api: Client
let doc: any
let ajv: any

beforeAll(async () => {
  server = await startTestServer({ webhookAllowPrivateUrls: true } as never)
  api = client(server.baseUrl)
  doc = (await api.get("/openapi.json")).body
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
  addFormats(ajv)
  // Without `$id`s, so that each test here says what it finds even when the document does not compile as
  // served (its own test below).
  ajv.addSchema(withoutIds(doc), "openapi.json")
})
afterAll(async () => {
  await server?.close()
})

const withoutIds = (x: unknown): unknown =>
  Array.isArray(x)
    ? x.map(withoutIds)
    : x !== null && typeof x === "object"
      ? Object.fromEntries(
          Object.entries(x)
            .filter(([k]) => k !== "$id")
            .map(([k, v]) => [k, withoutIds(v)])
        )
      : x

const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1")
const operationOf = (method: string, template: string) => doc.paths[template]?.[method.toLowerCase()]
const documentedStatuses = (method: string, template: string) => Object.keys(operationOf(method, template).responses)
const operations = () =>
  Object.entries<Record<string, any>>(doc.paths).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([, operation]) => typeof operation === "object" && operation?.responses !== undefined)
      .map(([method, operation]) => ({ method, template, operation }))
  )

/** What is wrong with `reply` against its operation in the document: an undocumented status, a body off its schema. */
const problemsOf = (method: string, template: string, reply: Reply): Array<string> => {
  const label = `${method} ${template} -> ${reply.status}`
  const operation = operationOf(method, template)
  if (operation === undefined) return [`${label}: no such operation in /openapi.json`]
  const response = operation.responses[String(reply.status)]
  if (response === undefined) {
    return [`${label}: status not documented (${Object.keys(operation.responses)}) body=${reply.text.slice(0, 200)}`]
  }
  if (response.content === undefined) return reply.text.length > 0 ? [`${label}: a body, none documented`] : []
  const type = (reply.headers.get("content-type") ?? "").split(";")[0]!.trim()
  if (response.content[type] === undefined) return [`${label}: content-type ${type} not documented`]
  if (type !== "application/json") return []
  const operationPointer = `openapi.json#/paths/${esc(template)}/${method.toLowerCase()}`
  const pointer = `${operationPointer}/responses/${reply.status}/content/${esc(type)}/schema`
  const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer })
  if (validate(reply.body)) return []
  const errors = validate.errors
    .slice(0, 6)
    .map((e: any) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`)
  return [`${label}: ${JSON.stringify(errors)} body=${reply.text.slice(0, 300)}`]
}

const bearer = (key: string): RequestOptions => ({ headers: { authorization: `Bearer ${key}` } })

describe("/openapi.json as a JSON Schema 2020-12 document", () => {
  it("compiles as served: no `$id` is shared by different subschemas (Effect's built-in ones are dropped)", () => {
    const plain = new Ajv2020({ strict: false })
    expect(() => plain.addSchema(doc, "openapi.json")).not.toThrow()
    expect(JSON.stringify(doc)).not.toContain('"$id":"/schemas/')
  })
})

describe("/public/v1 error bodies", () => {
  it("carry `success: false`, which their documented V1 envelope requires (404, 400)", async () => {
    const { key } = await signup(api)
    const notFound = await api.get(`/public/v1/transactions/${randomUUID()}`, bearer(key))
    expect(notFound.status).toBe(404)
    expect(notFound.body.success).toBe(false)
    expect(problemsOf("GET", "/public/v1/transactions/{hash}", notFound)).toEqual([])
    const invalid = await api.post("/public/v1/transactions", { method: "pix" }, bearer(key))
    expect(invalid.status).toBe(400)
    expect(problemsOf("POST", "/public/v1/transactions", invalid)).toEqual([])
    const schema = doc.components.schemas.V1NotFound
    expect(schema.required).toContain("success")
    expect(schema.properties.success).toEqual({ type: "boolean", const: false })
    // The /api envelope still refuses the flag: the two interfaces' bodies are told apart.
    expect(ajv.validate({ $ref: "openapi.json#/components/schemas/NotFound" }, notFound.body)).toBe(false)
  })

  it("every error of an operation is a V1 envelope exactly where the route's error body adds `success`", () => {
    const routes = routeTable(GatewayApi)
    for (const { method, template, operation } of operations()) {
      const path = template.replace(/\{[^}]+\}/g, "x")
      const flagged = routes.route(method.toUpperCase(), path)?.errorBody === "successFlag"
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) < 400) continue
        const name: string = response.content["application/json"].schema.$ref.split("/").pop()
        expect(name.startsWith("V1"), `${method} ${template} ${status}: ${name}`).toBe(flagged)
        expect(doc.components.schemas[name], name).toBeDefined()
      }
    }
  })
})

describe("statuses the middleware answers before any route, listed on the operations", () => {
  it("a body that is not JSON is a 415, declared or not; 413 and 415 are listed wherever a body is read", async () => {
    const { key } = await signup(api)
    const customers = await api.post("/api/customers", undefined, {
      key,
      raw: "name=Maria",
      headers: { "content-type": "text/plain" }
    })
    expect(customers.status).toBe(415)
    expect(problemsOf("POST", "/api/customers", customers)).toEqual([])
    const login = await api.post("/api/auth/login", undefined, {
      raw: "email=a%40b.c&password=x",
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expect(login.status).toBe(415)
    expect(problemsOf("POST", "/api/auth/login", login)).toEqual([])
    // An operation that declares no body still reads one sent to it.
    const test = await api.post("/api/webhooks/test", undefined, {
      key,
      raw: "hello",
      headers: { "content-type": "text/plain" }
    })
    expect(test.status).toBe(415)
    expect(problemsOf("POST", "/api/webhooks/test", test)).toEqual([])
    for (const { method, template } of operations()) {
      const statuses = documentedStatuses(method, template)
      const readsBody = method !== "get" && method !== "head"
      expect(statuses.includes("413"), `${method} ${template} 413`).toBe(readsBody)
      expect(statuses.includes("415"), `${method} ${template} 415`).toBe(readsBody)
    }
    expect(doc.components.schemas.PayloadTooLarge.description).toContain("1 MiB")
  })

  it("a body over 1 MiB is a 413 in the operation's envelope", async () => {
    const { key } = await signup(api)
    const reply = await api.post("/public/v1/transactions", undefined, {
      ...bearer(key),
      raw: JSON.stringify({ method: "pix", comment: "x".repeat(1_100_000) })
    })
    expect(reply.status).toBe(413)
    expect(reply.body).toMatchObject({ success: false, code: "payload_too_large" })
    expect(problemsOf("POST", "/public/v1/transactions", reply)).toEqual([])
  })

  it("an unknown query parameter or a URL that is not text is a 400, on operations without input too", async () => {
    const { key, token } = await signup(api)
    const cases: Array<[string, string, RequestOptions]> = [
      ["/api/webhooks", "/api/webhooks?foo=1", { key }],
      ["/api/api-keys/me", "/api/api-keys/me?foo=1", { token }],
      ["/api/dashboard/me", "/api/dashboard/me?foo=1", { token }],
      ["/public/v1/balance", "/public/v1/balance?currency=BRL", bearer(key)],
      // Outside the API unknown parameters are let through, text that is not Unicode is not.
      ["/health", "/health?x=%00", {}]
    ]
    for (const [template, path, options] of cases) {
      const reply = await api.get(path, options)
      expect(reply.status, path).toBe(400)
      expect(problemsOf("GET", template, reply), path).toEqual([])
    }
    for (const { method, template } of operations()) {
      expect(documentedStatuses(method, template), `${method} ${template}`).toContain("400")
    }
  })
})

describe("the request examples of /openapi.json", () => {
  const examplesOf = (method: string, template: string): Array<any> =>
    operationOf(method, template).requestBody.content["application/json"].schema.examples

  it("are each accepted as they stand, whatever the day (ids swapped for this account's)", async () => {
    const { key, token } = await signup(api)
    const accepted = async (method: string, template: string, path: string, body: unknown, options: RequestOptions) => {
      const reply = await api.request(method, path, body, options)
      expect(reply.status, `${method} ${template} ${JSON.stringify(body)}: ${reply.text}`).toBeGreaterThanOrEqual(200)
      expect(reply.status, `${method} ${template}: ${reply.text}`).toBeLessThan(300)
      expect(problemsOf(method, template, reply)).toEqual([])
      return reply
    }
    const withExamples = operations().filter(
      ({ operation }) => operation.requestBody?.content?.["application/json"]?.schema?.examples
    )
    expect(withExamples.map(({ method, template }) => `${method.toUpperCase()} ${template}`).sort()).toEqual([
      "PATCH /api/dashboard/payment-links/{id}",
      "PATCH /public/v1/payment_links/{id}",
      "POST /api/dashboard/payment-links",
      "POST /api/payment-gateway/process",
      "POST /api/payment-gateway/refund",
      "POST /api/payment-gateway/tokenize-card",
      "POST /public/v1/payment_links",
      "POST /public/v1/subaccounts",
      "POST /public/v1/transactions"
    ])
    for (const example of examplesOf("POST", "/public/v1/transactions")) {
      await accepted("POST", "/public/v1/transactions", "/public/v1/transactions", example, bearer(key))
    }
    for (const example of examplesOf("POST", "/public/v1/subaccounts")) {
      await accepted("POST", "/public/v1/subaccounts", "/public/v1/subaccounts", example, bearer(key))
    }
    for (const example of examplesOf("POST", "/public/v1/payment_links")) {
      const link = await accepted("POST", "/public/v1/payment_links", "/public/v1/payment_links", example, bearer(key))
      for (const change of examplesOf("PATCH", "/public/v1/payment_links/{id}")) {
        const path = `/public/v1/payment_links/${link.body.data.id}`
        await accepted("PATCH", "/public/v1/payment_links/{id}", path, change, bearer(key))
      }
    }
    for (const example of examplesOf("POST", "/api/dashboard/payment-links")) {
      const link = await accepted("POST", "/api/dashboard/payment-links", "/api/dashboard/payment-links", example, {
        token
      })
      for (const change of examplesOf("PATCH", "/api/dashboard/payment-links/{id}")) {
        const path = `/api/dashboard/payment-links/${link.body.id}`
        await accepted("PATCH", "/api/dashboard/payment-links/{id}", path, change, { token })
      }
    }
    // /api: the examples name a customer, an order, a card token and a transaction of their own.
    const [tokenize] = examplesOf("POST", TOKENIZE)
    const customer = await api.post(
      "/api/customers",
      {
        name: "Maria da Silva",
        email: "maria@example.com",
        document: tokenize.doc,
        phone: tokenize.cellNumber
      },
      { key }
    )
    expect(customer.status, customer.text).toBe(201)
    const saved = await accepted("POST", TOKENIZE, TOKENIZE, { ...tokenize, customerId: customer.body.id }, { key })
    let captured: string | undefined
    for (const example of examplesOf("POST", PROCESS)) {
      const order = await api.post("/api/orders", { customerId: customer.body.id, amount: example.amount }, { key })
      expect(order.status, order.text).toBe(201)
      const body = {
        ...example,
        orderId: order.body.id,
        ...(example.cardToken ? { cardToken: saved.body.cardToken } : {})
      }
      const charge = await accepted("POST", PROCESS, PROCESS, body, { key })
      if (charge.body.status === "CAPTURED") captured ??= charge.body.transactionId
    }
    expect(captured).toBeDefined()
    for (const example of examplesOf("POST", REFUND)) {
      await accepted("POST", REFUND, REFUND, { ...example, transactionId: captured }, { key })
    }
  })
})

describe("RateLimit-* headers (docs/api.md 'Rate-limit headers')", () => {
  it("a restricted key's 403 takes no slot and carries none; the requests admitted around it carry them", async () => {
    const { token } = await signup(api)
    const restricted = await api.post(
      "/api/dashboard/api-keys",
      { label: "read only", scopes: ["customers:read"] },
      { token }
    )
    expect(restricted.status, restricted.text).toBe(201)
    const key = restricted.body.fullKey
    const before = await api.get("/api/customers", { key })
    expect(before.status).toBe(200)
    const remaining = Number(before.headers.get("ratelimit-remaining"))
    expect(before.headers.get("ratelimit-limit")).not.toBeNull()
    expect(before.headers.get("ratelimit-reset")).not.toBeNull()
    for (const reply of [
      await api.post("/api/orders", { customerId: randomUUID(), amount: 100 }, { key }),
      await api.get("/public/v1/balance", bearer(key))
    ]) {
      expect(reply.status, reply.text).toBe(403)
      expect(reply.body.code).toBe("insufficient_permissions")
      for (const header of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) {
        expect(reply.headers.get(header), header).toBeNull()
      }
    }
    const after = await api.get("/api/customers", { key })
    expect(Number(after.headers.get("ratelimit-remaining"))).toBe(remaining - 1)
  })
})

it("a merchant's session on both interfaces: each answer's status is listed, its body matches its schema", async () => {
  const problems: Array<string> = []
  const call = async (method: string, template: string, path: string, body?: unknown, options: RequestOptions = {}) => {
    const reply = await api.request(method, path, body, options)
    problems.push(...problemsOf(method, template, reply))
    return reply
  }
  const m = await signup(api)
  const k = { key: m.key }
  const b = bearer(m.key)
  const t = { token: m.token }
  const idempotent = (options: RequestOptions): RequestOptions => ({
    ...options,
    headers: { ...options.headers, "idempotency-key": randomUUID() }
  })
  await call("GET", "/", "/")
  await call("GET", "/health", "/health")
  await call("GET", "/ready", "/ready")
  await call("POST", "/api/auth/login", "/api/auth/login", { email: m.email, password: "wrong password x" })
  await call("POST", "/api/auth/login", "/api/auth/login", { email: m.email, password: m.password })
  await call("POST", "/api/auth/signup", "/api/auth/signup", {
    name: "X",
    email: m.email,
    password: "correct horse battery"
  })
  await call("GET", "/api/api-keys/me", "/api/api-keys/me", undefined, t)
  await call("GET", "/api/api-keys", "/api/api-keys", undefined, t)
  await call("GET", "/api/api-keys/me", "/api/api-keys/me")
  // customers
  const phone = "(11) 91234-5678"
  const cust = await call(
    "POST",
    "/api/customers",
    "/api/customers",
    { name: "Maria", email: "m@example.com", document: freshCpf(), phone },
    k
  )
  await call(
    "POST",
    "/api/customers",
    "/api/customers",
    { name: "Maria2", email: "m@example.com", document: cust.body.document, phone },
    k
  )
  await call(
    "POST",
    "/api/customers",
    "/api/customers",
    { name: "Maria", email: "m@example.com", document: "123", phone: "x" },
    k
  )
  await call("POST", "/api/customers", "/api/customers", undefined, {
    ...k,
    raw: "name=Maria",
    headers: { "content-type": "text/plain" }
  })
  await call("GET", "/api/customers", "/api/customers", undefined, k)
  await call("GET", "/api/customers", "/api/customers?createdFrom=2020-01-01", undefined, k)
  await call("GET", "/api/customers", "/api/customers?page=2", undefined, k)
  await call("GET", "/api/customers/{id}", `/api/customers/${cust.body.id}`, undefined, k)
  await call("GET", "/api/customers/{id}", `/api/customers/${randomUUID()}`, undefined, k)
  await call("GET", "/api/customers/{id}", `/api/customers/nope`, undefined, k)
  await call("PATCH", "/api/customers/{id}", `/api/customers/${cust.body.id}`, { name: "Maria Souza" }, k)
  await call("PATCH", "/api/customers/{id}", `/api/customers/${cust.body.id}`, { document: "52998224725" }, k)
  // orders
  const ord = await call("POST", "/api/orders", "/api/orders", { customerId: cust.body.id, amount: 10000 }, k)
  await call("POST", "/api/orders", "/api/orders", { customerId: randomUUID(), amount: 10000 }, k)
  await call("GET", "/api/orders", "/api/orders", undefined, k)
  await call("GET", "/api/orders/{id}", `/api/orders/${ord.body.id}`, undefined, k)
  // payments
  const pix = await call("POST", PROCESS, PROCESS, pixBody(ord.body.id, 10000), idempotent(k))
  const o2 = await newOrder(api, m.key, 5000)
  const key2 = randomUUID()
  const card = await call("POST", PROCESS, PROCESS, cardBody(o2.orderId, 5000), {
    ...k,
    headers: { "idempotency-key": key2 }
  })
  await call("POST", PROCESS, PROCESS, cardBody(o2.orderId, 5000), { ...k, headers: { "idempotency-key": key2 } })
  await call("POST", PROCESS, PROCESS, cardBody(o2.orderId, 4000), { ...k, headers: { "idempotency-key": key2 } })
  const o3 = await newOrder(api, m.key, 5000)
  await call("POST", PROCESS, PROCESS, cardBody(o3.orderId, 5000, CARDS.declined), k)
  const o4 = await newOrder(api, m.key, 5000)
  const bol = await call("POST", PROCESS, PROCESS, boletoBody(o4.orderId, 5000), k)
  await call("POST", PROCESS, PROCESS, { ...pixBody(o4.orderId, 5000), buyerDoc: undefined }, k)
  await call("POST", PROCESS, PROCESS, pixBody(randomUUID(), 5000), k)
  await call("POST", TOKENIZE, TOKENIZE, tokenizeBody(o4.customerId), k)
  await call("POST", TOKENIZE, TOKENIZE, tokenizeBody(o4.customerId, CARDS.expired), k)
  await call("POST", REFUND, REFUND, { transactionId: card.body.transactionId, amount: 1000, reason: "x" }, k)
  await call("POST", REFUND, REFUND, { transactionId: card.body.transactionId, amount: 99999 }, k)
  await call("POST", REFUND, REFUND, { transactionId: pix.body.transactionId }, k)
  await call("POST", REFUND, REFUND, { transactionId: randomUUID() }, k)
  const gatewayTransaction = "/api/payment-gateway/transaction/{transactionId}"
  for (const id of [card.body.transactionId, pix.body.transactionId, bol.body.transactionId]) {
    await call("GET", gatewayTransaction, `/api/payment-gateway/transaction/${id}`, undefined, k)
  }
  await call("GET", "/api/transactions", "/api/transactions", undefined, k)
  await call("GET", "/api/transactions/{transactionId}", `/api/transactions/${card.body.transactionId}`, undefined, k)
  const amountDue = "/api/transactions/{transactionId}/amount-due"
  await call("GET", amountDue, `/api/transactions/${bol.body.transactionId}/amount-due`, undefined, k)
  await call("GET", amountDue, `/api/transactions/${pix.body.transactionId}/amount-due`, undefined, k)
  // sandbox
  const sandbox = (action: string, id: string, body?: unknown) =>
    call("POST", `/api/sandbox/transactions/{id}/${action}`, `/api/sandbox/transactions/${id}/${action}`, body, k)
  await sandbox("pay", pix.body.transactionId)
  await sandbox("pay", bol.body.transactionId)
  await sandbox("settle", card.body.transactionId)
  await sandbox("chargeback", card.body.transactionId, { action: "open" })
  await sandbox("expire", pix.body.transactionId)
  // webhooks and events
  await call("GET", "/api/webhooks", "/api/webhooks", undefined, k)
  await call("GET", "/api/webhooks", "/api/webhooks?foo=1", undefined, k)
  await call("POST", "/api/webhooks/upsert", "/api/webhooks/upsert", { url: "https://example.com/hook" }, k)
  await call("POST", "/api/webhooks/upsert", "/api/webhooks/upsert", { url: "http://127.0.0.1:1/hook" }, k)
  await call("GET", "/api/webhooks", "/api/webhooks", undefined, k)
  await call("POST", "/api/webhooks/test", "/api/webhooks/test", undefined, k)
  await call("POST", "/api/webhooks/rotate-secret", "/api/webhooks/rotate-secret", {}, k)
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  const deliveries = await call("GET", "/api/webhooks/deliveries", "/api/webhooks/deliveries", undefined, k)
  const delivery = deliveries.body?.deliveries?.[0]?.deliveryId
  if (delivery !== undefined) {
    const one = "/api/webhooks/deliveries/{deliveryId}"
    await call("GET", one, `/api/webhooks/deliveries/${delivery}`, undefined, k)
    await call("POST", `${one}/retry`, `/api/webhooks/deliveries/${delivery}/retry`, undefined, k)
    await call("POST", `${one}/resend`, `/api/webhooks/deliveries/${delivery}/resend`, undefined, k)
  }
  await call("POST", "/api/webhooks/deliveries/resend-failed", "/api/webhooks/deliveries/resend-failed", {}, k)
  const events = await call("GET", "/api/events", "/api/events", undefined, k)
  const event = events.body?.data?.[0]?.id ?? events.body?.events?.[0]?.id
  if (event !== undefined) await call("GET", "/api/events/{eventId}", `/api/events/${event}`, undefined, k)
  await call("GET", "/api/request-log", "/api/request-log", undefined, k)
  await call("DELETE", "/api/webhooks", "/api/webhooks", undefined, k)
  // /public/v1
  const customer = { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), phone, ip: "203.0.113.7" }
  const create = (body: unknown, options: RequestOptions = b) =>
    call("POST", "/public/v1/transactions", "/public/v1/transactions", body, options)
  const v1pix = await create({
    method: "pix",
    amount: 15000,
    customer,
    products: [{ name: "Camiseta", quantity: 2, unit_price: 7500, sku: "CAM-01" }],
    metadata: { order_id: "1" }
  })
  const v1card = await create({ method: "credit_card", amount: 30000, installments: 3, customer, card: v1Card() })
  await create({ method: "credit_card", amount: 30000, customer, card: v1Card(CARDS.declined) })
  const v1billet = await create({ method: "billet", amount: 8990, customer })
  await create({ method: "credit_card", amount: 30000, customer })
  await create({ method: "pix" })
  await create({ method: "pix", amount: 100, customer }, bearer("nope"))
  await create(undefined, { ...b, raw: "method=pix", headers: { ...b.headers, "content-type": "text/plain" } })
  await call("GET", "/public/v1/balance", "/public/v1/balance", undefined, {
    headers: { ...b.headers, accept: "text/html" }
  })
  await call("GET", "/public/v1/transactions", "/public/v1/transactions", undefined, b)
  const v1one = "/public/v1/transactions/{hash}"
  for (const id of [v1pix.body?.data?.hash, card.body.transactionId, bol.body.transactionId, randomUUID()]) {
    await call("GET", v1one, `/public/v1/transactions/${id}`, undefined, b)
  }
  await call(
    "GET",
    `${v1one}/amount_due`,
    `/public/v1/transactions/${v1billet.body?.data?.hash}/amount_due`,
    undefined,
    b
  )
  await call("POST", `${v1one}/refund`, `/public/v1/transactions/${v1card.body?.data?.hash}/refund`, { amount: 100 }, b)
  await call("POST", `${v1one}/refund`, `/public/v1/transactions/${v1pix.body?.data?.hash}/refund`, {}, b)
  await call("GET", "/public/v1/installments", "/public/v1/installments?amount=10000", undefined, b)
  await call("GET", "/public/v1/installments", "/public/v1/installments", undefined, b)
  await call("GET", "/public/v1/balance", "/public/v1/balance", undefined, b)
  await call("GET", "/public/v1/financials", "/public/v1/financials", undefined, b)
  await call(
    "GET",
    "/public/v1/financials",
    "/public/v1/financials?start_at=2026-01-01&end_at=2026-12-31",
    undefined,
    b
  )
  await call(
    "GET",
    "/public/v1/antifraud/{transaction_hash}",
    `/public/v1/antifraud/${v1card.body?.data?.hash}`,
    undefined,
    b
  )
  const bankAccount = { bank_code: "341", agency: "0001", account: "123456", account_digit: "7", type: "checking" }
  const sub = await call(
    "POST",
    "/public/v1/subaccounts",
    "/public/v1/subaccounts",
    {
      name: "Loja Parceira",
      document: "11222333000181",
      email: "f@parceira.example",
      phone: "(11) 3123-4567",
      bank_account: bankAccount
    },
    b
  )
  await call("GET", "/public/v1/subaccounts", "/public/v1/subaccounts", undefined, b)
  if (sub.body?.data?.id)
    await call("GET", "/public/v1/subaccounts/{id}", `/public/v1/subaccounts/${sub.body.data.id}`, undefined, b)
  await call("POST", "/public/v1/withdrawals", "/public/v1/withdrawals", { amount: 100, bank_account: bankAccount }, b)
  await call(
    "POST",
    "/public/v1/withdrawals",
    "/public/v1/withdrawals",
    { amount: 999999999, bank_account: bankAccount },
    b
  )
  const withdrawals = await call("GET", "/public/v1/withdrawals", "/public/v1/withdrawals", undefined, b)
  const withdrawal = withdrawals.body?.data?.[0]?.id
  if (withdrawal) await call("GET", "/public/v1/withdrawals/{id}", `/public/v1/withdrawals/${withdrawal}`, undefined, b)
  const link = await call(
    "POST",
    "/public/v1/payment_links",
    "/public/v1/payment_links",
    {
      name: "Camiseta Azul",
      amount: 8990,
      payment_methods: ["credit_card", "pix"],
      max_installments: 3
    },
    b
  )
  await call("GET", "/public/v1/payment_links", "/public/v1/payment_links", undefined, b)
  const linkId = link.body?.data?.id
  expect(linkId).toBeDefined()
  const oneLink = "/public/v1/payment_links/{id}"
  await call("GET", oneLink, `/public/v1/payment_links/${linkId}`, undefined, b)
  await call("PATCH", oneLink, `/public/v1/payment_links/${linkId}`, { max_uses: 80 }, b)
  await call("PATCH", oneLink, `/public/v1/payment_links/${linkId}`, { amount: 1 }, b)
  await call("POST", `${oneLink}/deactivate`, `/public/v1/payment_links/${linkId}/deactivate`, undefined, b)
  await call("POST", `${oneLink}/activate`, `/public/v1/payment_links/${linkId}/activate`, undefined, b)
  await call("GET", `${oneLink}/transactions`, `/public/v1/payment_links/${linkId}/transactions`, undefined, b)
  await call("GET", "/pay/{id}", `/pay/${linkId}`, undefined, { headers: { accept: "application/json" } })
  // dashboard
  for (const path of [
    "/api/dashboard/me",
    "/api/dashboard/summary",
    "/api/dashboard/transactions",
    "/api/dashboard/customers",
    "/api/dashboard/balance",
    "/api/dashboard/financials",
    "/api/dashboard/withdrawals",
    "/api/dashboard/subaccounts",
    "/api/dashboard/api-keys",
    "/api/dashboard/webhook",
    "/api/dashboard/payment-links",
    "/api/dashboard/events",
    "/api/dashboard/webhooks/deliveries",
    "/api/dashboard/request-log"
  ]) {
    await call("GET", path, path, undefined, t)
  }
  const dashboardTransaction = "/api/dashboard/transactions/{id}"
  await call("GET", dashboardTransaction, `/api/dashboard/transactions/${card.body.transactionId}`, undefined, t)
  await call("GET", dashboardTransaction, `/api/dashboard/transactions/${v1pix.body?.data?.hash}`, undefined, t)
  const made = await call("POST", "/api/dashboard/api-keys", "/api/dashboard/api-keys", { label: "ci" }, t)
  if (made.body?.id)
    await call("DELETE", "/api/dashboard/api-keys/{id}", `/api/dashboard/api-keys/${made.body.id}`, undefined, t)
  await call("PUT", "/api/dashboard/webhook", "/api/dashboard/webhook", { url: "https://example.com/h2" }, t)
  await call("DELETE", "/api/dashboard/webhook", "/api/dashboard/webhook", undefined, t)
  await call("DELETE", "/api/customers/{id}", `/api/customers/${cust.body.id}`, undefined, k)
  await call("POST", "/api/api-keys/me/live", "/api/api-keys/me/live", undefined, t)
  await call("POST", "/api/api-keys/me/regenerate", "/api/api-keys/me/regenerate", undefined, t)
  expect(problems).toEqual([])
}, 120_000)
