import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Issue 12: every input gets a deliberate answer. Each case here was a 500, a hang or a reset before.
 */
let server: TestServer
let api: Client
let key: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 1_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

/** A raw request with a deadline: a hang is a failure, not a stuck test. */
const raw = (
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | string | undefined,
  timeoutMs = 5_000
) =>
  new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const url = new URL(path, server.baseUrl)
    const req = httpRequest(
      { method, hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers },
      (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (c) => (text += c))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }))
      }
    )
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    req.on("error", reject)
    if (body !== undefined) req.write(body)
    req.end()
  })

const remaining = async () => Number((await api.get("/api/customers", { key })).headers.get("ratelimit-remaining"))

describe("media types", () => {
  it("multipart/form-data (with or without boundary) is 415, not 500", async () => {
    for (const type of ["multipart/form-data; boundary=x", "multipart/form-data"]) {
      const reply = await raw("POST", "/api/customers", { "content-type": type, "x-api-key": key }, "--x\r\n\r\n--x--")
      expect(reply.status, type).toBe(415)
      expect(JSON.parse(reply.body)).toMatchObject({ statusCode: 415, code: "unsupported_media_type" })
    }
  })

  it("+json media types are JSON: answered at once, like application/json", async () => {
    for (const type of ["application/merge-patch+json", "application/vnd.api+json", "application/problem+json"]) {
      const reply = await raw("POST", "/api/customers", { "content-type": type, "x-api-key": key }, "{}")
      expect(reply.status, type).toBe(400)
      expect(JSON.parse(reply.body).code).toBe("validation_failed")
    }
  })

  it(
    "text/plain and a missing type with a body are 415; refused before " + "authentication, no rate-limit slot",
    async () => {
      const before = await remaining()
      for (const headers of [{ "content-type": "text/plain" }, {}]) {
        const reply = await raw("POST", "/api/customers", { ...headers, "x-api-key": key }, '{"a":1}')
        expect(reply.status).toBe(415)
      }
      const after = await remaining()
      expect(after).toBe(before - 1) // the second probe only
    }
  )
})

describe("sizes and encodings", () => {
  it("a body of 1 MiB + 1 byte gets a 413 envelope, not a reset", async () => {
    const body = Buffer.alloc(1024 * 1024 + 1, 0x20)
    const reply = await raw("POST", "/api/customers", { "content-type": "application/json", "x-api-key": key }, body)
    expect(reply.status).toBe(413)
    expect(JSON.parse(reply.body)).toMatchObject({ statusCode: 413, code: "payload_too_large" })
  })

  it("a declared Content-Length over 1 MiB is answered 413 before the body is read", async () => {
    const body = Buffer.alloc(3 * 1024 * 1024, 0x20)
    const reply = await raw(
      "POST",
      "/api/customers",
      { "content-type": "application/json", "content-length": String(body.length), "x-api-key": key },
      body
    )
    expect(reply.status).toBe(413)
  })

  it("exactly 1 MiB is read (and judged on its content)", async () => {
    const body = Buffer.alloc(1024 * 1024, 0x20)
    body.write("{}", 0)
    const reply = await raw("POST", "/api/customers", { "content-type": "application/json", "x-api-key": key }, body)
    expect(reply.status).toBe(400)
  })

  it("invalid UTF-8 in a JSON body is 400, and nothing is stored", async () => {
    const name = Buffer.concat([Buffer.from('{"name":"Jo'), Buffer.from([0xc3, 0x28]), Buffer.from('o"}')])
    const reply = await raw("POST", "/api/customers", { "content-type": "application/json", "x-api-key": key }, name)
    expect(reply.status).toBe(400)
    expect(JSON.parse(reply.body).message).toContain("UTF-8")
    const stored = await server.db.query("select count(*)::int as n from customers where name like '%\uFFFD%'")
    expect(stored.rows[0].n).toBe(0)
  })

  it("valid UTF-8 beyond ASCII is kept exactly", async () => {
    const reply = await api.post(
      "/api/customers",
      { name: "João Ñandú 漢字", email: "j@example.com", document: "52998224725", phone: "(11) 91234-5678" },
      { key }
    )
    expect([200, 201]).toContain(reply.status)
    expect(reply.body.name).toBe("João Ñandú 漢字")
  })
})

describe("text PostgreSQL cannot store (issue 19): one rule for both interfaces and every field", () => {
  const pix = (overrides: Record<string, unknown>) => ({
    method: "pix",
    amount: 1_000,
    customer: { name: "Maria", email: "m@example.com", document: "52998224725" },
    ...overrides
  })
  const count = async (table: string) =>
    (await server.db.query(`select count(*)::int as n from ${table}`)).rows[0].n as number

  it("a lone surrogate or a NUL in a v1 transaction is a 400 naming the field; nothing stored", async () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [pix({ customer: { name: "Ma\ud800ria", email: "m@example.com", document: "52998224725" } }), "customer.name"],
      [
        pix({ customer: { name: "M", email: "m@example.com", document: "52998224725", city: "\udc00" } }),
        "customer.city"
      ],
      [pix({ metadata: { note: "\udc00\ud800" } }), "metadata.note"],
      [pix({ metadata: { "k\ud800": "v" } }), "metadata.k\\ud800"],
      [pix({ products: [{ name: "Camiseta", quantity: 1, unit_price: 1_000, sku: "CAM\udbff" }] }), "products[0].sku"],
      [pix({ products: [{ name: "Cami\u0000seta", quantity: 1, unit_price: 1_000 }] }), "products[0].name"],
      [pix({ comment: "obs \ud83d" }), "comment"]
    ]
    const before = await count("transactions")
    for (const [body, field] of cases) {
      // JSON.stringify writes a lone surrogate as its `\uXXXX` escape: what a client sends.
      const reply = await raw_("POST", "/public/v1/transactions", JSON.stringify(body), {
        authorization: `Bearer ${key}`
      })
      expect(reply.status, `${field} ${reply.body}`).toBe(400)
      const envelope = JSON.parse(reply.body)
      expect(envelope).toMatchObject({ success: false, statusCode: 400, code: "validation_failed" })
      expect(envelope.errors.map((e: { field: string }) => e.field)).toEqual([field])
    }
    expect(await count("transactions")).toBe(before)
    // Well-formed text beyond the BMP (surrogates in their pairs) is kept exactly.
    const kept = await api.post(
      "/public/v1/transactions",
      pix({ comment: "pedido 😀 ção", metadata: { "😀": "漢字" } }),
      { token: key }
    )
    expect(kept.status, kept.text).toBe(201)
    expect(kept.body.data.metadata).toEqual({ "😀": "漢字" })
  })

  it("/api customer name with a lone surrogate is a 400, not U+FFFD stored", async () => {
    const before = await count("customers")
    const body = '{"name":"Jo\\ud800ao","email":"j@example.com","document":"52998224725","phone":"11912345678"}'
    const reply = await raw_("POST", "/api/customers", body, { "x-api-key": key })
    expect(reply.status, reply.body).toBe(400)
    expect(JSON.parse(reply.body).errors).toEqual([
      { field: "name", message: "name must be Unicode text: the surrogate \\ud800 is not part of a pair" }
    ])
    expect(await count("customers")).toBe(before)
  })

  it("a path segment or query parameter that is not UTF-8 once percent-decoded is a 400 naming it", async () => {
    for (const [path, field] of [
      ["/api/customers/ab%ED%A0%80", "id"],
      ["/public/v1/transactions?document=%ED%B0%80", "document"],
      ["/public/v1/transactions?status=%C3%28", "status"],
      ["/public/v1/transactions?document=a%00b", "document"]
    ]) {
      const reply = await raw("GET", path!, { "x-api-key": key, authorization: `Bearer ${key}` }, undefined)
      expect(reply.status, path).toBe(400)
      expect(JSON.parse(reply.body).errors.map((e: { field: string }) => e.field)).toEqual([field])
    }
  })
})

const raw_ = (method: string, path: string, body: string, headers: Record<string, string>) =>
  raw(method, path, { "content-type": "application/json", ...headers }, body)

describe("slow clients", () => {
  it("a drip-fed request cannot hold its socket past HTTP_REQUEST_TIMEOUT_MS", async () => {
    const slow = await startTestServer({
      http: { headersTimeoutMs: 1_000, requestTimeoutMs: 1_500, maxConnections: 100 }
    })
    try {
      const url = new URL(slow.baseUrl)
      const started = Date.now()
      const outcome = await new Promise<string>((resolve) => {
        const req = httpRequest(
          {
            method: "POST",
            hostname: url.hostname,
            port: url.port,
            path: "/api/customers",
            headers: { "content-type": "application/json", "content-length": "1000" }
          },
          (res) => {
            res.resume()
            res.on("end", () => resolve(`status ${res.statusCode}`))
          }
        )
        req.on("error", (e) => resolve(`closed: ${e.message}`))
        req.write("{") // and nothing more
        setTimeout(() => resolve("still open after 10 s"), 10_000)
      })
      expect(outcome).not.toBe("still open after 10 s")
      expect(Date.now() - started).toBeLessThan(5_000)
    } finally {
      await slow.close()
    }
  })
})

describe("readiness", () => {
  it("/ready is 200 with the database up", async () => {
    expect((await api.get("/ready")).body).toEqual({ status: "ready", database: "ok" })
  })
})
