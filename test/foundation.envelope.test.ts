import { randomUUID } from "node:crypto"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { customerBody, expectError, STATUS_PHRASE, UUID } from "./support/foundation.ts"
import { client, type Client, type Reply, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The cross-cutting HTTP contract (CONTRACT §1, §4): one error envelope for every failure, 400 / 404 /
 * 405 for malformed requests, X-Request-Id, the operational endpoints, the OpenAPI document, and a
 * property test that no input produces a 500.
 */

type Account = Awaited<ReturnType<typeof signup>>

let server: TestServer
let api: Client
let account: Account
let customerId: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  account = await signup(api)
  const customer = await api.post("/api/customers", customerBody(), { key: account.key })
  expect(customer.status).toBe(201)
  customerId = customer.body.id
})
afterAll(async () => {
  await server?.close()
})

/** The envelope of CONTRACT §4, for any status ≥ 400. */
const expectEnvelope = (reply: Reply, context = "") => {
  expect(reply.status, `${context} ${reply.text}`).toBeLessThan(500)
  if (reply.status < 400) return
  expect(reply.body, `${context} ${reply.text}`).toBeTypeOf("object")
  expect(reply.body, `${context} ${reply.text}`).not.toBeNull()
  expect(reply.body.statusCode, context).toBe(reply.status)
  expect(reply.body.error, context).toBe(STATUS_PHRASE[reply.status])
  expect(reply.body.message, context).toBeTypeOf("string")
  expect(reply.body.code, context).toMatch(/^[a-z]+(_[a-z]+)*$/)
  if (reply.body.errors !== undefined) {
    expect(Array.isArray(reply.body.errors), context).toBe(true)
    for (const e of reply.body.errors)
      expect(e, context).toEqual({ field: expect.any(String), message: expect.any(String) })
  }
}

describe("error envelope", () => {
  it("every kind of failure carries statusCode, error, message and code", async () => {
    const failures: Array<[number, () => Promise<Reply>]> = [
      [400, () => api.post("/api/customers", { name: "" }, { key: account.key })],
      [400, () => api.get("/api/customers/nope", { key: account.key })],
      [401, () => api.get("/api/customers")],
      [401, () => api.get("/api/api-keys/me")],
      [401, () => api.post("/api/auth/login", { email: account.email, password: "wrong password" })],
      [404, () => api.get(`/api/orders/${randomUUID()}`, { key: account.key })],
      [404, () => api.get("/api/nothing-here")],
      [405, () => api.request("PUT", "/api/customers", {}, { key: account.key })],
      [
        409,
        () => api.post("/api/auth/signup", { name: "Dup", email: account.email, password: "correct horse battery" })
      ]
    ]
    for (const [status, call] of failures) {
      const reply = await call()
      expect(reply.status, reply.text).toBe(status)
      expectEnvelope(reply)
      expect(reply.headers.get("content-type")).toMatch(/^application\/json/)
    }
  })

  it("malformed JSON → 400 malformed_json on every endpoint with a body", async () => {
    const endpoints: Array<[string, string, Record<string, string>]> = [
      ["POST", "/api/auth/signup", {}],
      ["POST", "/api/auth/login", {}],
      ["POST", "/api/customers", { "x-api-key": account.key }],
      ["PATCH", `/api/customers/${customerId}`, { "x-api-key": account.key }],
      ["POST", "/api/orders", { "x-api-key": account.key }]
    ]
    for (const [method, path, headers] of endpoints) {
      for (const raw of ["{", '{"name": }', "not json", "{'single': 'quotes'}", "[1,2,,]"]) {
        const reply = await api.request(method, path, undefined, { raw, headers })
        const body = expectError(reply, 400, "malformed_json")
        expect(body.message).toMatch(/JSON/)
      }
    }
  })

  it("unknown route → 404 route_not_found, with or without a key", async () => {
    for (const path of ["/api/nope", "/nope", "/api/customers/x/y", "/api", "/api/payment-gateway/unknown"]) {
      expectError(await api.get(path), 404, "route_not_found")
      expectError(await api.get(path, { key: account.key }), 404, "route_not_found")
    }
    expectError(await api.post("/api/nope", {}, { key: account.key }), 404, "route_not_found")
  })

  it("known path, wrong method → 405 method_not_allowed naming the allowed ones", async () => {
    const cases: Array<[string, string, string[]]> = [
      ["PUT", "/api/customers", ["GET", "POST"]],
      ["DELETE", "/api/customers", ["GET", "POST"]],
      ["POST", `/api/customers/${customerId}`, ["GET", "PATCH", "DELETE"]],
      ["PATCH", "/api/orders", ["GET", "POST"]],
      ["DELETE", `/api/orders/${randomUUID()}`, ["GET"]],
      ["POST", "/api/transactions", ["GET"]],
      ["GET", "/api/auth/login", ["POST"]],
      ["GET", "/api/api-keys/me/regenerate", ["POST"]]
    ]
    for (const [method, path, allowed] of cases) {
      const reply = await api.request(method, path, undefined, { key: account.key })
      const body = expectError(reply, 405, "method_not_allowed")
      for (const m of allowed) expect(body.message, `${method} ${path}`).toContain(m)
    }
    // And nothing was deleted by the refused DELETE.
    expect((await api.get("/api/customers", { key: account.key })).body.map((c: { id: string }) => c.id)).toContain(
      customerId
    )
  })

  it("a 405 carries an Allow header (RFC 9110 §15.5.6)", async () => {
    const reply = await api.request("PUT", "/api/customers", {}, { key: account.key })
    expect(reply.status).toBe(405)
    expect(reply.headers.get("allow"), "Allow header").not.toBeNull()
    expect(reply.headers.get("allow")).toMatch(/GET/)
  })

  it("deeply nested JSON (5000 levels) is a 400, never a 500", async () => {
    const depth = 5000
    const raw = `{"customerId": ${"[".repeat(depth)}${"]".repeat(depth)}, "amount": 1}`
    const reply = await api.request("POST", "/api/orders", undefined, { raw, key: account.key })
    expect(reply.status, reply.text).toBe(400)
  })

  it("a NUL character in the signup name is a 400", async () => {
    const reply = await api.post("/api/auth/signup", {
      name: "Loja\u0000",
      email: `nul-${Date.now()}@example.com`,
      password: "correct horse battery"
    })
    expect(reply.status, reply.text).toBe(400)
  })

  it("a NUL character in the login email is a 400 naming email", async () => {
    const reply = await api.post("/api/auth/login", { email: "x\u0000@example.com", password: "correct horse battery" })
    expect(reply.status, reply.text).toBe(400)
    expect(reply.body.errors).toEqual([
      { field: "email", message: "email must not contain the NUL character (\\u0000)" }
    ])
  })
})

describe("X-Request-Id", () => {
  it("is on every response, success or error, operational or API", async () => {
    const replies = await Promise.all([
      api.get("/health"),
      api.get("/ready"),
      api.get("/openapi.json"),
      api.get("/api/customers", { key: account.key }),
      api.get("/api/customers"),
      api.get("/api/nope"),
      api.request("PUT", "/api/customers"),
      api.request("POST", "/api/customers", undefined, { raw: "{", key: account.key })
    ])
    const ids = replies.map((r) => r.headers.get("x-request-id"))
    for (const id of ids) expect(id).toMatch(UUID)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("echoes a valid incoming X-Request-Id and replaces an invalid one", async () => {
    const mine = `req-${randomUUID()}`
    const ok = await api.get("/api/customers", { key: account.key, headers: { "x-request-id": mine } })
    expect(ok.headers.get("x-request-id")).toBe(mine)
    const failed = await api.get("/api/customers/bad", { key: account.key, headers: { "x-request-id": mine } })
    expect(failed.status).toBe(400)
    expect(failed.headers.get("x-request-id")).toBe(mine)
    for (const bad of ["short", "has spaces in it", "x".repeat(200), "<script>alert(1)</script>"]) {
      const reply = await api.get("/health", { headers: { "x-request-id": bad } })
      expect(reply.headers.get("x-request-id")).toMatch(UUID)
    }
  })
})

describe("operational endpoints", () => {
  it("GET /health 200 and GET /ready 200 without authentication", async () => {
    const health = await api.get("/health")
    expect(health.status).toBe(200)
    expect(health.body).toEqual({ status: "ok" })
    const ready = await api.get("/ready")
    expect(ready.status).toBe(200)
    expect(ready.body).toEqual({ status: "ready", database: "ok" })
  })

  it("GET /metrics 200 on its own listener: Prometheus text labelled by route template, not raw ids", async () => {
    const id = randomUUID()
    expect((await api.get(`/api/customers/${id}`, { key: account.key })).status).toBe(404)
    expect((await api.get(`/api/orders/${id}`, { key: account.key })).status).toBe(404)
    const metrics = await fetch(server.metricsUrl)
    const text = await metrics.text()
    expect(metrics.status).toBe(200)
    expect(metrics.headers.get("content-type")).toMatch(/^text\/plain/)
    expect(text).toContain("# TYPE http_requests_total counter")
    expect(text).toMatch(/http_requests_total\{[^}]*route="\/api\/customers\/:id"[^}]*status="404"[^}]*\} \d+/)
    expect(text).toMatch(/http_requests_total\{[^}]*route="\/api\/orders\/:id"/)
    expect(text).not.toContain(id)
    expect(text).toMatch(/rate_limit_decisions_total\{outcome="allowed"\} \d+/)
    // Unknown paths do not create one series each.
    await api.get(`/api/nope/${id}`)
    expect(await (await fetch(server.metricsUrl)).text()).not.toContain(id)
  })

  it("GET /metrics is not on the public listener (404); the metrics listener serves nothing else", async () => {
    const reply = await api.get("/metrics")
    expect(reply.status, reply.text).toBe(404)
    expect(reply.text).not.toContain("http_requests_total")
    expect((await fetch(server.metricsUrl.replace("/metrics", "/health"))).status).toBe(404)
    expect((await fetch(server.metricsUrl.replace("/metrics", "/api/customers"))).status).toBe(404)
  })

  it("GET /openapi.json: OpenAPI 3.1 with every /api route and both security schemes", async () => {
    const reply = await api.get("/openapi.json")
    expect(reply.status).toBe(200)
    const doc = reply.body
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/)
    const expected: Array<[string, string]> = [
      ["/api/auth/signup", "post"],
      ["/api/auth/login", "post"],
      ["/api/api-keys/me", "get"],
      ["/api/api-keys/me/regenerate", "post"],
      ["/api/customers", "get"],
      ["/api/customers", "post"],
      ["/api/customers/{id}", "get"],
      ["/api/customers/{id}", "patch"],
      ["/api/customers/{id}", "delete"],
      ["/api/orders", "get"],
      ["/api/orders", "post"],
      ["/api/orders/{id}", "get"],
      ["/api/transactions", "get"],
      ["/api/transactions/{transactionId}", "get"],
      ["/health", "get"],
      ["/ready", "get"]
    ]
    for (const [path, method] of expected) expect(doc.paths?.[path]?.[method], `${method} ${path}`).toBeTypeOf("object")
    const schemes = Object.values(doc.components?.securitySchemes ?? {}) as Array<Record<string, string>>
    expect(schemes).toContainEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "X-Api-Key" }))
    expect(schemes).toContainEqual(expect.objectContaining({ type: "http", scheme: "bearer" }))
    // The customers routes take the API key, the key-management routes the bearer token.
    const schemeName = (match: (s: Record<string, string>) => boolean) =>
      Object.entries(doc.components.securitySchemes as Record<string, Record<string, string>>).find(([, s]) =>
        match(s)
      )![0]
    const apiKeyName = schemeName((s) => s.type === "apiKey")
    // The login token's scheme (the v1 API key is also a bearer scheme, listed before it: docs/api.md).
    const bearerName = schemeName((s) => s.type === "http" && /JWT/.test(s.description ?? ""))
    expect(doc.paths["/api/customers"].post.security).toContainEqual({ [apiKeyName]: [] })
    expect(doc.paths["/api/api-keys/me"].get.security).toContainEqual({ [bearerName]: [] })
  })

  it("GET /docs 200 HTML", async () => {
    const reply = await api.get("/docs")
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toMatch(/^text\/html/)
    expect(reply.text).toMatch(/<html/i)
  })
})

describe("property: no input produces a 500, and every error is an envelope", () => {
  const NUM_RUNS = 40
  // All of Unicode, NUL included (PostgreSQL cannot store it: the body guard must refuse it first).
  const json = fc.jsonValue({ stringUnit: "grapheme", maxDepth: 4 })
  const anything = fc.oneof(json, fc.constantFrom(null, 0, -1, 1.5, 1e308, "", [], {}, true))
  /** Objects with the endpoint's own field names and random values: reaches the field validators. */
  const shaped = (fields: ReadonlyArray<string>, valid: Record<string, fc.Arbitrary<unknown>>) =>
    fc.record(Object.fromEntries(fields.map((f) => [f, fc.oneof(anything, valid[f] ?? anything)])), {
      requiredKeys: []
    })
  const rawString = fc.string({ unit: "grapheme", maxLength: 200 })

  const validValues: Record<string, fc.Arbitrary<unknown>> = {
    name: fc.constantFrom("Maria", "José da Silva", "  "),
    email: fc.constantFrom("a@b.co", "x@example.com", "A@B.CO"),
    password: fc.constantFrom("0123456789", "correct horse battery"),
    document: fc.constantFrom("52998224725", "11144477735", "00000000000"),
    phone: fc.constantFrom("(11) 91234-5678", "1133334444"),
    amount: fc.integer({ min: -10, max: 10_000_000_000 }),
    customerId: fc.oneof(fc.uuid(), fc.constant("")),
    id: fc.uuid()
  }

  const bodyEndpoints: Array<[string, string, () => string | undefined, ReadonlyArray<string>]> = [
    ["POST", "/api/auth/signup", () => undefined, ["name", "email", "password"]],
    ["POST", "/api/auth/login", () => undefined, ["email", "password"]],
    ["POST", "/api/customers", () => account.key, ["name", "email", "document", "phone"]],
    ["PATCH", "/api/customers/:id", () => account.key, ["name", "email", "phone", "document"]],
    ["POST", "/api/orders", () => account.key, ["customerId", "amount"]]
  ]

  it.each(bodyEndpoints)(
    "%s %s with random JSON, shaped objects and raw strings",
    async (method, template, key, fields) => {
      const path = () => template.replace(":id", customerId)
      const body = fc.oneof(
        json.map((v) => JSON.stringify(v)),
        shaped(fields, { ...validValues, customerId: fc.oneof(fc.constant(customerId), validValues.customerId!) }).map(
          (v) => JSON.stringify(v)
        ),
        rawString
      )
      await fc.assert(
        fc.asyncProperty(body, async (raw) => {
          const k = key()
          const reply = await api.request(method, path(), undefined, { raw, ...(k === undefined ? {} : { key: k }) })
          expectEnvelope(reply, `${method} ${template} ${raw}`)
        }),
        { numRuns: NUM_RUNS }
      )
    }
  )

  const idEndpoints: Array<[string, string]> = [
    ["GET", "/api/customers/"],
    ["DELETE", "/api/customers/"],
    ["PATCH", "/api/customers/"],
    ["GET", "/api/orders/"],
    ["GET", "/api/transactions/"]
  ]

  it.each(idEndpoints)("%s %s<random segment> is 400 or 404, never 500", async (method, prefix) => {
    const segment = fc
      .oneof(
        fc.uuid(),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }),
        fc.constantFrom(
          "%",
          "%E0%A4%A",
          "%00",
          "%2F",
          "a%2Fb",
          "null",
          "undefined",
          "0",
          "-1",
          "' or 1=1 --",
          randomUUID().toUpperCase()
        )
        // A raw NUL cannot be put in a URL by fetch; "%00" above covers the encoded one.
      )
      .filter((s) => s !== "." && s !== ".." && !s.includes("\u0000"))
    await fc.assert(
      fc.asyncProperty(segment, fc.boolean(), async (raw, encode) => {
        const encoded = encode ? encodeURIComponent(raw) : raw.replace(/[/?#\s]/g, encodeURIComponent)
        const reply = await api.request(
          method,
          `${prefix}${encoded}`,
          method === "PATCH" ? { name: "Fuzz" } : undefined,
          { key: account.key }
        )
        expectEnvelope(reply, `${method} ${prefix}${encoded}`)
        expect([400, 404], `${method} ${prefix}${encoded} ${reply.text}`).toContain(reply.status)
        if (UUID.test(raw)) expect(reply.status).toBe(404)
      }),
      { numRuns: NUM_RUNS }
    )
    // The fixture customer survived the random DELETEs and PATCHes (random ids never hit it).
    const kept = await api.get(`/api/customers/${customerId}`, { key: account.key })
    expect(kept.status).toBe(200)
  })

  it("random X-Request-Id values are echoed when valid and replaced otherwise", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 140 }).filter((s) => s.trim() === s && s.length > 0),
        async (incoming) => {
          const reply = await api.get("/health", { headers: { "x-request-id": incoming } })
          const id = reply.headers.get("x-request-id")
          if (/^[A-Za-z0-9._-]{8,128}$/.test(incoming)) expect(id).toBe(incoming)
          else expect(id).toMatch(UUID)
        }
      ),
      { numRuns: NUM_RUNS }
    )
  })
})
